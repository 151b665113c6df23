// EndToEndTests: under construction.
