import BookCatalog
import CSQLite
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
    AccountAwareRemote, HistoryKeepingRemote, BatchRecordingRemote, SearchEngineHost
{
    public nonisolated let account: Account
    let connection: Connection
    private let catalogPath: String
    /// Counts the account's books on a connection of the catalog's own, not this remote's: a
    /// count of millions of rows never holds a search back behind it.
    private let countBooks: @Sendable () throws(SQLiteCatalogError) -> Int
    /// The search engine, reading this account's books through `SQLiteSearchSource` on this
    /// remote's connection, and on connections of its own for its work away from this actor.
    package let searchEngine: SearchEngine
    /// `PRAGMA data_version` at the last check; it moves only for other connections' commits.
    private var seenDataVersion: Int
    /// What other connections' commits are checked against: the books' latest change and the
    /// accounts. Commits that change neither (a stored search index snapshot) are no news.
    private var seenState: CatalogState

    init(
        connection: sending Connection, account: Account, catalogPath: String, busyTimeout: Duration,
        beforeIndexBuild: IndexPreparation.BuildHook?, beforeCatchUp: IndexPreparation.BuildHook?,
        skippedStrategies: Set<SearchStrategy> = [], warmsBroadPrefixes: Bool = true,
        countBooks: @escaping @Sendable () throws(SQLiteCatalogError) -> Int
    ) {
        self.connection = connection
        self.countBooks = countBooks
        self.account = account
        self.catalogPath = catalogPath
        searchEngine = SearchEngine(
            source: SQLiteSearchSource(connection: connection, scope: account.scope, catalogPath: catalogPath),
            opener: SQLiteSearchSourceOpener(path: catalogPath, busyTimeout: busyTimeout, scope: account.scope),
            scope: account.scope, skippedStrategies: skippedStrategies, warmsBroadPrefixes: warmsBroadPrefixes,
            beforeIndexBuild: beforeIndexBuild, beforeCatchUp: beforeCatchUp)
        self.seenDataVersion = (try? connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
        self.seenState = (try? CatalogState(connection)) ?? CatalogState(sequence: -1, accounts: "")
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

    /// One save's compare-and-set and its records (the operation, the revision, its batch), in
    /// the caller's write transaction.
    private func commit(_ request: SaveRequest, batch: BatchID?) throws -> Result<BookRecord, BookFailure> {
        let (title, author) = (request.title, request.author)
        let text = BookText(title: title, author: author ?? "", details: request.details ?? .empty)
        // The compare-and-set: revision, scope and the account's role in one statement.
        // Details are written all together (?11 true), or kept as they are.
        let saved: (BookRecord, Int)?
        do {
            saved = try connection.queryFirst(
                """
                UPDATE books SET
                    title = ?1, author = coalesce(?2, author),
                    title_key = ?3, title_terms = ?4, author_terms = coalesce(?5, author_terms),
                    isbn = iif(?11, ?12, isbn), year = iif(?11, ?13, year),
                    publisher = iif(?11, ?14, publisher), series = iif(?11, ?15, series),
                    series_index_thousandths = iif(?11, ?16, series_index_thousandths),
                    tags = iif(?11, ?17, tags), notes = iif(?11, ?18, notes),
                    other_terms = iif(?11, ?19, other_terms),
                    revision = revision + 1,
                    change_seq = (SELECT max(change_seq) FROM books) + 1
                WHERE id = ?6 AND revision = ?7 AND scope = ?8 AND revision < ?9
                  AND EXISTS (SELECT 1 FROM accounts WHERE name = ?10 AND role = 'editor' AND scope = ?8)
                RETURNING \(BookRow.columns), change_seq
                """,
                [
                    .text(title), author.map { .text($0) } ?? .null,
                    .text(text.titleKey), .text(text.titleTerms),
                    author == nil ? .null : .text(text.authorTerms),
                    .int(request.id), .int(request.expectedRevision), .text(account.scope), .int(Int.max),
                    .text(account.name), .int(request.details == nil ? 0 : 1),
                ]
                    + (request.details.map(StoredDetails.values)
                        ?? Array(repeating: .null, count: StoredDetails.count)) + [.text(text.otherTerms)],
                row: { (BookRow.record($0), $0.int(BookRow.count)) })
        } catch let error as SQLiteError where error.primary == SQLITE_CONSTRAINT && request.details == nil {
            // Details another program wrote past the file's checks, which keeping them
            // would write again: say which field, as a rule broken by a save would.
            guard let field = try firstFieldBreakingItsRule(id: request.id) else { throw error }
            return .failure(
                .invalidField(
                    field,
                    reason: "book \(request.id) holds a value another program stored that breaks this "
                        + "field's rule, and a save that keeps it cannot be made; save the book with this "
                        + "field given anew (an empty value clears it)"))
        }
        guard let (saved, sequence) = saved else { return .failure(try explainRefusal(request)) }
        // This connection's own commit is no news to it, as long as nobody else's
        // came between the last check and this one.
        if sequence == seenState.sequence + 1 { seenState.sequence = sequence }
        try connection.run(
            "INSERT INTO committed_saves(operation, book_id, revision) VALUES (?1, ?2, ?3)",
            [.text(request.operation.uuidString), .int(saved.id), .int(saved.revision)])
        try RevisionLog.recordSave(
            of: saved.id, account: account.name, operation: request.operation, batch: batch, on: connection)
        return .success(saved)
    }

    // MARK: BatchRecordingRemote

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        let outcome: Result<BatchID, BookFailure> = try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: true) { try insertBatch(start) }
        }
        return try outcome.get()
    }

    /// A new batch of this account, in its scope, in the caller's write transaction; refused
    /// to a reader, and for an undo of a batch this scope does not have.
    private func insertBatch(_ start: BatchStart) throws -> Result<BatchID, BookFailure> {
        let isEditor =
            try connection.queryFirst(
                "SELECT 1 FROM accounts WHERE name = ?1 AND role = 'editor' AND scope = ?2",
                [.text(account.name), .text(account.scope)]
            ) { _ in true } ?? false
        guard isEditor else { return .failure(.notAllowed) }
        if let undone = start.undoes {
            let visible =
                try connection.queryFirst(
                    "SELECT 1 FROM batches WHERE id = ?1 AND scope = ?2", [.int(undone.number), .text(account.scope)]
                ) { _ in true } ?? false
            guard visible else { return .failure(.missing) }
        }
        let number = try connection.queryFirst(
            """
            INSERT INTO batches(scope, account, started_at, undoes) VALUES (?1, ?2, \(RevisionLog.nowMilliseconds), ?3)
            RETURNING id
            """,
            [.text(account.scope), .text(account.name), start.undoes.map { .int($0.number) } ?? .null]
        ) { $0.int(0) }
        guard let number else { return .failure(.invalidResponse) }
        return .success(BatchID(number))
    }

    public func save(_ unchecked: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        let request = try unchecked.validated()
        let outcome: Result<BookRecord, BookFailure> = try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: true) {
                // Only the account that began a batch saves into it.
                let owned =
                    try connection.queryFirst(
                        "SELECT 1 FROM batches WHERE id = ?1 AND account = ?2 AND scope = ?3",
                        [.int(batch.number), .text(account.name), .text(account.scope)]
                    ) { _ in true } ?? false
                guard owned else { return .failure(.notAllowed) }
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
        let seen = seenState
        do {
            let outcome: Result<AllOrNothingResult, BookFailure> = try mappingFailures(at: catalogPath) {
                try connection.transaction(immediate: true) {
                    let batch: BatchID
                    switch try insertBatch(start) {
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
            seenState = seen
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

    /// The first of a stored book's details columns holding what Bookshelf would not keep
    /// there (`StoredDetails` reads it in another form, or as empty), or nil.
    private func firstFieldBreakingItsRule(id: Int) throws -> BookField? {
        let fields: [BookField] = [.isbn, .year, .publisher, .series, .seriesIndex, .tags, .notes]
        let found = try connection.queryFirst(
            "SELECT \(StoredDetails.columns) FROM books WHERE id = ?1 AND scope = ?2", [.int(id), .text(account.scope)]
        ) { row -> BookField? in
            let kept = StoredDetails.values(of: StoredDetails.read(row, from: 0))
            for (index, value) in kept.enumerated() {
                let column = Int32(index)
                let stored = row.isNull(column) ? nil : row.text(column)
                let canonical: String? =
                    switch value {
                    case .null: nil
                    case let .int(number): String(number)
                    case let .text(text): text
                    case let .textBytes(bytes): String(decoding: bytes, as: UTF8.self)
                    }
                if stored != canonical { return fields[index] }
            }
            return nil
        }
        return found ?? nil
    }

    /// Why the compare-and-set changed no row, in the order the in-memory store checks.
    private func explainRefusal(_ request: SaveRequest) throws -> BookFailure {
        let stored = try connection.queryFirst(
            "SELECT revision FROM books WHERE id = ?1 AND scope = ?2", [.int(request.id), .text(account.scope)]
        ) { $0.int(0) }
        guard let revision = stored else { return .missing }
        let isEditor =
            try connection.queryFirst(
                "SELECT 1 FROM accounts WHERE name = ?1 AND role = 'editor' AND scope = ?2",
                [.text(account.name), .text(account.scope)]
            ) { _ in true } ?? false
        guard isEditor else { return .notAllowed }
        guard revision == request.expectedRevision else {
            return .conflict(expected: request.expectedRevision, actual: revision)
        }
        return .revisionExhausted
    }

    // MARK: SearchableBookRemote

    /// Off the actor, on the catalog's connections (see `countBooks`).
    public nonisolated func bookCount() async throws -> Int {
        do { return try countBooks() } catch { throw BookFailure.storeUnavailable(error.description) }
    }

    /// Answers from the search index when it is ready, and otherwise from the books table
    /// (`BooksTableSearch`, the same answer more slowly), so a search never waits for a build.
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearch(query).page
    }

    /// The page `search` gives, and which way answered it (`SearchStrategy`): for benchmarks and tests.
    public func answer(_ query: SearchQuery) async throws -> SearchAnswer {
        try await answerSearch(query)
    }

    /// The same search answered without the index, as while one is being built: for tests
    /// and benchmarks that compare both ways.
    public func searchWithoutIndex(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearchWithoutIndex(query)
    }

    /// Waits until the index being built (if any) is built and stored: for a program about to
    /// exit after searches answered without it, so that the next program finds a current index.
    public func finishIndexPreparation() async {
        await finishPreparingIndex()
    }

    /// Why the catalog cannot be trusted, once a read found it damaged: for a program that
    /// answered before the index build that found it had finished (the answer was then partial).
    public var catalogDamage: String? { damageFound }

    /// How the search index in use was obtained, waiting until there is one, and whether this
    /// remote built it and stored it in the catalog for the next connection.
    public func searchIndexReport() async throws -> (report: SearchIndexReport, snapshotStored: Bool) {
        try await installedIndexReport()
    }

    // MARK: SearchEngineHost

    /// The rows of `ids` (`SearchEngineHost.pageRows`): of this scope, in the search's read.
    package func pageRows(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool, whileIndexing: Bool, countFollows: Bool
    ) throws -> SearchPage {
        let records = try ids.map { id in
            guard
                let record = try connection.queryFirst(
                    "SELECT \(BookRow.columns) FROM books WHERE id = ?1 AND scope = ?2",
                    [.int(id), .text(account.scope)], row: BookRow.record)
            else {
                // In one read transaction, an id the books table's own index gave is a book.
                guard namedByIndex else {
                    throw CatalogDamage("the title index names book \(id), which the table lacks")
                }
                throw SearchIndexDamage("the index names book \(id), which this scope does not have")
            }
            return record
        }
        let totalCount =
            countFollows
            ? .counting(atLeast: max(total, query.offset + records.count))
            : TotalCount(
                counted: total, offset: query.offset, shown: records.count,
                hasMore: query.offset + records.count < total)
        return SearchPage(records: records, totalCount: totalCount, answeredWhileIndexing: whileIndexing)
    }

    /// What a search reports for a preparation that failed.
    package func failure(preparing error: any Error) -> BookFailure {
        if let failure = error as? BookFailure { return failure }
        if CatalogDamage.isDamage(error) { return CatalogDamage.failure(path: catalogPath) }
        if let failure = error as? SQLiteError { return failure.bookFailure(catalogPath: catalogPath) }
        if let failure = error as? SQLiteCatalogError { return BookFailure.storeUnavailable(failure.description) }
        return BookFailure.storeUnavailable(String(describing: error))
    }

    package func mappingSourceFailures<T>(_ body: () throws -> T) throws -> T {
        try mappingFailures(at: catalogPath, body)
    }

    package func damageFailure() -> BookFailure { CatalogDamage.failure(path: catalogPath) }

    package func damageExplanation() -> String { CatalogDamage.explanation(path: catalogPath) }

    package func isDamage(_ error: any Error) -> Bool { CatalogDamage.isDamage(error) }

    // MARK: ChangeDetectingRemote

    public func checkForChanges() async throws -> ChangeNotice? {
        try mappingFailures(at: catalogPath) {
            let version = try connection.queryFirst("PRAGMA data_version") { $0.int(0) } ?? 0
            guard version != seenDataVersion else { return nil }
            seenDataVersion = version
            let state = try CatalogState(connection)
            defer { seenState = state }
            return state != seenState ? .unspecified : nil
        }
    }

    /// What a change notice is about, read in one statement.
    struct CatalogState: Equatable {
        var sequence: Int
        var accounts: String

        init(sequence: Int, accounts: String) {
            self.sequence = sequence
            self.accounts = accounts
        }

        init(_ connection: Connection) throws {
            (sequence, accounts) =
                try connection.queryFirst(
                    """
                    SELECT (SELECT coalesce(max(change_seq), 0) FROM books),
                           (SELECT coalesce(group_concat(name || char(31) || role || char(31) || scope, char(30)), '')
                            FROM (SELECT * FROM accounts ORDER BY name))
                    """
                ) { ($0.int(0), $0.text(1)) } ?? (0, "")
        }
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
