import BookCatalog
import CommandLineOptions
import SQLiteCatalog

/// `bookshelf completions SHELL`: a completion script for bash, zsh or fish, written from the
/// command table (as fzf and atuin print theirs). Account names are the catalog's: the script
/// asks `bookshelf __account-names` for them.
enum CompletionsCommand {
    static let command = Command(
        name: "completions",
        summary: "Print the shell completion script for bash, zsh or fish.",
        positionals: .one("SHELL", completes: .choices(CompletionScript.Shell.allCases.map(\.rawValue))),
        options: [],
        details: """
            The script completes commands, options, file paths (after --db and --trace, and
            for import), and account names after --account, read from the catalog of the
            --db on the line (else $\(CatalogLocation.environmentVariable) or the default catalog; SQLite catalogs
            only: completing never signs in to PostgreSQL). To use it:
              bash  add  source <(bookshelf completions bash)  to ~/.bashrc, or save the
                    script as ~/.local/share/bash-completion/completions/bookshelf
              zsh   add  source <(bookshelf completions zsh)  to ~/.zshrc after compinit,
                    or save the script as _bookshelf in a directory of $fpath
              fish  bookshelf completions fish > ~/.config/fish/completions/bookshelf.fish
            """,
        run: { context in
            let name = context.arguments.positionals[0]
            guard let shell = CompletionScript.Shell(rawValue: name) else {
                throw UsageError("SHELL must be bash, zsh or fish, not \"\(name.printable)\"")
            }
            context.console.line(String(script(shell).dropLast()))
            return .success
        })

    static func script(_ shell: CompletionScript.Shell) -> String {
        CompletionScript(
            program: Bookshelf.reference, listAccounts: [accountNames.name], catalogOption: CatalogOptions.db.spec.name
        )
        .render(shell)
    }

    /// The account names of an SQLite catalog, one per line, for the completion scripts. It
    /// never creates a catalog, and prints nothing for PostgreSQL: signing in could ask for a
    /// password in the middle of a Tab. A name a terminal could not show as written is left out.
    static let accountNames = Command(
        name: "__account-names",
        summary: "Print the catalog's account names (for the completion scripts).",
        positionals: .none,
        options: [CatalogOptions.db],
        details: "",
        hidden: true,
        run: { context in
            guard
                case let .sqlite(path) = try CatalogTarget.resolve(
                    option: context.arguments.value(CatalogOptions.db),
                    environment: context.environment)
            else { return .success }
            guard CatalogOpener.FileState(path) == .present else {
                throw CommandFailure(CatalogOpener.missingMessage(path))
            }
            let accounts: [Account]
            do {
                accounts = try SQLiteCatalog.open(path: path, create: false, busyTimeout: .milliseconds(500)).accounts()
            } catch {
                throw CommandFailure(TerminalText.sanitized(String(describing: error)))
            }
            for account in accounts
            where !BookValidation.hasControlCharacters(account.name) && !account.name.contains("\n") {
                context.console.line(account.name)
            }
            return .success
        })
}
