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
    AccountAwareRemote,
    HistoryKeepingRemote, BatchRecordingRemote
{
    public nonisolated let account: Account
    let connection: Connection
    private let catalogPath: String
    private let busyTimeout: Duration
    /// The engine's reads of this account's books, on this remote's connection, and on a
    /// connection of their own for the work done away from it.
    let searchSource: SQLiteSearchSource
    private let sourceOpener: SQLiteSearchSourceOpener
    private let beforeIndexBuild: IndexPreparation.BuildHook?
    private let beforeCatchUp: IndexPreparation.BuildHook?
    /// Strategies this remote never asks: empty but in the benchmark, which measures their worth.
    private let skippedStrategies: Set<SearchStrategy>
    /// Whether each index made ready works out the broadest queries' answers ahead
    /// (`BroadPrefixResults.warmUp`): not for a remote that answers one search.
    private let warmsBroadPrefixes: Bool
    /// Counts the account's books on a connection of the catalog's own, not this remote's: a
    /// count of millions of rows never holds a search back behind it.
    private let countBooks: @Sendable () throws(SQLiteCatalogError) -> Int
    /// Where the search index stands: the one to search with, the preparation loading or
    /// building one, a catch-up away from the actor (`IndexLifecycle`). Changed only through
    /// `transition(_:)`.
    private(set) var lifecycle: IndexLifecycle
    /// Word searches' matching rows, and a copy of the table, while there is no index to answer (`RecentScans`).
    let recentScans: RecentScans
    let titleOrder = TitleOrderPage()
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
        self.skippedStrategies = skippedStrategies
        self.warmsBroadPrefixes = warmsBroadPrefixes
        self.account = account
        self.catalogPath = catalogPath
        self.busyTimeout = busyTimeout
        self.beforeIndexBuild = beforeIndexBuild
        searchSource = SQLiteSearchSource(connection: connection, scope: account.scope, catalogPath: catalogPath)
        sourceOpener = SQLiteSearchSourceOpener(path: catalogPath, busyTimeout: busyTimeout, scope: account.scope)
        self.beforeCatchUp = beforeCatchUp
        recentScans = RecentScans(memory: BuildMemory(besideCatalog: catalogPath))
        self.seenDataVersion = (try? connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
        self.seenState = (try? CatalogState(connection)) ?? CatalogState(sequence: -1, accounts: "")
        lifecycle = IndexLifecycle(
            preparing: IndexPreparation.start(
                sourceOpener, scope: account.scope, beforeBuild: beforeIndexBuild,
                warmsBroadPrefixes: warmsBroadPrefixes))
    }

    // Isolated: the lifecycle holds the index, which only this actor touches.
    isolated deinit { lifecycle.preparation?.cancel() }

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
        try await answer(query).page
    }

    /// The page `search` gives, and which strategy answered it (`SearchStrategy`, in the order
    /// they are asked): for benchmarks and tests.
    public func answer(_ query: SearchQuery) async throws -> SearchAnswer {
        let terms = SearchTerms(query.text)
        var plan = SearchPlan(skipping: skippedStrategies)
        if !terms.isEmpty {
            // A page before its count waits neither for an index to be loaded (a stale one is
            // counted first) nor for many changes to be caught up with, which are read away
            // from this actor; other pages wait for the latter (the index answers them).
            if lifecycle.index == nil, let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) {
                return answer
            }
            if lifecycle.runningCatchUp == nil, let index = await indexIfReady(), lifecycle.runningCatchUp == nil,
                try mappingFailures(at: catalogPath, { try hasManyChanges(since: index.syncedSequence) })
            {
                startCatchUp(index)
            }
            if lifecycle.runningCatchUp != nil {
                if let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) { return answer }
                while let catchingUp = lifecycle.runningCatchUp { await catchingUp.value }
            }
        }
        // The empty query (the first results) does not wait for a stored index to be mapped
        // and checked either (a third of a second at ten million books): see `firstResults`.
        let index = terms.isEmpty && lifecycle.index == nil ? nil : await indexIfReady()
        if foundDamage { throw CatalogDamage.failure(path: catalogPath) }
        return try mappingFailures(at: catalogPath) {
            // One read transaction: the index catches up to, and the page rows are read from,
            // the same snapshot.
            try connection.transaction(immediate: false) {
                let sequence = try latestChange()
                // The last strategy, the books table, always answers.
                let found = try firstAnswer(of: plan.takeTheRest(), terms, query, index: index, at: sequence)!
                do {
                    return SearchAnswer(page: try page(found, terms, query), source: found.source)
                } catch is SearchIndexDamage {
                    // In one read snapshot every id the index names is a book: this index was
                    // crafted or damaged where no checksum looks. Never trust it again.
                    distrustIndex()
                    let found = try withoutIndex(terms, query)
                    return SearchAnswer(
                        page: try page(ids: found.ids, total: found.total, query: query, whileIndexing: !terms.isEmpty),
                        source: .booksTable)
                }
            }
        }
    }

    /// The same search answered without the index, as while one is being built: for tests
    /// and benchmarks that compare both ways.
    public func searchWithoutIndex(_ query: SearchQuery) async throws -> SearchPage {
        try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: false) {
                let found = try withoutIndex(SearchTerms(query.text), query)
                return try page(ids: found.ids, total: found.total, query: query)
            }
        }
    }

    /// The answer from the books table alone, the books of an ISBN query first (`ISBNFirst`),
    /// in the caller's read transaction. (The books table always answers, so this does too.)
    private func withoutIndex(_ terms: SearchTerms, _ query: SearchQuery) throws -> StrategyAnswer {
        try ISBNFirst.answer(terms, query, source: searchSource) { query in
            StrategyAnswer(
                try BooksTableSearch(source: searchSource)
                    .search(terms, offset: query.offset, limit: query.limit))
        }!
    }

    /// The page alone, its count to follow, from the first of `strategies` that gives it, in a
    /// read transaction of its own: before the index is loaded, or while it catches up away
    /// from this actor. Nil when they all decline, when there are none (they were asked
    /// already), or when the query wants its count now.
    private func pageBeforeItsCount(_ strategies: [SearchStrategy], _ terms: SearchTerms, _ query: SearchQuery) throws
        -> SearchAnswer?
    {
        guard query.countLater, !strategies.isEmpty else { return nil }
        return try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: false) {
                guard let found = try firstAnswer(of: strategies, terms, query, index: nil, at: latestChange()) else {
                    return nil
                }
                return SearchAnswer(page: try page(found, terms, query), source: found.source)
            }
        }
    }

    /// The page of a strategy's answer: a search index's ids must all be books, a word query
    /// answered without one says so, and a page alone says its count follows.
    private func page(_ found: StrategyAnswer, _ terms: SearchTerms, _ query: SearchQuery) throws -> SearchPage {
        try page(
            ids: found.ids, total: found.total, query: query, namedByIndex: found.source.isIndex,
            whileIndexing: !found.source.isIndex && !terms.isEmpty, countFollows: found.source.countFollows)
    }

    /// A book's title key as stored now, for placing changed books among an index's matches.
    func titleKey(_ id: Int) throws -> [UInt8]? {
        try searchSource.titleKey(of: id)
    }

    /// Drops the index in use and rebuilds one from the books table alone (no stored snapshot).
    func distrustIndex() {
        lifecycle.preparation?.cancel()
        transition(
            .distrusted(
                rebuild: IndexPreparation.start(
                    sourceOpener, scope: account.scope, useSnapshot: false,
                    beforeBuild: beforeIndexBuild, warmsBroadPrefixes: warmsBroadPrefixes)))
    }

    /// The preparation under way, if any: a search answered by an index while it builds holds it back.
    var preparation: IndexPreparation? { lifecycle.preparation }

    /// Moves the lifecycle on. The remote fires only events its own state allows, so a refusal
    /// is a mistake in this file: it stops a debug build, and a release build keeps the
    /// lifecycle as it was.
    private func transition(_ event: IndexLifecycle.Event) {
        do { lifecycle = try lifecycle.after(event) } catch { assertionFailure(error.description) }
    }

    /// The rows of `ids`. An id with no book of this scope is `SearchIndexDamage` when an index
    /// named it, and a malformed answer otherwise. `whileIndexing`: a word query answered from
    /// the books table because the index is being built (the list of all books is quick there).
    /// `countFollows`: `total` is the matches seen so far (`TotalCount.counting`).
    private func page(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool = false,
        whileIndexing: Bool = false, countFollows: Bool = false
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

    /// Replays the changes up to `sequence` into `index`; false when there are too many for its
    /// overlay (a replacement is then prepared, and searches go without an index until it is
    /// ready). Starts building a replacement in the background once the overlay is half full.
    func catchUp(_ index: SearchIndex, to sequence: Int) throws -> Bool {
        guard try index.catchUp(from: searchSource, sequence: sequence) else {
            if lifecycle.preparation == nil { startPreparation() }
            return false
        }
        caughtUp(index)
        return true
    }

    /// A bridge, or an index whose overlay is half full, asks for its replacement.
    private func caughtUp(_ index: SearchIndex) {
        if (index.isBridge || index.overlayCount * SearchTuning.overlayShareBeforeReplacing > index.overlayLimit)
            && lifecycle.preparation == nil
        {
            startPreparation()
        }
    }

    /// The catalog's latest `change_seq`, as of the current read transaction.
    private func latestChange() throws -> Int {
        try searchSource.latestChange()
    }

    private func hasManyChanges(since sequence: Int) throws -> Bool {
        let limit = SearchTuning.backgroundCatchUpRows + 1
        return try searchSource.changeCount(since: sequence, upTo: limit) == limit
    }

    /// Reads the changes `index` must catch up with on a connection of its own, away from this
    /// actor, then replays them here in a moment (`SearchIndex.Changes`): a stale stored index
    /// bridging a rebuild may have hundreds of thousands (2.5 s at ten million books), and the
    /// keys typed meanwhile get their pages from the title order. Only this actor ever changes
    /// the index; changes read before another catch-up replayed are dropped (`apply`).
    private func startCatchUp(_ index: SearchIndex) {
        let (opener, hook) = (sourceOpener, beforeCatchUp)
        let (base, since, room) = (index.base, index.syncedSequence, index.overlayRoom)
        // A thread of its own: the read blocks it for as long as it takes.
        let read = { @Sendable () throws -> SearchIndex.Changes? in
            hook?()
            let source = try opener.openSource()
            return try source.inOneRead {
                try SearchIndex.changes(
                    base: base, since: since, room: room, from: source, sequence: try source.latestChange())
            }
        }
        let task = Task {
            defer { transition(.catchUpFinished) }
            let result = await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Result { try read() })
                }
            }
            guard lifecycle.index === index else { return }  // replaced or distrusted meanwhile
            switch result {
            case let .success(changes?):
                if index.apply(changes) { caughtUp(index) }
            case .success(nil):
                if lifecycle.preparation == nil { startPreparation() }
            case .failure(is SearchIndexDamage):
                distrustIndex()
            case .failure:
                break  // the next search catches up itself, and reports what fails
            }
        }
        // The task runs on this actor, so it cannot finish before this.
        transition(.catchUpStarted(task))
    }

    /// Schedules a catch-up for once the current call is done, unless one is scheduled or running.
    func catchUpSoon() {
        guard case .idle = lifecycle.catchUp else { return }
        transition(.catchUpScheduled)
        Task { await self.catchUpNow() }
    }

    /// Catches the index up with the catalog in the background (`startCatchUp`): the index in
    /// use, or the one a stored snapshot gives (a stale one bridging a rebuild is caught up too).
    private func catchUpNow() async {
        let index = await indexIfReady()
        // A search may have started one meanwhile.
        guard case .scheduled = lifecycle.catchUp else { return }
        if let index { startCatchUp(index) } else { transition(.scheduledCatchUpDropped) }
    }

    /// The index to search with, without waiting for a build: a finished preparation is
    /// settled first. With no index yet, waits only for the stored snapshot to be tried.
    private func indexIfReady() async -> SearchIndex? {
        if lifecycle.index == nil, let preparation = lifecycle.preparation { await preparation.attemptedLoad() }
        settleFinishedPreparation()
        if case let .preparing(preparation) = lifecycle.stage, let bridge = preparation.bridge {
            transition(.bridgeFound(bridge))
        }
        return lifecycle.index
    }

    /// The index installed from a finished preparation (not a bridge), waiting for the one under
    /// way, or for a new one when none is.
    private func installedIndex() async throws -> InstalledIndex {
        while true {
            if lifecycle.installed != nil { settleFinishedPreparation() }
            if let installed = lifecycle.installed { return installed }
            let current = lifecycle.preparation ?? startPreparation()
            do {
                let prepared = try await current.value()
                // Another call may have settled it meanwhile, or a distrust replaced it.
                if lifecycle.preparation === current { transition(.prepared(prepared, by: current)) }
            } catch {
                if lifecycle.preparation === current { transition(.preparationFailed(current)) }
                throw Self.failure(preparing: error, at: catalogPath)
            }
        }
    }

    /// Installs the preparation under way if it has finished with an index newer than the one in
    /// use, or forgets it: a failed one is retried by the next wait for an index.
    private func settleFinishedPreparation() {
        guard let preparation = lifecycle.preparation, let finished = preparation.finished else { return }
        switch finished {
        case let .success(prepared):
            transition(.prepared(prepared, by: preparation))
        case let .failure(error):
            if CatalogDamage.isDamage(error) { foundDamage = true }
            transition(.preparationFailed(preparation))
        }
    }

    @discardableResult
    private func startPreparation() -> IndexPreparation {
        let preparation = IndexPreparation.start(
            sourceOpener, scope: account.scope,
            beforeBuild: beforeIndexBuild, warmsBroadPrefixes: warmsBroadPrefixes)
        transition(.started(preparation))
        return preparation
    }

    /// What a search reports for a preparation that failed.
    private static func failure(preparing error: any Error, at catalogPath: String) -> BookFailure {
        if let failure = error as? BookFailure { return failure }
        if CatalogDamage.isDamage(error) { return CatalogDamage.failure(path: catalogPath) }
        if let failure = error as? SQLiteError { return failure.bookFailure(catalogPath: catalogPath) }
        if let failure = error as? SQLiteCatalogError { return BookFailure.storeUnavailable(failure.description) }
        return BookFailure.storeUnavailable(String(describing: error))
    }

    /// Waits until the index being built (if any) is built and stored: for a program about to
    /// exit after searches answered without it, so that the next program finds a current index.
    public func finishIndexPreparation() async {
        guard let preparation = lifecycle.preparation else { return }
        do { _ = try await preparation.value() } catch  where CatalogDamage.isDamage(error) { foundDamage = true } catch
        {}
    }

    /// Set once reading the catalog (an index build above all, which reads every row) found it
    /// damaged: from then on every search fails, rather than answer from the parts still readable.
    private var foundDamage = false

    /// Why the catalog cannot be trusted, once a read found it damaged: for a program that
    /// answered before the index build that found it had finished (the answer was then partial).
    public var catalogDamage: String? { foundDamage ? CatalogDamage.explanation(path: catalogPath) : nil }

    /// How the search index in use was obtained, waiting until there is one, and whether this
    /// remote built it and stored it in the catalog for the next connection.
    public func searchIndexReport() async throws -> (report: SearchIndexReport, snapshotStored: Bool) {
        let prepared = try await installedIndex().prepared
        return (prepared.report, prepared.snapshotStored)
    }

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
