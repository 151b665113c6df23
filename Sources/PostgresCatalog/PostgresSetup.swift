import BookCatalog
import Foundation

/// Prepares a PostgreSQL database for Bookshelf, idempotently: the schema (migrated to the
/// latest version), the group roles, accounts (login roles), and books. Run it as the
/// database's owner, a role that may also create roles (CREATEROLE) — never as an account.
///
/// Holds one administrative connection for its lifetime; a password given to `connect` is
/// used for that handshake only.
public actor PostgresSetup {
    private nonisolated let worker: PostgresWorker
    private nonisolated let box: ConnectionBox

    /// The one administrative connection, touched only on the worker's queue.
    private final class ConnectionBox: @unchecked Sendable {
        let connection: PostgresConnection
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    private init(worker: PostgresWorker, box: ConnectionBox) {
        self.worker = worker
        self.box = box
    }

    public static func connect(_ connector: PostgresConnector, password: String? = nil) async throws -> PostgresSetup {
        // Administration may run long (imports, index builds): no short statement deadline.
        var administrative = connector
        administrative.statementTimeout = .seconds(6 * 3600)
        let worker = PostgresWorker(label: "bookshelf.postgres.setup")
        let settings = administrative
        let box = try await worker.perform {
            ConnectionBox(try PostgresConnection(settings, password: password))
        }
        return PostgresSetup(worker: worker, box: box)
    }

    /// The whole of `bookshelf setup`: migrate, then make sure every account exists as
    /// given, then give each scope that has no books yet its sample.
    @discardableResult
    public func prepare(accounts: [Account], samples: [String: [NewBook]]) async throws -> [AccountChange] {
        _ = try await migrate()
        // Made once, into a catalog with no accounts: a re-run must not re-create an account
        // an administrator removed, nor undo a promotion or a demotion.
        var changes: [AccountChange] = []
        let held = try await execute("SELECT EXISTS (SELECT 1 FROM bookshelf.accounts)")
        if held.first?[0] == "f" {
            for account in accounts { changes.append(try await addAccount(account)) }
        }
        for (scope, books) in samples.sorted(by: { $0.key < $1.key }) {
            _ = try await loadSample(books, scope: scope)
        }
        return changes
    }

    /// Creates a database on this server unless it exists (connect to `postgres` for this).
    /// The name is quoted by libpq; CREATE DATABASE cannot take a bound parameter.
    public func createDatabase(named name: String) async throws {
        let box = self.box
        try await worker.perform {
            let connection = box.connection
            let found = try run(connection.execute("SELECT 1 FROM pg_database WHERE datname = $1", [name]))
            guard found.isEmpty else { return }
            try run(connection.executeQuoted("CREATE DATABASE " + connection.quotedIdentifier(name)))
        }
    }

    /// Creates or migrates the schema and returns the version now in place. Concurrent
    /// setups wait for each other on an advisory lock.
    @discardableResult
    public func migrate() async throws -> Int {
        try await migrate(upTo: PostgresSchema.latestVersion)
    }

    /// Migrates no further than `target` (tests make catalogs as an older version left them).
    @discardableResult
    func migrate(upTo target: Int) async throws -> Int {
        let box = self.box
        return try await worker.perform {
            let (reached, applied) = try box.connection.inTransaction { connection in
                try run(connection.execute("SELECT pg_advisory_xact_lock(hashtext('bookshelf.schema'))"))
                try run(
                    connection.executeScript(
                        """
                        CREATE SCHEMA IF NOT EXISTS bookshelf;
                        CREATE TABLE IF NOT EXISTS bookshelf.schema_version (version integer NOT NULL);
                        """))
                let rows = try run(connection.execute("SELECT coalesce(max(version), 0) FROM bookshelf.schema_version"))
                guard let text = rows.rows.first?[0], let current = Int(text) else { throw BookFailure.invalidResponse }
                guard current <= PostgresSchema.latestVersion else {
                    throw BookFailure.storeUnavailable(
                        "the catalog's schema (version \(current)) is newer than this Bookshelf")
                }
                for version in (current + 1)..<(max(current, target) + 1) {
                    if PostgresSchema.refoldingVersions.contains(version) {
                        try run(connection.execute("DELETE FROM bookshelf.folding"))
                        try run(
                            connection.copyIn(
                                "COPY bookshelf.folding (code, kind, folded, folded_alone) FROM STDIN",
                                lines: SearchFolding.copyRows))
                    }
                    try run(connection.executeQuoted(PostgresSchema.migration(to: version).sql))
                    if PostgresSchema.foldingLoadedAfter.contains(version) {
                        try run(
                            connection.copyIn(
                                "COPY bookshelf.folding (code, kind, folded, folded_alone) FROM STDIN",
                                lines: SearchFolding.copyRows))
                    }
                    try run(connection.execute("DELETE FROM bookshelf.schema_version"))
                    try run(
                        connection.execute(
                            "INSERT INTO bookshelf.schema_version (version) VALUES ($1)", [String(version)]))
                }
                return (max(current, target), (current + 1)..<(max(current, target) + 1))
            }
            // A statistics target set in a transaction is not seen by an ANALYZE in that same
            // transaction, so the statistics it asks for come after.
            if !PostgresSchema.analyzedAfterCommit.isDisjoint(with: applied) {
                try run(box.connection.executeScript("ANALYZE bookshelf.books"))
            }
            return reached
        }
    }

    /// Creates the account's login role (or updates it), puts it in the reader or editor
    /// group, and records its scope. A password, if given, is stored hashed by libpq.
    @discardableResult
    public func addAccount(_ account: Account, password: String? = nil) async throws -> AccountChange {
        try await setAccount(named: account.name, role: account.role, scope: account.scope, password: password)
    }

    /// Creates or updates one account. A role or scope left nil keeps the account's own
    /// (reader in main for a new one): giving an account a password must not move it.
    @discardableResult
    public func setAccount(
        named name: String, role: AccountRole?, scope: String?,
        password: String? = nil
    ) async throws -> AccountChange {
        let box = self.box
        return try await worker.perform {
            try box.connection.inTransaction { connection in
                let stored = try run(
                    connection.execute(
                        "SELECT role, scope FROM bookshelf.accounts WHERE name = $1", [name])
                ).rows.first
                let before = stored.flatMap { row -> Account? in
                    guard let role = row[0].flatMap(AccountRole.init(rawValue:)), let scope = row[1] else { return nil }
                    return Account(name: name, role: role, scope: scope)
                }
                let account = Account(
                    name: name, role: role ?? before?.role ?? .reader,
                    scope: scope ?? before?.scope ?? "main")
                try PostgresSetup.check(account)
                let quoted = try connection.quotedIdentifier(name)
                let existing = try run(connection.execute(PostgresSetup.roleStanding, [name]))
                if let standing = existing.rows.first {
                    // Such roles would bypass row-level security: refuse to make them accounts.
                    guard standing[0] == "f" else { throw PostgresSetupFailure.privilegedRole(name) }
                    guard standing[1] == "f" else { throw PostgresSetupFailure.ownsCatalog(name) }
                    // Possibly another catalog's account too: its groups there are its own.
                    try run(connection.executeQuoted("ALTER ROLE \(quoted) LOGIN"))
                } else {
                    try run(connection.executeQuoted("CREATE ROLE \(quoted) LOGIN"))
                }
                let groups = try PostgresSetup.groups(connection)
                let (granted, revoked) =
                    account.role == .editor ? (groups.editor, groups.reader) : (groups.reader, groups.editor)
                try run(connection.executeQuoted("GRANT \(granted) TO \(quoted)"))
                try run(connection.executeQuoted("REVOKE \(revoked) FROM \(quoted)"))
                let setsPassword = password.map { !$0.isEmpty } ?? false
                if let password, setsPassword {
                    let hashed = try connection.quotedLiteral(connection.encryptedPassword(password, user: name))
                    try run(connection.executeQuoted("ALTER ROLE \(quoted) PASSWORD \(hashed)"))
                }
                try run(
                    connection.execute(
                        """
                        INSERT INTO bookshelf.accounts (name, role, scope) VALUES ($1, $2, $3)
                        ON CONFLICT (name) DO UPDATE SET role = excluded.role, scope = excluded.scope
                        """, [account.name, account.role.rawValue, account.scope]))
                return AccountChange(
                    account: account, before: before, setPassword: setsPassword,
                    roleExisted: !existing.rows.isEmpty)
            }
        }
    }

    /// Removes an account of this catalog: its row, its membership in this catalog's groups,
    /// and its login role, unless the role is in another catalog's group on this server (an
    /// account there, which must keep signing in). Says what became of the login role.
    /// The history keeps the name. Only this catalog's accounts: another role of the server
    /// is not setup's to drop.
    @discardableResult
    public func removeAccount(named name: String) async throws -> AccountRemoval {
        let box = self.box
        return try await worker.perform {
            try box.connection.inTransaction { connection in
                let found = try run(connection.execute("SELECT 1 FROM bookshelf.accounts WHERE name = $1", [name]))
                guard !found.isEmpty else { throw PostgresSetupFailure.noSuchAccount(name) }
                try run(connection.execute("DELETE FROM bookshelf.accounts WHERE name = $1", [name]))
                let quoted = try connection.quotedIdentifier(name)
                let exists = try run(connection.execute("SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = $1", [name]))
                guard !exists.isEmpty else { return .roleAlreadyGone }
                let groups = try PostgresSetup.groups(connection)
                try run(connection.executeQuoted("REVOKE \(groups.reader), \(groups.editor) FROM \(quoted)"))
                let elsewhere = try run(connection.execute(PostgresSetup.otherCatalogGroups, [name]))
                guard elsewhere.rows.first?[0] == "f" else { return .keptRoleForAnotherCatalog }
                try run(connection.executeQuoted("DROP ROLE " + quoted))
                return .droppedRole
            }
        }
    }

    /// This catalog's group roles, quoted for SQL: since schema version 8 its own; before, the
    /// server-wide ones (setup always migrates first; tests build catalogs as older versions
    /// left them).
    private static func groups(_ connection: PostgresConnection) throws -> (reader: String, editor: String) {
        let own = try run(connection.execute("SELECT to_regclass('bookshelf.groups') IS NOT NULL"))
        guard own.rows.first?[0] == "t" else { return ("bookshelf_reader", "bookshelf_editor") }
        let rows = try run(connection.execute("SELECT role, name FROM bookshelf.groups"))
        var names: [String: String] = [:]
        for row in rows.rows { if let role = row[0], let name = row[1] { names[role] = name } }
        guard let reader = names["reader"], let editor = names["editor"] else { throw BookFailure.invalidResponse }
        return (try connection.quotedIdentifier(reader), try connection.quotedIdentifier(editor))
    }

    /// Whether role $1 is still in a Bookshelf group (a role named `bookshelf_…`, a prefix no
    /// account may take) other than this catalog's: the server-wide groups of schema versions
    /// before 8, or another catalog's own.
    static let otherCatalogGroups = """
        SELECT EXISTS (
            SELECT 1 FROM pg_catalog.pg_auth_members m
            JOIN pg_catalog.pg_roles r ON r.oid = m.member
            JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
            WHERE r.rolname = $1 AND g.rolname LIKE 'bookshelf\\_%'
              AND g.rolname NOT IN (SELECT name FROM bookshelf.groups))
        """

    /// Adds `books` to `scope` only if the scope has none yet; returns how many were added.
    @discardableResult
    public func loadSample(_ books: [NewBook], scope: String) async throws -> Int {
        try await insert(books, scope: scope, onlyIntoEmptyScope: true)
    }

    /// Adds `books` to `scope` (bulk, by COPY) and returns how many were added.
    @discardableResult
    public func importBooks(_ books: [NewBook], scope: String) async throws -> Int {
        try await insert(books, scope: scope, onlyIntoEmptyScope: false)
    }

    /// Adds `books` to `scope` in one transaction, by one COPY that reads them as it sends
    /// them: a generator of ten million books is never held in memory (rows go out in chunks
    /// of a megabyte). `progress` is called with the count sent so far, every thousand books
    /// and at the end, on the connection's worker thread. A book that fails validation stops
    /// the COPY and rolls the whole transaction back: nothing is added.
    @discardableResult
    /// `commitIf`, asked on the worker thread after the last book inside the transaction, may
    /// withdraw everything (`PostgresSetupFailure.importWithdrawn`): a file streamed as it is
    /// read can turn out to have bad lines only at its end.
    public func importBooks(
        streaming books: some Sequence<NewBook> & Sendable, scope: String,
        progress: (@Sendable (Int) -> Void)? = nil, commitIf: @escaping @Sendable () -> Bool = { true }
    ) async throws -> Int {
        try await insert(books, scope: scope, onlyIntoEmptyScope: false, commitIf: commitIf, progress: progress)
    }

    /// Runs `body` on the administrative connection, on its worker: for the owner's work kept
    /// in files of its own (a re-import, `PostgresReimport`).
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let box = self.box
        return try await worker.perform { try body(box.connection) }
    }

    /// Refreshes the planner's statistics and the visibility map after a bulk import.
    public func analyze() async throws {
        let box = self.box
        try await worker.perform {
            _ = try run(box.connection.executeScript("VACUUM ANALYZE bookshelf.books"))
        }
    }

    /// Runs administrative SQL that takes no values (tests and benchmarks use it).
    func execute(_ sql: String, _ parameters: [String?] = []) async throws -> [[String?]] {
        let box = self.box
        return try await worker.perform { try run(box.connection.execute(sql, parameters)).rows }
    }

    private func insert(
        _ books: some Sequence<NewBook> & Sendable, scope: String, onlyIntoEmptyScope: Bool,
        commitIf: @escaping @Sendable () -> Bool = { true }, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws -> Int {
        guard PostgresSetup.isValidScope(scope) else { throw PostgresSetupFailure.invalidScope(scope) }
        let box = self.box
        return try await worker.perform {
            let version = try run(box.connection.execute("SELECT max(version) FROM bookshelf.schema_version"))
            let schema = version.rows.first?[0].flatMap { Int($0) } ?? 0
            // The word indexes take the books through pending lists, merged at the end
            // (`PostgresPendingLists`).
            let listsOn = schema >= PostgresSchema.steadyIndexesVersion
            if listsOn { try run(box.connection.executeScript(PostgresPendingLists.on)) }
            let added = Result {
                try box.connection.inTransaction { connection in
                    let added = try PostgresSetup.copy(
                        books, scope: scope, schema: schema, onlyIntoEmptyScope: onlyIntoEmptyScope,
                        progress: progress, on: connection)
                    guard commitIf() else { throw PostgresSetupFailure.importWithdrawn }
                    return added
                }
            }
            if listsOn {
                do {
                    for script in PostgresPendingLists.merged(schema: schema) {
                        try run(box.connection.executeScript(script))
                    }
                } catch {
                    // The import's own failure, if any, is the one to report.
                    if case .success = added { throw error }
                }
            }
            return try added.get()
        }
    }

    private static func copy(
        _ books: some Sequence<NewBook>, scope: String, schema: Int, onlyIntoEmptyScope: Bool,
        progress: (@Sendable (Int) -> Void)?, on connection: PostgresConnection
    ) throws -> Int {
        try run(connection.execute("SELECT pg_advisory_xact_lock(hashtext('bookshelf.books'))"))
        if onlyIntoEmptyScope {
            let found = try run(
                connection.execute(
                    "SELECT EXISTS (SELECT 1 FROM bookshelf.books WHERE scope = $1)", [scope]))
            if found.rows.first?[0] == "t" { return 0 }
        }
        let keepsDetails = schema >= PostgresSchema.detailsVersion
        // Derived here, as the title's words are: the database's trigger would take a millisecond a book.
        let withOtherWords = schema >= PostgresSchema.otherWordsVersion
        let rows = BookCopyRows(
            books, scope: scope, withDetails: keepsDetails, withOtherWords: withOtherWords, progress: progress)
        if withOtherWords {
            try run(
                connection.copyIn(
                    """
                    COPY bookshelf.books (scope, title, author, title_sort, title_words, author_words,
                        isbn, year, publisher, series, series_index, tags, notes, other_words) FROM STDIN
                    """, lines: rows))
        } else if keepsDetails {
            try run(
                connection.copyIn(
                    """
                    COPY bookshelf.books (scope, title, author, title_sort, title_words, author_words,
                        isbn, year, publisher, series, series_index, tags, notes) FROM STDIN
                    """, lines: rows))
        } else {
            try run(
                connection.copyIn(
                    "COPY bookshelf.books (scope, title, author, title_sort, title_words, author_words) FROM STDIN",
                    lines: rows))
        }
        // Thrown inside the transaction, so the rows sent before the bad book go too.
        if let failure = rows.failure { throw failure }
        progress?(rows.sent)
        return rows.sent
    }

    // Why the tables do not FORCE ROW LEVEL SECURITY (a second wall against an owner as an
    // account, issue 43): the policies name only this catalog's reader and editor groups, so a
    // forced owner would match none and see no rows. The owner's SECURITY DEFINER functions
    // (search_books, search_page, estimated_candidates) would then find nothing, the history
    // trigger record_revisions could not insert into book_revisions, so every save would
    // fail, and setup itself could not load a sample. Refusing owners as accounts (below) is
    // the wall instead.
    /// Of one role: whether it bypasses row-level security; whether it owns this database,
    /// the schema or a table in it (an owner is not held by its tables' policies).
    static let roleStanding = """
        SELECT r.rolsuper OR r.rolbypassrls,
               r.oid = d.datdba
                 OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = 'bookshelf' AND n.nspowner = r.oid)
                 OR EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                            WHERE n.nspname = 'bookshelf' AND c.relowner = r.oid)
        FROM pg_catalog.pg_roles r, pg_catalog.pg_database d
        WHERE r.rolname = $1 AND d.datname = current_database()
        """

    static func check(_ account: Account) throws {
        let name = account.name
        let allowed = name.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || "_.-@".unicodeScalars.contains($0)
        }
        guard !name.isEmpty, name.utf8.count <= 63, allowed, !name.lowercased().hasPrefix("pg_"),
            !name.lowercased().hasPrefix("bookshelf_")
        else { throw PostgresSetupFailure.invalidAccountName(name) }
        guard isValidScope(account.scope) else { throw PostgresSetupFailure.invalidScope(account.scope) }
    }

    static func isValidScope(_ scope: String) -> Bool {
        !scope.isEmpty && scope.count <= 100 && !BookValidation.hasControlCharacters(scope)
    }
}

