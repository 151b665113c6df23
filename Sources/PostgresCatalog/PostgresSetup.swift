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
    public func prepare(accounts: [Account], samples: [String: [NewBook]]) async throws {
        _ = try await migrate()
        for account in accounts { try await addAccount(account) }
        for (scope, books) in samples.sorted(by: { $0.key < $1.key }) {
            _ = try await loadSample(books, scope: scope)
        }
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
            try box.connection.inTransaction { connection in
                try run(connection.execute("SELECT pg_advisory_xact_lock(hashtext('bookshelf.schema'))"))
                try run(connection.executeScript("""
                    CREATE SCHEMA IF NOT EXISTS bookshelf;
                    CREATE TABLE IF NOT EXISTS bookshelf.schema_version (version integer NOT NULL);
                    """))
                let rows = try run(connection.execute("SELECT coalesce(max(version), 0) FROM bookshelf.schema_version"))
                guard let text = rows.rows.first?[0], let current = Int(text) else { throw BookFailure.invalidResponse }
                guard current <= PostgresSchema.latestVersion else {
                    throw BookFailure.storeUnavailable("the catalog's schema (version \(current)) is newer than this Bookshelf")
                }
                for version in (current + 1)..<(max(current, target) + 1) {
                    if PostgresSchema.refoldingVersions.contains(version) {
                        try run(connection.execute("DELETE FROM bookshelf.folding"))
                        try run(connection.copyIn("COPY bookshelf.folding (code, kind, folded, folded_alone) FROM STDIN",
                                                  lines: SearchFolding.copyRows))
                    }
                    try run(connection.executeScript(PostgresSchema.migration(to: version)))
                    if version == 3 {
                        try run(connection.copyIn("COPY bookshelf.folding (code, kind, folded, folded_alone) FROM STDIN",
                                                  lines: SearchFolding.copyRows))
                    }
                    try run(connection.execute("DELETE FROM bookshelf.schema_version"))
                    try run(connection.execute("INSERT INTO bookshelf.schema_version (version) VALUES ($1)", [String(version)]))
                }
                return max(current, target)
            }
        }
    }

    /// Creates the account's login role (or updates it), puts it in the reader or editor
    /// group, and records its scope. A password, if given, is stored hashed by libpq.
    public func addAccount(_ account: Account, password: String? = nil) async throws {
        try PostgresSetup.check(account)
        let box = self.box
        try await worker.perform {
            try box.connection.inTransaction { connection in
                let name = try connection.quotedIdentifier(account.name)
                let existing = try run(connection.execute(
                    "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = $1", [account.name]))
                if let privileged = existing.rows.first?[0] {
                    // Such a role would bypass row-level security: refuse to make it an account.
                    guard privileged == "f" else { throw PostgresSetupFailure.privilegedRole(account.name) }
                    try run(connection.executeQuoted("ALTER ROLE \(name) LOGIN"))
                } else {
                    try run(connection.executeQuoted("CREATE ROLE \(name) LOGIN"))
                }
                let (granted, revoked) = account.role == .editor
                    ? ("bookshelf_editor", "bookshelf_reader") : ("bookshelf_reader", "bookshelf_editor")
                try run(connection.executeQuoted("GRANT \(granted) TO \(name)"))
                try run(connection.executeQuoted("REVOKE \(revoked) FROM \(name)"))
                if let password, !password.isEmpty {
                    let hashed = try connection.quotedLiteral(connection.encryptedPassword(password, user: account.name))
                    try run(connection.executeQuoted("ALTER ROLE \(name) PASSWORD \(hashed)"))
                }
                try run(connection.execute("""
                    INSERT INTO bookshelf.accounts (name, role, scope) VALUES ($1, $2, $3)
                    ON CONFLICT (name) DO UPDATE SET role = excluded.role, scope = excluded.scope
                    """, [account.name, account.role.rawValue, account.scope]))
            }
        }
    }

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
    public func importBooks(streaming books: some Sequence<NewBook> & Sendable, scope: String,
                            progress: (@Sendable (Int) -> Void)? = nil) async throws -> Int {
        try await insert(books, scope: scope, onlyIntoEmptyScope: false, progress: progress)
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

    private func insert(_ books: some Sequence<NewBook> & Sendable, scope: String, onlyIntoEmptyScope: Bool,
                        progress: (@Sendable (Int) -> Void)? = nil) async throws -> Int {
        guard PostgresSetup.isValidScope(scope) else { throw PostgresSetupFailure.invalidScope(scope) }
        let box = self.box
        return try await worker.perform {
            try box.connection.inTransaction { connection in
                try run(connection.execute("SELECT pg_advisory_xact_lock(hashtext('bookshelf.books'))"))
                if onlyIntoEmptyScope {
                    let found = try run(connection.execute(
                        "SELECT EXISTS (SELECT 1 FROM bookshelf.books WHERE scope = $1)", [scope]))
                    if found.rows.first?[0] == "t" { return 0 }
                }
                let rows = BookCopyRows(books, scope: scope, progress: progress)
                try run(connection.copyIn(
                    "COPY bookshelf.books (scope, title, author, title_sort, title_words, author_words) FROM STDIN",
                    lines: rows))
                // Thrown inside the transaction, so the rows sent before the bad book go too.
                if let failure = rows.failure { throw failure }
                progress?(rows.sent)
                return rows.sent
            }
        }
    }

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

/// Why setup refused a request.
public enum PostgresSetupFailure: Error, Equatable, CustomStringConvertible {
    /// Account names are role names: ASCII letters, digits, `_ . - @`, at most 63 bytes, not
    /// starting with `pg_` or `bookshelf_`.
    case invalidAccountName(String)
    case invalidScope(String)
    /// The role is a superuser or bypasses row-level security, so it cannot be an account.
    case privilegedRole(String)

    public var description: String {
        switch self {
        case let .invalidAccountName(name): "\"\(name)\" cannot be an account name (letters, digits, _ . - @; at most 63)."
        case let .invalidScope(scope): "\"\(scope)\" cannot be a scope (1 to 100 characters, no control characters)."
        case let .privilegedRole(name): "The role \(name) is a superuser or bypasses row-level security; it cannot be an account."
        }
    }
}

/// Rows in COPY's text format: tab-separated, with backslash, tab, newline and carriage
/// return escaped, so no value can end a field or a row early.
enum PostgresCopyText {
    static func row(_ book: NewBook, scope: String) -> String {
        let index = BookIndexText(title: book.title, author: book.author)
        return [scope, book.title, book.author, index.titleSort, index.titleWords, index.authorWords]
            .map(escaped).joined(separator: "\t") + "\n"
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
    private let progress: ((Int) -> Void)?
    private(set) var sent = 0
    private(set) var failure: BookFailure?

    init(_ books: Books, scope: String, progress: ((Int) -> Void)?) {
        self.books = books.makeIterator()
        self.scope = scope
        self.progress = progress
    }

    func next() -> String? {
        guard failure == nil, let book = books.next() else { return nil }
        do {
            let row = try PostgresCopyText.row(book.validated(), scope: scope)
            sent += 1
            if sent % 1_000 == 0 { progress?(sent) }
            return row
        } catch {
            failure = error
            return nil
        }
    }
}
