// SQLiteCatalog: under construction.
