import CommandLineOptions
import Foundation
import BookCatalog
import PostgresCatalog
import SQLiteCatalog

/// `bookshelf setup`: makes a catalog ready, idempotently. On PostgreSQL it creates or
/// migrates the schema, the group roles, the starter accounts (login roles) and sample
/// books, or, with `--account`, adds or updates that one account. On SQLite it creates the
/// starter catalog if it is missing, and adds or updates the `--account`.
enum SetupCommand {
    static let role = Option<String>(
        "role", value: "ROLE", completes: .choices(["reader", "editor"]),
        help: "With --account: reader or editor (new account: reader; else kept).")
    static let scope = Option<String>(
        "scope", value: "S", help: "With --account: the scope the account sees (new account: main; else kept).")
    static let passwordStdin = Flag(
        "password-stdin",
        help: "With --account on PostgreSQL: read the account's password from the first line of standard input.")
    static let removeAccount = Option<String>(
        "remove-account", value: "NAME", completes: .accounts,
        help: "On PostgreSQL: remove account NAME (its login role too) instead.")
    static let account = Option<String>(
        "account", value: "NAME", completes: .accounts,
        help: "Add or update account NAME instead of the starter sample.")
    static let check = Flag(
        "check",
        help:
            "On PostgreSQL: report the replication set-up (each host's role, its standbys and their lag, synchronous or not) and whether acknowledged saves can be lost on failover; change nothing."
    )

