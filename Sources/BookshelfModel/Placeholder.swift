// BookshelfModel: under construction.
