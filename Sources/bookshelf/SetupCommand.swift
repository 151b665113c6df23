import BookCatalog
import PostgresCatalog
import SQLiteCatalog

/// `bookshelf setup`: makes a catalog ready, idempotently. On PostgreSQL it creates or
/// migrates the schema, the group roles, the starter accounts (login roles) and sample
/// books, or, with `--account`, adds or updates that one account. On SQLite it creates the
/// starter catalog if it is missing, and adds or updates the `--account`.
enum SetupCommand {
    static let role = OptionSpec("role", value: "ROLE", help: "With --account: reader or editor (default: reader).")
    static let scope = OptionSpec("scope", value: "S", help: "With --account: the scope the account sees (default: main).")
    static let passwordStdin = OptionSpec(
        "password-stdin", help: "With --account on PostgreSQL: read the account's password from the first line of standard input.")
    static let account = OptionSpec("account", value: "NAME", help: "Add or update account NAME instead of the starter sample.")

    static let command = Command(
        name: "setup",
        summary: "Prepare a catalog (PostgreSQL: schema, roles, sample); add or update an account.",
        positionals: .none,
        options: [account, role, scope, passwordStdin, .db],
        details: """
            PostgreSQL: run it as the database's owner with a role that may create roles
            (CREATEROLE), for example --db postgresql://owner@db.example/books. Without
            --account it creates or migrates the schema, the group roles bookshelf_reader and
            bookshelf_editor, the accounts alice (editor) and bob (reader) in scope main and
            carol (editor) in scope north, and fills each scope that has no books yet with
            the sample. Running it again changes nothing but those accounts' role and scope.

            With --account NAME it makes sure the schema is in place and then creates or
            updates the login role NAME with --role and --scope; nothing else. NAME is a
            PostgreSQL role: letters, digits, _ . - @. The role gets a password only with
            --password-stdin (never from the command line):
              printf '%s\\n' "$SECRET" | bookshelf setup --db ... --account dave --password-stdin
            On a terminal, --password-stdin asks without echo. Whether signing in needs the
            password is the server's pg_hba.conf setting.

            SQLite: creates the catalog with the starter sample if it is missing; with
            --account, adds or updates that account (SQLite accounts have no passwords).

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let requested = try requestedAccount(arguments)
        switch try CatalogTarget.resolve(option: arguments.value("db"), environment: context.environment) {
        case let .sqlite(path):
            if arguments.isSet("password-stdin") {
                throw UsageError("--password-stdin applies to PostgreSQL only: SQLite accounts have no passwords")
            }
            let catalog = try CatalogOpener.open(path: path, console: context.console, creating: .starterIfMissing)
            guard let requested else {
                context.console.line("The catalog \(path.printable) is ready.")
                return .success
            }
            do {
                try catalog.addAccount(requested)
            } catch {
                throw CommandFailure(TerminalText.sanitized(error.description))
            }
            context.console.line(describe(requested) + " in \(path.printable).")
            return .success
        case let .postgres(connector):
            let password = try arguments.isSet("password-stdin") ? readPassword(for: requested) : nil
            let setup = try await PostgresSignIn.administrator(connector)
            do {
                if let requested {
                    try await setup.migrate()
                    try await setup.addAccount(requested, password: password)
                    context.console.line(describe(requested) + (password == nil ? "." : ", with a password."))
                } else {
                    let starter = SampleBooks.starter
                    var samples: [String: [NewBook]] = [:]
                    for shelf in starter.shelves { samples[shelf.scope, default: []] += shelf.books }
                    try await setup.prepare(accounts: starter.accounts, samples: samples)
                    let names = starter.accounts.map(\.name).joined(separator: ", ")
                    context.console.line("The catalog is ready: schema version \(try await setup.migrate()), accounts \(names).")
                }
            } catch {
                throw CommandFailure(PostgresSignIn.message(error))
            }
            return .success
        }
    }

    /// The `--account` to add, or nil; `--role`, `--scope` and `--password-stdin` need it.
    static func requestedAccount(_ arguments: ParsedArguments) throws(UsageError) -> Account? {
        guard let name = arguments.value("account") else {
            for option in ["role", "scope"] where arguments.value(option) != nil {
                throw UsageError("--\(option) applies only with --account")
            }
            if arguments.isSet("password-stdin") { throw UsageError("--password-stdin applies only with --account") }
            return nil
        }
        guard !name.isEmpty else { throw UsageError("--account needs a name: it is empty") }
        guard !BookValidation.hasControlCharacters(name) else {
            throw UsageError("--account needs a name without control characters")
        }
        let roleText = arguments.value("role") ?? "reader"
        guard let role = AccountRole(rawValue: roleText) else {
            throw UsageError("--role must be reader or editor, not \"\(roleText.printable)\"")
        }
        let scope = arguments.value("scope") ?? "main"
        guard !scope.isEmpty else { throw UsageError("--scope needs a name: it is empty") }
        guard !BookValidation.hasControlCharacters(scope) else {
            throw UsageError("--scope needs a name without control characters")
        }
        return Account(name: name, role: role, scope: scope)
    }

    private static func readPassword(for account: Account?) throws(CommandFailure) -> String {
        let name = account.map { $0.name.printable } ?? ""
        guard let password = TerminalPassword.fromStandardInput(prompt: "Password for account \(name): "),
              !password.isEmpty
        else { throw CommandFailure("--password-stdin: standard input held no password") }
        return password
    }

    private static func describe(_ account: Account) -> String {
        "Account \(account.name.printable) is \(account.role == .editor ? "an editor" : "a reader") in scope \(account.scope.printable)"
    }
}