/// What setup did to one account: how it stands now, how it stood before (nil: it is new),
/// and whether its login role was on the server already (another catalog's account, say),
/// with whatever password it had.
public struct AccountChange: Sendable, Equatable {
    public let account: Account
    public let before: Account?
    public let setPassword: Bool
    public var roleExisted: Bool = true

    public var isNew: Bool { before == nil }
    public var changedRole: Bool { before.map { $0.role != account.role } ?? false }
    public var changedScope: Bool { before.map { $0.scope != account.scope } ?? false }
}

/// What `removeAccount` did with the account's login role.
public enum AccountRemoval: Sendable, Equatable {
    case droppedRole
    /// The role is in another catalog's group on this server: it only left this catalog's.
    case keptRoleForAnotherCatalog
    /// The role had been dropped already (by hand); only the account's row was left.
    case roleAlreadyGone
}

/// Why setup refused a request.
public enum PostgresSetupFailure: Error, Equatable, CustomStringConvertible {
    /// Account names are role names: ASCII letters, digits, `_ . - @`, at most 63 bytes, not
    /// starting with `pg_` or `bookshelf_`.
    case invalidAccountName(String)
    case invalidScope(String)
    /// The role is a superuser or bypasses row-level security, so it cannot be an account.
    case privilegedRole(String)
    /// The role owns the database, the schema or one of its tables. An owner is not held by
    /// row-level security, so as an account it would see and edit every scope.
    case ownsCatalog(String)
    /// `--remove-account` named a role that is not an account of this catalog.
    case noSuchAccount(String)
    /// The caller withdrew a streamed import after its last book; nothing was added.
    case importWithdrawn

