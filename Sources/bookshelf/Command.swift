/// How a run ends. Scripts can rely on these.
enum ExitStatus: Int32 {
    case success = 0
    /// A search matched nothing, or an import file had bad lines (and nothing was imported).
    case nothingDone = 1
    /// The command line was wrong.
    case usage = 2
    /// The catalog or a file could not be used, or the account may not do this (a reader
    /// editing, a book of another scope).
    case failure = 3
    /// `edit`: someone else saved the book first; nothing was saved.
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

/// Which positional arguments a command takes.
enum Positionals: Sendable {
    case none
    /// Exactly one, named in help (`FILE`).
    case one(String)
    /// None or one (`help [COMMAND]`).
    case optional(String)
    /// One or more, joined by spaces (`QUERY`): `search history rome` needs no quotes.
    case words(String)

    func check(_ given: [String]) throws(UsageError) {
        switch self {
        case .none where !given.isEmpty:
            throw UsageError("unexpected argument \"\(given[0].printable)\"")
        case let .one(name) where given.count != 1:
            throw UsageError(given.isEmpty ? "\(name) is missing" : "expected one \(name), got \(given.count)")
        case let .optional(name) where given.count > 1:
            throw UsageError("expected at most one \(name), got \(given.count)")
        case let .words(name) where given.isEmpty:
            throw UsageError("\(name) is missing")
        default:
            break
        }
    }

    var synopsis: String {
        switch self {
        case .none: ""
        case let .one(name): " \(name)"
        case let .optional(name): " [\(name)]"
        case let .words(name): " \(name)"
        }
    }
}

/// One subcommand: its grammar, its help, and what it does. Adding a subcommand is adding
/// one of these to `Bookshelf.commands`.
struct Command: Sendable {
    let name: String
    /// One line for the program's command list.
    let summary: String
    let positionals: Positionals
    /// Options other than --help, which every command has.
    let options: [OptionSpec]
    /// Paragraphs after the option list: formats, defaults, exit status.
    let details: String
    let run: @Sendable (CommandContext) async throws -> ExitStatus

    var allOptions: [OptionSpec] { options + [.help] }

    var usage: String {
        "bookshelf \(name)\(positionals.synopsis)" + (options.isEmpty ? "" : " [options]")
    }

    var help: String {
        var text = "Usage: \(usage)\n\n\(summary)\n\nOptions:\n"
        text += HelpFormat.optionList(allOptions)
        if !details.isEmpty { text += "\n\(details)\n" }
        return text
    }
}

enum HelpFormat {
    /// Aligned `  --name VALUE   help` lines.
    static func optionList(_ options: [OptionSpec]) -> String {
        let width = options.map(\.synopsis.count).max() ?? 0
        return options.map { option in
            "  " + option.synopsis.padding(to: width) + "   " + option.help + "\n"
        }.joined()
    }
}

extension String {
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}

/// Options shared by the commands that use a catalog.
extension OptionSpec {
    static let db = OptionSpec(
        "db", value: "PATH", help: "The catalog: an SQLite file, or a PostgreSQL URL or keyword string (see below).")
    static let account = OptionSpec("account", value: "NAME", help: "Act as account NAME (default: the first account by name).")
    static let scope = OptionSpec("scope", value: "S", help: "Add the books to scope S (default: main).")
}
