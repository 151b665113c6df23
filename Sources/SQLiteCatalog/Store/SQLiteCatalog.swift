import BookCatalog
import CSQLite
import Foundation
import SearchEngine

/// One catalog file: accounts, books and the record of committed saves.
///
/// Opening sets WAL mode (readers never block the writer), a busy timeout (a writer waits
/// for another process's write lock instead of failing), foreign keys, and migrates the
/// schema by `PRAGMA user_version`. A file that is not a catalog, or was written by a newer
/// program, is refused before anything is written to it.
///
/// Threading: the catalog's own connection is used under a mutex; each `SQLiteBookRemote`
/// opens a connection of its own and uses it only from its actor. Calls block on SQLite
/// (a local file, waiting at most the busy timeout), so never call them on the main actor.
public final class SQLiteCatalog: Sendable {
    public let path: String
    /// How long a write waits for another connection's write lock before failing.
    public let busyTimeout: Duration
    /// Used only while holding `lock`, which is what makes sharing this class safe. Nil once a
    /// remote for one command has taken it (`remoteForOneCommand`).
    private nonisolated(unsafe) var connection: Connection?
    /// A plain `NSLock`, not a `Locked(())`: ThreadSanitizer reports races on the empty state of
    /// a `Locked(())` that cannot happen (a 17-line program shows it; `Locked(0)` is clean).
    private let lock = NSLock()
    /// Runs before each remote's index build starts (see `IndexPreparation.start`).
    let beforeIndexBuild: IndexPreparation.BuildHook?
    /// Runs before each remote reads the changes its index catches up with in the background.
    let beforeCatchUp: IndexPreparation.BuildHook?

