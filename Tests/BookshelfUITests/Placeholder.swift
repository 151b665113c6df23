// BookshelfUITests: under construction.
