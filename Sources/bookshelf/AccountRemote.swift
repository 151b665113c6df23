import BookCatalog
import CommandLineOptions
import PostgresCatalog
import SQLiteCatalog

/// The store session of the account a command acts as (`--account`, or the default).
enum AccountRemote {
    /// On SQLite the named account, else the first by name; on PostgreSQL the connection's
    /// own user (or `--account` as the user).
    /// `primaryOnly`: for a command that reads what it is about to compare-and-set (`edit`),
    /// which `BOOKSHELF_READS` must not send to a standby. The remote serves one command, which
    /// then exits: an SQLite or Calibre index prepares nothing for later searches, and an SQLite
    /// catalog is opened once (`SQLiteCatalog.remoteForOneCommand`).
    static func open(
        _ arguments: ParsedArguments, environment: [String: String], console: Console,
        scope: String? = nil, primaryOnly: Bool = false
    ) async throws -> any SearchableBookRemote {
        var environment = environment
        if primaryOnly { environment[CatalogReads.environmentVariable] = nil }
        // A command that reads what it is about to save (`edit`) is refused at once while calibre
        // holds its lock, as calibredb refuses: the save could only be refused later.
        if primaryOnly, case .calibre = try CatalogTarget.resolve(arguments, environment: environment),
            CalibreLibraryStore.calibreIsHoldingItsLock() == true
        {
            throw CommandFailure(CalibreLibraryStore.calibreIsRunning)
        }
        switch try CatalogTarget.resolve(arguments, environment: environment) {
        case let .sqlite(path):
            let catalog = try CatalogOpener.open(path: path, console: console, creating: .never)
            let account = try chooseAccount(named: arguments.value(CatalogOptions.account), scope: scope, in: catalog)
            do {
                return try catalog.remoteForOneCommand(account: account.name)
            } catch {
                throw CommandFailure(TerminalText.sanitized(error.description))
            }
        case let .calibre(path):
            let remote: CalibreBookRemote
            do {
                let store = try CalibreLibraryStore.open(path: path)
                if let name = arguments.value(CatalogOptions.account), name != store.account.name {
                    throw CommandFailure(
                        "a Calibre library has one account, its owner \(store.account.name.printable), not \(name.printable)"
                    )
                }
                remote = try store.remote(
                    forOneCommand: true, stateFolder: StateFolder.path(environment: environment))
            } catch let failure as CalibreLibrary.Failure {
                throw CommandFailure(TerminalText.sanitized(failure.description))
            }
            return remote
        case let .postgres(connector):
            let remote = try await PostgresSignIn.remote(connector, account: arguments.value(CatalogOptions.account))
            if let scope, remote.account.scope != scope {
                throw CommandFailure(
                    "the account \(remote.account.name.printable) sees scope "
                        + "\(remote.account.scope.printable), not \(scope.printable)")
            }
            return remote
        }
    }

    /// With a scope and no account named, the first editor (by name) of that scope, else its
    /// first account: the default of `--account` within the scope.
    private static func chooseAccount(named name: String?, scope: String?, in catalog: SQLiteCatalog)
        throws(CommandFailure) -> Account
    {
        guard let scope else { return try CatalogOpener.account(named: name, in: catalog) }
        if name != nil {
            let account = try CatalogOpener.account(named: name, in: catalog)
            guard account.scope == scope else {
                throw CommandFailure(
                    "the account \(account.name.printable) sees scope \(account.scope.printable), not \(scope.printable)"
                )
            }
            return account
        }
        let accounts: [Account]
        do { accounts = try catalog.accounts() } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard
            let chosen = CatalogOpener.firstEditor(
                of: accounts.sorted(by: { $0.name < $1.name }).filter { $0.scope == scope })
        else {
            throw CommandFailure("no account sees scope \(scope.printable)")
        }
        return chosen
    }
}

extension ParsedArguments {
    /// A book id given as the one positional argument.
    func bookID() throws(UsageError) -> Int {
        guard let text = positionals.first, let id = Int(text), id > 0 else {
            throw UsageError("ID must be a positive whole number, got \"\((positionals.first ?? "").printable)\"")
        }
        return id
    }
}