    private init(
        path: String, busyTimeout: Duration, connection: Connection, beforeIndexBuild: IndexPreparation.BuildHook?,
        beforeCatchUp: IndexPreparation.BuildHook?
    ) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.connection = connection
        self.beforeIndexBuild = beforeIndexBuild
        self.beforeCatchUp = beforeCatchUp
    }

    /// Opens the catalog at `path`; with `create`, makes a new empty one if there is none.
    public static func open(path: String, create: Bool, busyTimeout: Duration = .seconds(5)) throws(SQLiteCatalogError)
        -> SQLiteCatalog
    {
        try open(path: path, create: create, busyTimeout: busyTimeout, beforeIndexBuild: nil)
    }

    static func open(
        path: String, create: Bool, busyTimeout: Duration = .seconds(5),
        beforeIndexBuild: IndexPreparation.BuildHook?, beforeCatchUp: IndexPreparation.BuildHook? = nil
    )
        throws(SQLiteCatalogError) -> SQLiteCatalog
    {
        let connection = try CatalogConnection.open(path: path, create: create, busyTimeout: busyTimeout)
        return SQLiteCatalog(
            path: path, busyTimeout: busyTimeout, connection: connection, beforeIndexBuild: beforeIndexBuild,
            beforeCatchUp: beforeCatchUp)
    }

    // MARK: Accounts

    public func accounts() throws(SQLiteCatalogError) -> [Account] {
        try withConnection { connection in
            try connection.query("SELECT name, role, scope FROM accounts ORDER BY name") { row in
                Account(name: row.text(0), role: AccountRole(rawValue: row.text(1)) ?? .reader, scope: row.text(2))
            }
        }
    }

    /// Adds the account, or replaces the role and scope of an account of the same name.
    public func addAccount(_ account: Account) throws(SQLiteCatalogError) {
        for (field, value) in [("name", account.name), ("scope", account.scope)] {
            guard !value.isEmpty, !BookValidation.hasControlCharacters(value) else {
                throw .invalidAccount("the \(field) must be non-empty text without control characters")
            }
        }
        _ = try withConnection { connection in
            try connection.run(
                """
                INSERT INTO accounts(name, role, scope) VALUES (?1, ?2, ?3)
                ON CONFLICT(name) DO UPDATE SET role = excluded.role, scope = excluded.scope
                """,
                [.text(account.name), .text(account.role.rawValue), .text(account.scope)])
        }
    }

    /// A remote for one account, on a connection of its own.
    public func remote(account name: String) throws(SQLiteCatalogError) -> SQLiteBookRemote {
        try remote(account: name, without: [])
    }

    /// A remote for one account, for a command that does its work and exits (`bookshelf search`,
    /// `edit`, `undo`, `export`, `history`). It takes the catalog's own connection, so the process
    /// opens the file once (each connection reads and parses the schema: `perf record` over
    /// `bookshelf search` runs), and the catalog refuses any use after it. Its index, once ready,
    /// does not work out the broadest queries' answers for keys to come: in a search that kept
    /// pages of the index resident in a process about to exit, and beside a bulk edit it took a
    /// core from the app typing beside it (`bookshelf-bench bulk`).
    public func remoteForOneCommand(account name: String) throws(SQLiteCatalogError) -> SQLiteBookRemote {
        let account = try account(named: name)
        guard
            let connection = lock.withLock({ () -> Connection? in
                defer { self.connection = nil }
                return self.connection
            })
        else { throw Self.handedOver(path) }
        return SQLiteBookRemote(
            connection: connection, account: account, catalogPath: path, busyTimeout: busyTimeout,
            beforeIndexBuild: beforeIndexBuild, beforeCatchUp: beforeCatchUp, keepsBroadAnswers: false,
            countBooks: nil)
    }

    /// A remote that never asks the strategies `skipped`: for the benchmark alone, which runs
    /// with and without a strategy to measure what it buys on its own case.
    package func remote(
        account name: String, without skipped: Set<SearchStrategy>
    ) throws(SQLiteCatalogError) -> SQLiteBookRemote {
        let account = try account(named: name)
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: busyTimeout)
        return SQLiteBookRemote(
            connection: connection, account: account, catalogPath: path, busyTimeout: busyTimeout,
            beforeIndexBuild: beforeIndexBuild, beforeCatchUp: beforeCatchUp, skippedStrategies: skipped,
            countBooks: { [self] () throws(SQLiteCatalogError) in
                try bookCount(scope: account.scope)
            })
    }

    private func account(named name: String) throws(SQLiteCatalogError) -> Account {
        let found = try withConnection { connection in
            try connection.queryFirst("SELECT name, role, scope FROM accounts WHERE name = ?1", [.text(name)]) { row in
                Account(name: row.text(0), role: AccountRole(rawValue: row.text(1)) ?? .reader, scope: row.text(2))
            }
        }
        guard let found else { throw .unknownAccount(name) }
        return found
    }

    // MARK: Books

    /// From how many books (and a quarter of those already there) an import recreates the
    /// title index instead of inserting into it (`SQLiteTuning.bulkImportBooks`).
    public static let bulkImport = SQLiteTuning.bulkImportBooks

    /// Inserts `books` into `scope` in ONE transaction: every book is validated first
    /// (`NewBook.validated()`), and if any is invalid or the write fails, nothing is inserted.
    /// `progress` is called with the number inserted so far, every 1,000 books and at the end.
    @discardableResult
    /// `validating: false` (`import --restore`) stores each title and author exactly as given,
    /// including the `storedBytes` of text that is not valid UTF-8.
    /// `books` may be read as it is made (a file streamed): `expectedCount` then says how many
    /// it will likely give, for the choice below, and `commitIf`, asked after the last book
    /// inside the transaction, may withdraw everything (`.importWithdrawn`).
    public func insertBooks(
        _ books: some Sequence<NewBook>, scope: String, validating: Bool = true, expectedCount: Int? = nil,
        progress: ((Int) -> Void)? = nil, commitIf: () -> Bool = { true }
    ) throws(SQLiteCatalogError) -> Int {
        guard !scope.isEmpty, !BookValidation.hasControlCharacters(scope) else {
            throw .invalidAccount("the scope must be non-empty text without control characters")
        }
        return try withConnection { connection in
            try connection.transaction(immediate: true) {
                // One change sequence number for the whole import: it is one commit.
                let sequence =
                    try connection.queryFirst("SELECT coalesce(max(change_seq), 0) + 1 FROM books") { $0.int(0) } ?? 1
                // A book inserted into the title index lands at a random place in it; once the
                // index outgrows SQLite's page cache, every book costs a page read and write
                // (`bookshelf-bench import` at ten million books). A large import creates the index
                // again at the end instead: one sort. Inside the transaction, so readers keep theirs.
                let incoming = max(books.underestimatedCount, expectedCount ?? 0)
                let recreatesTitleIndex =
                    try incoming >= Self.bulkImport
                    && incoming >= (connection.queryFirst("SELECT count(*) FROM books") { $0.int(0) } ?? 0) / 4
                if recreatesTitleIndex { try connection.execute("DROP INDEX books_by_scope_title") }
                let insert = try connection.statement(
                    """
                    INSERT INTO books(
                        scope, title, author, revision, title_key, title_terms, author_terms, change_seq,
                        \(StoredDetails.columns), other_terms)
                    VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
                    """)
                var count = 0
                for book in books {
                    let valid: NewBook
                    do { valid = validating ? try book.validated() : book } catch let failure as BookFailure {
                        throw SQLiteCatalogError.invalidBook(index: count, reason: failure)
                    }
                    let text = BookText(title: valid.title, author: valid.author, details: valid.details)
                    // Only an unvalidated book can carry bytes that are not valid UTF-8 (`validated()` refuses them).
                    let title = valid.storedBytes.map { SQLValue.textBytes($0.title) } ?? .text(valid.title)
                    let author = valid.storedBytes.map { SQLValue.textBytes($0.author) } ?? .text(valid.author)
                    try insert.bind(
                        [
                            .text(scope), title, author,
                            .text(text.titleKey), .text(text.titleTerms), .text(text.authorTerms), .int(sequence),
                        ] + StoredDetails.values(of: valid.details) + [.text(text.otherTerms)])
                    defer { insert.reset() }
                    while try insert.step() {}
                    count += 1
                    if count % 1_000 == 0 { progress?(count) }
                }
                guard commitIf() else { throw SQLiteCatalogError.importWithdrawn }
                if recreatesTitleIndex { try connection.execute(Schema.titleIndex) }
                try RevisionLog.recordImport(sequence: sequence, on: connection)
                progress?(count)
                return count
            }
        }
    }

    /// Adds one validated book to `scope` at revision 1 and returns it with its new id.
    @discardableResult
    public func addBook(_ book: NewBook, scope: String) throws(SQLiteCatalogError) -> BookRecord {
        let valid: NewBook
        do { valid = try book.validated() } catch { throw .invalidBook(index: 0, reason: error) }
        guard !scope.isEmpty, !BookValidation.hasControlCharacters(scope) else {
            throw .invalidAccount("the scope must be non-empty text without control characters")
        }
        let text = BookText(title: valid.title, author: valid.author, details: valid.details)
        return try withConnection { connection in
            try connection.transaction(immediate: true) {
                let (record, sequence) = try connection.queryFirst(
                    """
                    INSERT INTO books(
                        scope, title, author, revision, title_key, title_terms, author_terms, change_seq,
                        \(StoredDetails.columns), other_terms)
                    VALUES (
                        ?1, ?2, ?3, 1, ?4, ?5, ?6, (SELECT coalesce(max(change_seq), 0) + 1 FROM books),
                        ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                    RETURNING \(BookRow.columns), change_seq
                    """,
                    [
                        .text(scope), .text(valid.title), .text(valid.author),
                        .text(text.titleKey), .text(text.titleTerms), .text(text.authorTerms),
                    ] + StoredDetails.values(of: valid.details) + [.text(text.otherTerms)]
                ) {
                    (BookRow.record($0), $0.int(BookRow.count))
                }!
                try RevisionLog.recordImport(sequence: sequence, on: connection)
                return record
            }
        }
    }

    /// How many books the catalog holds in `scope`, or in all scopes when `scope` is nil.
    public func bookCount(scope: String?) throws(SQLiteCatalogError) -> Int {
        try withConnection { connection in
            if let scope {
                try connection.queryFirst("SELECT count(*) FROM books WHERE scope = ?1", [.text(scope)]) { $0.int(0) }
                    ?? 0
            } else {
                try connection.queryFirst("SELECT count(*) FROM books") { $0.int(0) } ?? 0
            }
        }
    }

    /// Makes sure `scope` has a stored search index that the next program can use at once: the
    /// stored one if it is current or close enough to catch up, otherwise one built now and
    /// stored. For commands that add many books (`bookshelf import`, `sample`), so that the
    /// first search or app after them does not wait for, or type through, a build.
    public func prepareSearchIndex(scope: String) async throws -> SearchIndexReport {
        let preparation = IndexPreparation.start(
            SQLiteSearchSourceOpener(path: path, busyTimeout: busyTimeout, scope: scope), scope: scope)
        defer { preparation.cancel() }
        return try await preparation.value().report
    }

    /// Deletes the stored search index snapshots (derived data, files beside the catalog), so
    /// that the next remote of each scope rebuilds its index from the books. For benchmarks and troubleshooting.
    public func discardSearchSnapshots() throws(SQLiteCatalogError) {
        try withConnection { connection in
            try connection.transaction(immediate: true) {
                let scopes = try connection.query("SELECT scope FROM search_snapshots") { $0.text(0) }
                try connection.run("DELETE FROM search_snapshot_parts")
                try connection.run("DELETE FROM search_snapshots")
                for scope in scopes { unlink(SearchIndexSnapshot.path(catalogPath: path, scope: scope)) }
            }
        }
    }

    /// The catalog's connection under its lock, with what `body` throws as it is: for a caller
    /// that carries its own errors out of a transaction (a re-import's dry run, its failures).
    func withWriteConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try lock.withLock {
            guard let connection else { throw Self.handedOver(path) }
            return try body(connection)
        }
    }

    private func withConnection<T>(_ body: (Connection) throws -> T) throws(SQLiteCatalogError) -> T {
        do {
            return try withWriteConnection(body)
        } catch {
            throw SQLiteCatalogError(error, path: path)
        }
    }

    /// What the catalog says once a remote for one command took its connection.
    private static func handedOver(_ path: String) -> SQLiteCatalogError {
        .cannotOpen(path: path, reason: "its connection was given to a command's remote")
    }
}

