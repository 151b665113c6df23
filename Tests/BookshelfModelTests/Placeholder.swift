// BookshelfModelTests: under construction.
