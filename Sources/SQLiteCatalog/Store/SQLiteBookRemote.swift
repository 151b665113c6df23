import BookCatalog
import Foundation
import SearchEngine

/// One account's view of an SQLite catalog, on a connection of its own.
///
/// The store enforces the account on every call: only books of the account's scope are
/// loaded, searched or saved, and a save checks in the same statement that the account is
/// (still) an editor. A save is one compare-and-set `UPDATE ... RETURNING`, committed with
/// its operation id in one transaction.
///
/// Threading: the connection is used only from this actor. SQLite calls block the actor's
/// thread (a local file; a write waits at most the busy timeout), never the main actor.
public actor SQLiteBookRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote,
    AccountAwareRemote, HistoryKeepingRemote, DeletionRecordingRemote, BatchRecordingRemote, SearchEngineHost
{
    public nonisolated let account: Account
    let connection: Connection
    /// The catalog file, as what a failure says names it.
    let catalogPath: String
    /// Counts the account's books on a connection of the catalog's own, not this remote's: a
    /// count of millions of rows never holds a search back behind it. Nil for a command's remote,
    /// on the catalog's only connection: it counts on that.
    private let countBooks: (@Sendable () throws(SQLiteCatalogError) -> Int)?
    /// The search engine, reading this account's books through `SQLiteSearchSource` on this
    /// remote's connection, and on connections of its own for its work away from this actor.
    package let searchEngine: SearchEngine
    /// What other connections committed since the last check (`checkForChanges`).
    var changeWatch: CatalogChangeWatch

    init(
        connection: sending Connection, account: Account, catalogPath: String, busyTimeout: Duration,
        beforeIndexBuild: IndexPreparation.BuildHook?, beforeCatchUp: IndexPreparation.BuildHook?,
        skippedStrategies: Set<SearchStrategy> = [], keepsBroadAnswers: Bool = true,
        countBooks: (@Sendable () throws(SQLiteCatalogError) -> Int)?
    ) {
        self.connection = connection
        self.countBooks = countBooks
        self.account = account
        self.catalogPath = catalogPath
        searchEngine = SearchEngine(
            source: SQLiteSearchSource(connection: connection, scope: account.scope, catalogPath: catalogPath),
            opener: SQLiteSearchSourceOpener(path: catalogPath, busyTimeout: busyTimeout, scope: account.scope),
            scope: account.scope, skippedStrategies: skippedStrategies, keepsBroadAnswers: keepsBroadAnswers,
            beforeIndexBuild: beforeIndexBuild, beforeCatchUp: beforeCatchUp)
        changeWatch = CatalogChangeWatch(connection)
    }

    // MARK: BookRemote

    public func load(id: Int) async throws -> BookRecord {
        let found = try mappingFailures(at: catalogPath) {
            try connection.queryFirst(
                "SELECT \(BookRow.columns) FROM books WHERE id = ?1 AND scope = ?2",
                [.int(id), .text(account.scope)], row: BookRow.record)
        }
        guard let found else { throw BookFailure.missing }
        return found
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ unchecked: SaveRequest) async throws -> BookRecord {
        let request = try unchecked.validated()
        let outcome: Result<BookRecord, BookFailure> = try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: true) { try commit(request, batch: nil) }
        }
        return try outcome.get()
    }

    /// One save (`BookSaving`), in the caller's write transaction; its own commit is no news to
    /// this remote's change checks.
    func commit(_ request: SaveRequest, batch: BatchID?) throws -> Result<BookRecord, BookFailure> {
        try BookSaving(connection: connection, account: account).commit(request, batch: batch).map { saved in
            changeWatch.sawOwnCommit(sequence: saved.sequence)
            return saved.record
        }
    }

    // MARK: BatchRecordingRemote

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        let outcome: Result<BatchID, BookFailure> = try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: true) { try batches.begin(start) }
        }
        return try outcome.get()
    }

    public func save(_ unchecked: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        let request = try unchecked.validated()
        let outcome: Result<BookRecord, BookFailure> = try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: true) {
                guard try batches.isOwned(batch) else { return .failure(.notAllowed) }
                return try commit(request, batch: batch)
            }
        }
        return try outcome.get()
    }

    /// Thrown inside the transaction to roll it back: the saves it refused.
    private struct Refusals: Error {
        let reasons: [Int: BookFailure]
    }

    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        let clean = try requests.map { try $0.validated() }
        let watched = changeWatch
        do {
            let outcome: Result<AllOrNothingResult, BookFailure> = try mappingFailures(at: catalogPath) {
                try connection.transaction(immediate: true) {
                    let batch: BatchID
                    switch try batches.begin(start) {
                    case let .success(number): batch = number
                    case let .failure(failure): return .failure(failure)
                    }
                    var saved: [BookRecord] = [], refused: [Int: BookFailure] = [:]
                    for request in clean {
                        switch try commit(request, batch: batch) {
                        case let .success(record): saved.append(record)
                        case let .failure(failure): refused[request.id] = failure
                        }
                    }
                    guard refused.isEmpty else { throw Refusals(reasons: refused) }
                    return .success(.committed(batch, saved))
                }
            }
            return try outcome.get()
        } catch let refusals as Refusals {
            // Rolled back: this connection's own commits it counted are no commits.
            changeWatch = watched
            return .refused(refusals.reasons)
        }
    }

    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        let found = try mappingFailures(at: catalogPath) {
            try RevisionLog.revisions(ofBatch: batch, scope: account.scope, on: connection)
        }
        guard let found else { throw BookFailure.missing }
        return found
    }

    var batches: BatchRecords { BatchRecords(connection: connection, account: account) }

    // MARK: SearchableBookRemote (the search itself is the engine's: SQLiteBookRemote+SearchEngineHost.swift)

    /// Off the actor, on the catalog's connections (see `countBooks`).
    public nonisolated func bookCount() async throws -> Int {
        guard let countBooks else { return try await bookCountOnOwnConnection() }
        do { return try countBooks() } catch { throw BookFailure.storeUnavailable(error.description) }
    }

    private func bookCountOnOwnConnection() throws -> Int {
        try mappingFailures(at: catalogPath) {
            try connection.queryFirst("SELECT count(*) FROM books WHERE scope = ?1", [.text(account.scope)]) {
                $0.int(0)
            } ?? 0
        }
    }

    // MARK: ChangeDetectingRemote

    public func checkForChanges() async throws -> ChangeNotice? {
        if let notice = try mappingFailures(at: catalogPath, { try changeWatch.check(connection) }) { return notice }
        // Searches answered behind another program's batch (`indexBehind`) showed the books as
        // they stood: once the index has caught up, they are to be asked again.
        return try await caughtUpAfterAnsweringBehind() ? .unspecified : nil
    }

    // MARK: SaveOutcomeRecordingRemote

    public func committedRevision(of operation: UUID) async throws -> Int? {
        try mappingFailures(at: catalogPath) {
            try connection.queryFirst(
                """
                SELECT committed_saves.revision FROM committed_saves JOIN books ON books.id = committed_saves.book_id
                WHERE committed_saves.operation = ?1 AND books.scope = ?2
                """,
                [.text(operation.uuidString), .text(account.scope)]
            ) { $0.int(0) }
        }
    }

    // MARK: HistoryKeepingRemote

    public func history(of id: Int) async throws -> [BookRevision] {
        let found = try mappingFailures(at: catalogPath) {
            try RevisionLog.history(of: id, scope: account.scope, on: connection)
        }
        guard let found else { throw BookFailure.missing }
        return found
    }

    // MARK: DeletionRecordingRemote

    public func deletion(of id: Int) async throws -> BookDeletion? {
        try mappingFailures(at: catalogPath) {
            try RevisionLog.deletion(of: id, scope: account.scope, on: connection)
        }
    }

    // MARK: Exact text

    /// The exact bytes of those books among `ids` (of this scope) whose title or author is not
    /// valid UTF-8, as another program can store them; every other read shows each bad byte as
    /// U+FFFD. For `bookshelf export`, so that a backup keeps every byte.
    public func storedBytes(of ids: [Int]) async throws -> [Int: StoredBytes] {
        try mappingFailures(at: catalogPath) {
            var found: [Int: StoredBytes] = [:]
            for id in ids {
                let bytes = try connection.queryFirst(
                    "SELECT CAST(title AS BLOB), CAST(author AS BLOB) FROM books WHERE id = ?1 AND scope = ?2",
                    [.int(id), .text(account.scope)]
                ) { row in StoredBytes(title: Array(row.blob(0)), author: Array(row.blob(1))) }
                guard let bytes else { continue }
                if String(validating: bytes.title, as: UTF8.self) == nil
                    || String(validating: bytes.author, as: UTF8.self) == nil
                {
                    found[id] = bytes
                }
            }
            return found
        }
    }
}