extension SQLiteCatalogError {
    /// Any error met while working on the file at `path`, as a catalog error.
    init(_ error: any Error, path: String) {
        switch error {
        case let error as SQLiteCatalogError: self = error
        case let error as SQLiteError: self = error.catalogError(path: path)
        case is CatalogDamage: self = .corrupt(path: path)
        default: self = .failed(String(describing: error))
        }
    }
}

/// Opens and prepares a connection to a catalog file, refusing files it must not touch.
enum CatalogConnection {
    /// A catalog that exists but cannot be written (a read-only file, directory or file system)
    /// is opened read-only: searches, exports and history work, and a save fails saying why.
    static func open(path: String, create: Bool, busyTimeout: Duration) throws(SQLiteCatalogError) -> Connection {
        do {
            return try openWritable(path: path, create: create, busyTimeout: busyTimeout)
        } catch .readOnly(path) where FileManager.default.fileExists(atPath: path) {
            return try ReadOnlyCatalog.open(path: path, busyTimeout: busyTimeout)
        }
    }

    private static func openWritable(path: String, create: Bool, busyTimeout: Duration) throws(SQLiteCatalogError)
        -> Connection
    {
        try CatalogPathKind.requireFileOrNothing(at: path)
        let exists = CatalogPathKind(path: path) == .regularFile
        if !exists && !create { throw .notFound(path: path) }

        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let connection: Connection
        do {
            connection = try Connection(path: path, flags: flags)
        } catch {
            // Creating a file in a read-only directory fails as a bare "unable to open".
            if !exists && error.primary == SQLITE_CANTOPEN && directoryRefusesWrites(path) {
                throw .readOnly(path: path)
            }
            throw error.catalogError(path: path)
        }
        connection.setBusyTimeout(busyTimeout)
        // SQLite silently falls back to read-only when the file cannot be written.
        if connection.isReadOnly { throw .readOnly(path: path) }

        do {
            // Reading the version is the first touch of the file: it detects "not a
            // database" and a newer schema before anything is written.
            let found = try Schema.version(of: connection)
            if found > Schema.currentVersion {
                throw SQLiteCatalogError.newerSchema(found: found, known: Schema.currentVersion)
            }
            // No Bookshelf writes a negative version (the pragma is a signed number anyone may
            // set): the migration would start at a step that does not exist.
            if found < 0 { throw SQLiteCatalogError.otherDatabase(path: path) }
            if found == 0 {
                // Version 0 is a file no Bookshelf ever wrote: fill it only when asked to
                // create, and only when nothing else lives in it.
                let tables = try connection.queryFirst("SELECT count(*) FROM sqlite_schema") { $0.int(0) } ?? 0
                if tables > 0 { throw SQLiteCatalogError.otherDatabase(path: path) }
                if exists && !create { throw SQLiteCatalogError.emptyFile(path: path) }
            }
            let mode = try connection.queryFirst("PRAGMA journal_mode = WAL") { $0.text(0) }
            guard mode?.lowercased() == "wal" else {
                if directoryRefusesWrites(path) { throw SQLiteCatalogError.readOnly(path: path) }
                throw SQLiteCatalogError.cannotOpen(path: path, reason: "WAL mode is not available on this file system")
            }
            try connection.execute("PRAGMA foreign_keys = ON")
            try connection.execute("PRAGMA synchronous = NORMAL")
            try Schema.migrate(connection, found: found)
        } catch {
            let failure = SQLiteCatalogError(error, path: path)
            // A WAL file whose directory refuses its -shm file fails at the first read.
            if case .cannotOpen = failure, directoryRefusesWrites(path) { throw .readOnly(path: path) }
            throw failure
        }
        return connection
    }

    /// Whether the directory holding `path` exists but cannot be written: a read-only file
    /// system or missing permission, not a missing directory.
    static func directoryRefusesWrites(_ path: String) -> Bool {
        guard access(folder(holding: path), W_OK) != 0 else { return false }
        return errno == EROFS || errno == EACCES
    }
}
