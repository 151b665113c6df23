/// `bookshelf` with no command: the interactive catalog. Its options are also accepted before
/// any command name. The terminal UI is not built yet; until it is, this says so.
enum InteractiveMode {
    static let command = Command(
        name: "",
        summary: "Search and edit the catalog interactively.",
        positionals: .none,
        options: [.db, .account],
        details: "",
        run: { context in
            context.console.line(Bookshelf.help)
            context.console.note("bookshelf: the interactive catalog is not built yet; use one of the commands above.")
            return .usage
        })
}