    static let command = Command(
        name: "setup",
        summary: "Prepare a catalog (PostgreSQL: schema, roles, sample); add or update an account.",
        positionals: .none,
        options: [account, role, scope, passwordStdin, removeAccount, check, CatalogOptions.db],
        details: """
            PostgreSQL: run it as the database's owner with a role that may create roles
            (CREATEROLE), for example --db postgresql://owner@db.example/books. Without
            --account it creates or migrates the schema, the catalog's own group roles
            (bookshelf_DATABASE_reader, _editor), the accounts alice (editor) and bob
            (reader) in scope main and carol (editor) in scope north, and fills each scope
            that has no books yet with the sample. The starter accounts have no passwords
            (give one with --account NAME --password-stdin). They are made only while the
            catalog has no accounts: running it again changes no account.

            With --account NAME it makes sure the schema is in place and then creates or
            updates the login role NAME; an existing account keeps its role and scope unless
            --role or --scope is given (a new one: reader, main). It says what it changed.
            NAME is a PostgreSQL role: letters, digits, _ . - @. The role gets a password only with
            --password-stdin (never from the command line):
              printf '%s\\n' "$SECRET" | bookshelf setup --db ... --account dave --password-stdin
            On a terminal, --password-stdin asks without echo, twice. Whether signing in needs the
            password is the server's pg_hba.conf setting.

            --remove-account NAME removes this catalog's account NAME and drops its login
            role, unless the role is an account of another catalog on the server; the books'
            history keeps the name. It also removes an account whose role was dropped by hand.

            --check asks each host of the connection string what it is, changing nothing: a
            primary (its synchronous_commit and synchronous_standby_names, and each standby it
            streams to, with its state, sync_state and replay lag) or a standby, and ends with a
            verdict: "acknowledged saves can be lost on failover" (asynchronous replication) or
            "no acknowledged save can be lost" (synchronous_commit on or remote_apply with a
            synchronous standby). Standbys' states need a role with pg_read_all_stats. A single
            server without standbys is one line. Passwords come from libpq (PGPASSWORD, ~/.pgpass).

            SQLite: creates the catalog with the starter sample if it is missing; with
            --account, adds or updates that account (SQLite accounts have no passwords).

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let requested = try requestedAccount(arguments)
        if arguments.isSet(check) {
            guard requested == nil, !arguments.isGiven(removeAccount) else {
                throw UsageError("--check goes alone: it changes nothing")
            }
        }
        switch try CatalogTarget.resolve(option: arguments.value(CatalogOptions.db), environment: context.environment) {
        case .calibre:
            throw UsageError("a Calibre library needs no setup: it opens as it is with --db (see docs/calibre.md)")
        case let .sqlite(path):
            if arguments.isGiven(removeAccount) {
                throw UsageError("--remove-account applies to PostgreSQL only")
            }
            if arguments.isSet(passwordStdin) {
                throw UsageError("--password-stdin applies to PostgreSQL only: SQLite accounts have no passwords")
            }
            if arguments.isSet(check) {
                throw UsageError("--check applies to PostgreSQL only: an SQLite catalog has no replicas")
            }
            let catalog = try CatalogOpener.open(path: path, console: context.console, creating: .starterIfMissing)
            guard let requested else {
                context.console.line("The catalog \(path.printable) is ready.")
                return .success
            }
            do {
                try catalog.addAccount(requested.withDefaults)
            } catch {
                throw CommandFailure(TerminalText.sanitized(error.description))
            }
            context.console.line(describe(requested.withDefaults) + " in \(path.printable).")
            return .success
        case let .postgres(connector):
            if arguments.isSet(check) {
                return try await ReplicationCheckReport.print(connector, on: context.console)
            }
            if let removed = arguments.value(removeAccount) {
                guard requested == nil else { throw UsageError("--remove-account and --account go separately") }
                let setup = try await PostgresSignIn.administrator(connector)
                let removal: AccountRemoval
                do {
                    removal = try await setup.removeAccount(named: removed)
                } catch {
                    throw CommandFailure(PostgresSignIn.message(error) + ownerHint(error))
                }
                let role =
                    switch removal {
                    case .droppedRole: " and its login role."
                    case .keptRoleForAnotherCatalog:
                        "; its login role stays, as an account of another catalog on this server."
                    case .roleAlreadyGone: " (its login role was already gone)."
                    }
                context.console.line("Removed account \(removed.printable)" + role)
                return .success
            }
            let password = try arguments.isSet(passwordStdin) ? readPassword(for: requested) : nil
            let setup = try await PostgresSignIn.administrator(connector)
            do {
                if let requested {
                    try await setup.migrate()
                    let change = try await setup.setAccount(
                        named: requested.name, role: requested.role,
                        scope: requested.scope, password: password)
                    context.console.line(describe(change))
                } else {
                    let starter = SampleBooks.starter
                    var samples: [String: [NewBook]] = [:]
                    for shelf in starter.shelves { samples[shelf.scope, default: []] += shelf.books }
                    let added = try await setup.prepare(accounts: starter.accounts, samples: samples)
                    let version = try await setup.migrate()
                    if added.isEmpty {
                        context.console.line(
                            "The catalog is ready: schema version \(version); its accounts are left as they were.")
                    } else {
                        context.console.line(
                            "The catalog is ready: schema version \(version), " + starters(added) + ".")
                    }
                }
            } catch {
                throw CommandFailure(PostgresSignIn.message(error) + ownerHint(error))
            }
            return .success
        }
    }

    /// The starter accounts made, and which have no password: a login role already on the
    /// server (another catalog's account) keeps the one it had.
    static func starters(_ added: [AccountChange]) -> String {
        func names(_ changes: [AccountChange]) -> String {
            changes.map { $0.account.name.printable }.joined(separator: ", ")
        }
        let fresh = added.filter { !$0.roleExisted }, existing = added.filter(\.roleExisted)
        let giving = "give one with --account NAME --password-stdin"
        let note =
            if existing.isEmpty {
                "they have no passwords: " + giving
            } else if fresh.isEmpty {
                "login roles already on this server, which keep their passwords"
            } else {
                "without passwords: \(names(fresh)), \(giving); login roles already on this server, "
                    + "which keep their passwords: \(names(existing))"
            }
        return "accounts \(names(added)) (\(note))"
    }

    /// A refusal of the server's (not of setup's own checks) most often means setup ran as
    /// someone other than the owner: say who should run it.
    static func ownerHint(_ error: any Error) -> String {
        guard case let BookFailure.storeUnavailable(reason) = error,
            reason.contains("permission denied") || reason.contains("must be owner")
        else { return "" }
        return " (run setup as the database's owner, a role with CREATEROLE: --db postgresql://owner@host/books)"
    }

    /// The `--account` to add or update. A role or scope not given keeps an existing
    /// account's own (PostgreSQL) or is reader and main.
    struct AccountRequest {
        let name: String
        let role: AccountRole?
        let scope: String?

        var withDefaults: Account { Account(name: name, role: role ?? .reader, scope: scope ?? "main") }
    }

    /// The `--account` to add, or nil; `--role`, `--scope` and `--password-stdin` need it.
    static func requestedAccount(_ arguments: ParsedArguments) throws(UsageError) -> AccountRequest? {
        guard let name = arguments.value(account) else {
            for option in [role, scope] where arguments.isGiven(option) {
                throw UsageError("--\(option.spec.name) applies only with --account")
            }
            if arguments.isSet(passwordStdin) { throw UsageError("--password-stdin applies only with --account") }
            return nil
        }
        guard !name.isEmpty else { throw UsageError("--account needs a name: it is empty") }
        guard !BookValidation.hasControlCharacters(name) else {
            throw UsageError("--account needs a name without control characters")
        }
        var role: AccountRole?
        if let roleText = arguments.value(Self.role) {
            guard let given = AccountRole(rawValue: roleText) else {
                throw UsageError("--role must be reader or editor, not \"\(roleText.printable)\"")
            }
            role = given
        }
        let scope = arguments.value(Self.scope)
        if let scope {
            guard !scope.isEmpty else { throw UsageError("--scope needs a name: it is empty") }
            guard !BookValidation.hasControlCharacters(scope) else {
                throw UsageError("--scope needs a name without control characters")
            }
        }
        return AccountRequest(name: name, role: role, scope: scope)
    }

    private static func readPassword(for account: AccountRequest?) throws(CommandFailure) -> String {
        let name = account.map { $0.name.printable } ?? ""
        guard let password = TerminalPassword.fromStandardInput(prompt: "Password for account \(name): "),
            !password.isEmpty
        else { throw CommandFailure("--password-stdin: standard input held no password") }
        // On a terminal a typing slip would go unseen (no echo): ask again, as passwd does.
        if isatty(STDIN_FILENO) == 1 {
            let again = TerminalPassword.fromStandardInput(prompt: "Again, to confirm: ")
            guard again == password else { throw CommandFailure("The two passwords differ; nothing was changed.") }
        }
        return password
    }

    /// What setup did, and only that: a new account, or which of its settings changed.
    private static func describe(_ change: AccountChange) -> String {
        let standing = describe(change.account)
        let password = change.setPassword ? ", with a password" : ""
        guard let before = change.before else { return "Added: " + standing + password + "." }
        var changed: [String] = []
        if change.changedRole { changed.append("was " + (before.role == .editor ? "an editor" : "a reader")) }
        if change.changedScope { changed.append("was in scope " + before.scope.printable) }
        if change.setPassword { changed.append("password set") }
        guard !changed.isEmpty else { return standing + "; nothing changed." }
        return standing + " (" + changed.joined(separator: "; ") + ")."
    }

    private static func describe(_ account: Account) -> String {
        "Account \(account.name.printable) is \(account.role == .editor ? "an editor" : "a reader") in scope \(account.scope.printable)"
    }
}
