// CatalogContractTests: under construction.
