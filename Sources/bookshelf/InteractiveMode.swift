/// `bookshelf` with no command: the interactive catalog (see `InteractiveCommand`). Its
/// options are also accepted before any command name.
enum InteractiveMode {
    static let command = Command(
        name: "",
        summary: "Search and edit the catalog interactively.",
        positionals: .none,
        options: InteractiveCommand.options,
        details: "",
        run: InteractiveCommand.run)
}
