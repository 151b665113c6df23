// PostgresCatalog: under construction.
