// BookshelfUI: under construction.
