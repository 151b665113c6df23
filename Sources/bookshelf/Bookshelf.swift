import BookCatalog
import CommandLineOptions
import TerminalSafeText

/// The program: reads the options before the command name, picks the command from the table,
/// parses the rest against that command's options, and runs it. Without a command name it
/// runs the interactive mode. New subcommands go in `commands`; nothing else changes.
enum Bookshelf {
    static let versionNumber = "0.1.0"

    static let commands: [Command] = [
        SearchCommand.command,
        HistoryCommand.command,
        EditCommand.command,
        UndoCommand.command,
        ExportCommand.command,
        ImportCommand.command,
        SampleCommand.command,
        SetupCommand.command,
        CheckCommand.command,
        CompletionsCommand.command,
        helpCommand,
        CompletionsCommand.accountNames,
    ]

    /// Options accepted before the command name (and by the interactive mode). Values given
    /// there apply to the command as if written after it.
    static let version = Flag("version", help: "Print the version and exit.")
    static let programOptions: [any OptionDeclaration] = InteractiveMode.command.options + [Flag.help, version]

    /// `message` ended as a sentence: a usage message is a fragment ("--count N is required"),
    /// a store's is already a sentence, and neither should end in "..".
    static func sentence(_ message: String) -> String {
        message.hasSuffix(".") ? message : message + "."
    }

    static func main(arguments: [String], standardOutputWasClosed: Bool = false, environment: [String: String]) async
        -> Int32
    {
        let console = Console(standardOutputWasClosed: standardOutputWasClosed)
        let status = await run(arguments, environment: environment, console: console)
        console.flush()
        // Results that could not be written are not a success, nor "nothing matched".
        return console.outputFailed ? ExitStatus.failure.rawValue : status.rawValue
    }

    static func run(_ arguments: [String], environment: [String: String], console: Console) async -> ExitStatus {
        let leading: ParsedArguments
        let rest: [String]
        do {
            (leading, rest) = try ArgumentParser(options: programOptions).parse(arguments, stopAtPositional: true)
        } catch {
            console.note("bookshelf: \(Self.sentence(error.message)) See 'bookshelf --help'.")
            return .usage
        }
        if leading.isSet(version) {
            console.line("bookshelf \(versionNumber)")
            return .success
        }
        guard let name = rest.first else {
            if leading.isSet(.help) {
                console.line(help)
                return .success
            }
            return await execute(
                InteractiveMode.command, arguments: leading, environment: environment, console: console)
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            console.note("bookshelf: unknown command \"\(name.printable)\". See 'bookshelf --help'.")
            return .usage
        }
        console.speaker = "bookshelf \(command.name)"
        let parsed: ParsedArguments
        do {
            let (own, _) = try ArgumentParser(options: command.allOptions).parse(Array(rest.dropFirst()))
            parsed = try own.filling(from: leading, acceptedBy: command)
            if !parsed.isSet(.help) { try command.positionals.check(parsed.positionals) }
        } catch {
            console.note(
                "bookshelf \(command.name): \(Self.sentence(error.message)) See 'bookshelf \(command.name) --help'.")
            return .usage
        }
        if parsed.isSet(.help) {
            console.line(command.help)
            return .success
        }
        return await execute(command, arguments: parsed, environment: environment, console: console)
    }

    private static func execute(
        _ command: Command, arguments: ParsedArguments, environment: [String: String], console: Console
    ) async -> ExitStatus {
        let prefix = command.name.isEmpty ? "bookshelf" : "bookshelf \(command.name)"
        do {
            return try await command.run(
                CommandContext(arguments: arguments, environment: environment, console: console))
        } catch let error as UsageError {
            console.note("\(prefix): \(Self.sentence(error.message)) See '\(prefix) --help'.")
            return .usage
        } catch let error as CommandFailure {
            console.note("\(prefix): \(error.message)")
            return .failure
        } catch {
            console.note("\(prefix): \(TerminalText.sanitized(String(describing: error)))")
            return .failure
        }
    }

    static var help: String { HelpText.program(reference) }