    public var description: String {
        switch self {
        case let .invalidAccountName(name):
            "\"\(name)\" cannot be an account name (letters, digits, _ . - @; at most 63)."
        case let .invalidScope(scope): "\"\(scope)\" cannot be a scope (1 to 100 characters, no control characters)."
        case let .privilegedRole(name):
            "The role \(name) is a superuser or bypasses row-level security; it cannot be an account."
        case let .ownsCatalog(name):
            "The role \(name) owns the catalog (its database or tables), and an owner is not held by row-level security; "
                + "it cannot be an account. Keep it for setup, and add another account."
        case let .noSuchAccount(name): "This catalog has no account \(name)."
        case .importWithdrawn: "The import was withdrawn before it committed; nothing was added."
        }
    }
}

/// Rows in COPY's text format: tab-separated, with backslash, tab, newline and carriage
/// return escaped, so no value can end a field or a row early.
enum PostgresCopyText {
    /// The book's row; `withDetails` adds the columns of schema version 11, `withOtherWords`
    /// the column of version 12.
    static func row(_ book: NewBook, scope: String, withDetails: Bool, withOtherWords: Bool) -> String {
        let index = BookIndexText(title: book.title, author: book.author)
        let fields =
            [scope, book.title, book.author, index.titleSort, index.titleWords, index.authorWords].map(escaped)
            + (withDetails ? PostgresDetailsColumns.copyFields(book.details) : [])
            + (withOtherWords ? [escaped(BookIndexText.otherWords(book.details))] : [])
        return fields.joined(separator: "\t") + "\n"
    }

