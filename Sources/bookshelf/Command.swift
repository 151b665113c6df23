import CommandLineOptions

/// How a run ends. Scripts can rely on these.
enum ExitStatus: Int32 {
    case success = 0
    /// A search matched nothing, an import file had bad lines (and nothing was imported), or a
    /// book of a bulk edit or undo failed.
    case nothingDone = 1
    /// The command line was wrong.
    case usage = 2
    /// The catalog or a file could not be used, or the account may not do this (a reader
    /// editing, a book of another scope).
    case failure = 3
    /// `edit`: someone else saved the book first; nothing was saved. A bulk edit or undo: some
    /// book conflicted.
    case conflict = 4
}

/// A failure at run time (the catalog cannot be opened, a file cannot be read), in one
/// line a user can act on. Exit status 3.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// What a command runs with: its parsed arguments, the environment and the output streams.
struct CommandContext {
    let arguments: ParsedArguments
    let environment: [String: String]
    let console: Console
}

/// One subcommand: its grammar, its help, and what it does. Adding a subcommand is adding
/// one of these to `Bookshelf.commands`.
struct Command: Sendable {
    let name: String
    /// One line for the program's command list.
    let summary: String
    let positionals: Positionals
    /// Options other than --help, which every command has.
    let options: [any OptionDeclaration]
    /// Paragraphs after the option list: formats, defaults, exit status.
    let details: String
    /// Run by the completion scripts, not by people: left out of the help, the man page,
    /// docs/cli.md and the completions themselves.
    var hidden = false
    let run: @Sendable (CommandContext) async throws -> ExitStatus

    var allOptions: [any OptionDeclaration] { options + [Flag.help] }

    /// What the help, the man page, docs/cli.md and the completions say about the command.
    var reference: CommandReference {
        CommandReference(name: name, summary: summary, positionals: positionals, options: allOptions, details: details)
    }

    var help: String { HelpText.command(reference, in: Bookshelf.reference) }
}

/// Options shared by the commands that use a catalog.
enum CatalogOptions {
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: "The catalog: an SQLite file, or a PostgreSQL URL or keyword string (see below).")
    /// The one description of `--account`'s default, for the app and every command alike
    /// (`CatalogOpener.account` on SQLite; the connection's user on PostgreSQL).
    static let account = Option<String>(
        "account", value: "NAME", completes: .accounts,
        help: "Act as account NAME (default: SQLite, the first editor by name, else the first account; "
            + "PostgreSQL, the connection's user).")
    static let scope = Option<String>("scope", value: "S", help: "Add the books to scope S (default: main).")
}