    /// The program as its help, man page, docs/cli.md and completions describe it.
    static var reference: ProgramReference {
        ProgramReference(
            name: "bookshelf", version: versionNumber, summary: "search and edit a book catalog from the terminal",
            usages: [
                .init(
                    "bookshelf [--db PATH] [--reads WHERE] [--account NAME] [--latency SPEC [--seed N]] [--trace FILE]",
                    "open the interactive catalog"),
                .init("bookshelf --db postgresql://alice@host/books", "the same on a PostgreSQL catalog"),
                .init("bookshelf COMMAND [options]", "run one command; bookshelf COMMAND --help"),
            ],
            commands: commands.filter { !$0.hidden }.map(\.reference),
            options: programOptions,
            sections: [
                .init(
                    """
                    \(CatalogTarget.explanation)
                    \(starterExplanation) A PostgreSQL database gets the same from
                    'bookshelf setup --db postgresql://OWNER@HOST/DB', run as the database's owner; then
                    each person signs in as their own account (a PostgreSQL role), and the server
                    decides which books each account sees and may edit. When the server wants a
                    password that neither PGPASSWORD nor ~/.pgpass has, bookshelf asks for it.
                    \(CatalogReads.explanation)
                    """),
                .init(
                    title: "Files",
                    """
                    An unsaved draft of the interactive catalog is kept in
                    $XDG_STATE_HOME/bookshelf/drafts/ (else ~/.local/state/bookshelf/drafts/) a moment
                    after typing pauses, and at once when the terminal closes or the app is told to end;
                    the next start as that account asks whether to restore it. Saving or discarding the
                    draft removes its file.
                    """),
                .init(
                    title: "Exit status",
                    """
                    0 success; 1 no match (search) or bad lines (import); 2 usage error;
                    3 the catalog or a file could not be used, or the account may not do that;
                    4 edit conflict (someone else saved first).
                    """),
            ])
    }

    /// Which commands create a missing SQLite catalog, and what is in it (counted from the
    /// sample itself, so the help cannot drift from it).
    static var starterExplanation: String {
        let shelves = SampleBooks.starter.shelves
        let main = shelves.first { $0.scope == "main" }?.count ?? 0
        let north = shelves.first { $0.scope == "north" }?.count ?? 0
        return """
            'bookshelf setup' and 'bookshelf sample' create a missing SQLite catalog, and so does
            the interactive catalog at the default location (never at a --db PATH or
            $\(CatalogLocation.environmentVariable) you named: a mistyped path is an error). It
            holds \(NumberText.grouped(main)) sample books and the accounts alice (editor) and bob
            (reader) in scope main, and \(NumberText.grouped(north)) books and carol (editor) in
            scope north.
            """
    }

    static let markdown = Flag("markdown", help: "Print the whole reference as Markdown (docs/cli.md).")
    static let manPage = Flag("man", help: "Print the manual page, bookshelf(1), in roff.")

    /// How the committed docs/cli.md and man page are made, said in each of them.
    static let regenerateMarkdown = "swift run bookshelf help --markdown > docs/cli.md"
    static let regenerateManPage = "swift run bookshelf help --man > docs/man/bookshelf.1"

    static var markdownReference: String { MarkdownReference.render(reference, regenerate: regenerateMarkdown) }
    static var manualPage: String { ManPage.render(reference, regenerate: regenerateManPage) }

    static let helpCommand = Command(
        name: "help",
        summary: "Show help for the program or for one command.",
        positionals: .optional("COMMAND", completes: .commands),
        options: [markdown, manPage],
        details: "",
        run: { context in
            let arguments = context.arguments
            if arguments.isSet(markdown) || arguments.isSet(manPage) {
                guard !(arguments.isSet(markdown) && arguments.isSet(manPage)), arguments.positionals.isEmpty else {
                    throw UsageError("--markdown and --man print the whole reference: give one, without a COMMAND")
                }
                // Both end in a line break of their own.
                context.console.line(String((arguments.isSet(markdown) ? markdownReference : manualPage).dropLast()))
                return .success
            }
            guard let name = context.arguments.positionals.first else {
                context.console.line(help)
                return .success
            }
            guard let command = commands.first(where: { $0.name == name && !$0.hidden }) else {
                throw UsageError("unknown command \"\(name.printable)\"")
            }
            context.console.line(command.help)
            return .success
        })
}

extension ParsedArguments {
    /// `self` with options given before the command name filled in, refusing those the
    /// command does not take (`bookshelf --account bob import ...`).
    func filling(from leading: ParsedArguments, acceptedBy command: Command) throws(UsageError) -> ParsedArguments {
        let known = Set(command.allOptions.map(\.spec.name))
        for name in leading.givenNames.sorted() where !known.contains(name) {
            throw UsageError("--\(name) does not apply to this command")
        }
        return filling(from: leading)
    }
}