    static func escaped(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// The rows of an administrative statement, or its failure as a `BookFailure`.
@discardableResult
func run(_ result: Result<PostgresRows, PostgresCallFailure>) throws -> PostgresRows {
    switch result {
    case let .success(rows): return rows
    case let .failure(.notSent(message)), let .failure(.lostAfterSending(message)):
        throw BookFailure.storeUnavailable(message)
    case let .failure(.server(error)):
        throw BookFailure.storeUnavailable(error.message)
    }
}

extension PostgresConnection {
    /// Runs `body` between BEGIN and COMMIT; any error rolls back.
    func inTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try run(execute("BEGIN"))
        do {
            let value = try body(self)
            try run(execute("COMMIT"))
            return value
        } catch {
            _ = execute("ROLLBACK")
            throw error
        }
    }
}

/// COPY rows made from books one at a time, as `copyIn` asks for them. Counts what it made and
/// keeps the first validation failure, at which it ends (a sequence cannot throw). Used once,
/// on one thread.
private final class BookCopyRows<Books: Sequence<NewBook>>: Sequence, IteratorProtocol {
    private var books: Books.Iterator
    private let scope: String
    /// The catalog has the columns of schema version 11; without them a book with details
    /// stops the COPY rather than losing them.
    private let withDetails: Bool
    /// The catalog has the search column of schema version 12.
    private let withOtherWords: Bool
    private let progress: ((Int) -> Void)?
    private(set) var sent = 0
    private(set) var failure: BookFailure?

    init(_ books: Books, scope: String, withDetails: Bool, withOtherWords: Bool, progress: ((Int) -> Void)?) {
        self.books = books.makeIterator()
        self.scope = scope
        self.withDetails = withDetails
        self.withOtherWords = withOtherWords
        self.progress = progress
    }

    func next() -> String? {
        guard failure == nil, let book = books.next() else { return nil }
        guard withDetails || book.details.isEmpty else {
            failure = .storeUnavailable(
                "the catalog's schema keeps no ISBN, year, publisher, series, tags or notes yet (run bookshelf setup)")
            return nil
        }
        do {
            let row = try PostgresCopyText.row(
                book.validated(), scope: scope, withDetails: withDetails, withOtherWords: withOtherWords)
            sent += 1
            if sent % 1_000 == 0 { progress?(sent) }
            return row
        } catch {
            failure = error
            return nil
        }
    }
}
