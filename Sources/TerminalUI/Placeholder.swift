// TerminalUI: under construction.
