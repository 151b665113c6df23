// TerminalUITests: under construction.
