import BookCatalog
import CSQLite
import Foundation
import SearchEngine

/// One session on a Calibre library in place. A book's revision is its `last_modified`
/// (`CalibreTimestamp`); a save is a compare-and-set on it, in one transaction taken under
/// calibre's own single-instance lock, so that calibre, `calibre-server` and `calibredb`
/// cannot start writing in the middle of it, and refused while one of them holds the lock.
///
/// Searching is the search engine's (`SearchEngine`), over the library through
/// `CalibreSearchSource`: its index lives in the user's cache, keyed by the library's uuid,
/// and catches up with calibre's changes (additions, edits, deletions) as with this session's.
public actor CalibreBookRemote: SearchableBookRemote, ChangeDetectingRemote, AccountAwareRemote, SearchEngineHost,
    BatchRecordingRemote, HistoryKeepingRemote
{
    public nonisolated let account: Account
    private let database: CalibreDatabase
    private let file: String
    private let readOnly: String?
    /// calibre's lock (`CalibreInstanceLock.name`); another name only in tests.
    private let lockName: String
    private var seenDataVersion: Int
    /// The engine's source on this remote's connection: told of this session's own saves.
    private let source: CalibreSearchSource
    package let searchEngine: SearchEngine
    /// Bookshelf's record of its saves and batches here (`CalibreSaveLog`), or nil, and why.
    private let log: CalibreSaveLog?
    private let logProblem: String?

    init(
        database: CalibreDatabase, file: String, account: Account, readOnly: String?, place: CalibreIndexPlace,
        lockName: String = CalibreInstanceLock.name, keepsBroadAnswers: Bool = true, log: CalibreSaveLog? = nil,
        logProblem: String? = nil, buildPaging: CalibreBuildPaging = .init()
    ) throws {
        self.database = database
        self.log = log
        self.logProblem = logProblem
        self.lockName = lockName
        self.file = file
        self.account = account
        self.readOnly = readOnly
        seenDataVersion = (try? database.connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
        source = try CalibreSearchSource(database: database, file: file, place: place)
        searchEngine = SearchEngine(
            source: source, opener: CalibreSearchSourceOpener(file: file, place: place, paging: buildPaging),
            scope: CalibreIndexPlace.scope, keepsBroadAnswers: keepsBroadAnswers)
    }

    /// A reader whose work is metered for one call: a library's rows bound what a call may cost.
    private func reader() -> CalibreReader {
        CalibreReader(database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: database.bytes))
    }

    // MARK: BookRemote

    public func load(id: Int) async throws -> BookRecord {
        let found = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try CalibreBooks.read(reader(), book: id).records.first
        }
        guard let found else { throw BookFailure.missing }
        return found
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ unchecked: SaveRequest) async throws -> BookRecord {
        try saveOne(unchecked, batch: nil)
    }

    private func saveOne(_ unchecked: SaveRequest, batch: BatchID?) throws -> BookRecord {
        let request = try unchecked.validated()
        switch try underLock({ () throws(CalibreLibrary.Failure) in try commit([request], batch: batch) }) {
        case let .success(committed): return committed.records[0]
        case let .failure(refusals): throw refusals.reasons[request.id] ?? BookFailure.invalidResponse
        }
    }

    /// Runs `body` holding calibre's lock: refused while calibre holds it, or while nothing
    /// may be written here.
    private func underLock<T>(_ body: () throws(CalibreLibrary.Failure) -> T) throws -> T {
        if let readOnly { throw BookFailure.storeUnavailable(readOnly) }
        let lock: CalibreInstanceLock.Held
        switch CalibreInstanceLock.take(name: lockName) {
        case let .taken(held): lock = held
        case .heldByCalibre: throw BookFailure.storeUnavailable(CalibreLibraryStore.calibreIsRunning)
        case let .unknown(reason): throw BookFailure.storeUnavailable(reason)
        }
        // This connection's own commit does not move its data version: the source must look.
        defer { source.forgetState() }
        return try withExtendedLifetime(lock) { try unavailableOnFailure(body) }
    }

    /// Saves refused in a transaction that wrote none of them, by book id.
    struct Refusals: Error {
        let reasons: [Int: BookFailure]
    }

    /// `requests` written in one transaction of calibre's, each a compare-and-set against the
    /// book as the transaction found it, or none of them (the refusals). Each save is in the
    /// save log (`CalibreSaveLog`), pending before calibre commits and marked after, in `batch`
    /// or, for `newBatch`, a batch made with the rows. Called holding calibre's lock.
    private func commit(_ requests: [SaveRequest], batch: BatchID?, newBatch: BatchStart? = nil)
        throws(CalibreLibrary.Failure) -> Result<(records: [BookRecord], batch: BatchID?), Refusals>
    {
        let connection = database.connection
        var pending: (rows: [Int], batch: BatchID?)?
        do {
            let saved = try connection.transaction(immediate: true) { () throws -> [BookRecord] in
                // Every book as the transaction found it, before any write: a write may touch
                // another book of the same transaction (a tag's new case renames it for all).
                var found: [BookRecord] = []
                var refused: [Int: BookFailure] = [:]
                for request in requests {
                    guard let stored = try CalibreBooks.read(reader(), book: request.id).records.first else {
                        refused[request.id] = .missing
                        continue
                    }
                    if stored.revision != request.expectedRevision {
                        refused[request.id] = .conflict(expected: request.expectedRevision, actual: stored.revision)
                    }
                    found.append(stored)
                }
                guard refused.isEmpty else { throw Refusals(reasons: refused) }
                var saves: [CalibreSaveLog.Save] = []
                for (request, before) in zip(requests, found) {
                    let reader = reader()
                    guard let stored = try CalibreBooks.read(reader, book: request.id).records.first else {
                        throw Refusals(reasons: [request.id: .missing])
                    }
                    let write = CalibreBookWrite(reader: reader, book: request.id)
                    let others = try write.write(request, over: stored)
                    // A later time than the stored one, whatever the clock says: a revision only grows.
                    let stamp = max(CalibreTimestamp.now(), stored.revision + 1)
                    try write.touch(others.union([request.id]), at: stamp)
                    guard let after = try CalibreBooks.read(reader, book: request.id).records.first else {
                        throw Refusals(reasons: [request.id: .missing])
                    }
                    saves.append(CalibreSaveLog.Save(before: before, after: after, operation: request.operation))
                }
                if let log {
                    pending = try log.recordPending(saves, account: account.name, batch: batch, newBatch: newBatch)
                }
                return saves.map(\.after)
            }
            // A mark not written leaves the rows pending: settled as committed when next read.
            if let log, let pending { try? log.markCommitted(pending.rows) }
            return .success((saved, pending?.batch ?? batch))
        } catch let refusals as Refusals {
            return .failure(refusals)
        } catch {
            // calibre's commit failed after the rows were written: they never happened.
            if let log, let pending {
                try? log.forget(pending.rows, batch: newBatch == nil ? nil : pending.batch)
            }
            if let failure = error as? CalibreLibrary.Failure { throw failure }
            throw CalibreLibrary.Failure(description: "cannot write the Calibre library \(file): \(error)")
        }
    }

    // MARK: BatchRecordingRemote

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        if let readOnly { throw BookFailure.storeUnavailable(readOnly) }
        let log = try requireLog()
        return try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try logged { try log.beginBatch(start, account: account.name) }
        }.get()
    }

    public func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        let log = try requireLog()
        let owned = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try logged { try log.owns(batch, account: account.name) }
        }
        guard owned else { throw BookFailure.notAllowed }
        return try saveOne(request, batch: batch)
    }

    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        let clean = try requests.map { try $0.validated() }
        guard Set(clean.map(\.id)).count == clean.count else { throw BookFailure.invalidResponse }
        _ = try requireLog()
        if let undone = start.undoes, try await revisionsOrNil(ofBatch: undone) == nil { throw BookFailure.missing }
        switch try underLock({ () throws(CalibreLibrary.Failure) in try commit(clean, batch: nil, newBatch: start) }) {
        case let .success(committed):
            guard let batch = committed.batch else { throw BookFailure.invalidResponse }
            return .committed(batch, committed.records)
        case let .failure(refusals):
            return .refused(refusals.reasons)
        }
    }

    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        guard let found = try await revisionsOrNil(ofBatch: batch) else { throw BookFailure.missing }
        return found
    }

    private func revisionsOrNil(ofBatch batch: BatchID) async throws -> [BatchRevision]? {
        let log = try requireLog()
        try settlePending(
            in: log,
            books: try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
                try logged { try log.pendingBooks(ofBatch: batch) }
            })
        let entries = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try logged { try log.saves(ofBatch: batch) }
        }
        return entries?.map { BatchRevision(before: $0.before, after: $0.after) }
    }

    // MARK: HistoryKeepingRemote

    /// What Bookshelf saved of the book (each save's before and after), and the book as it is
    /// now. calibre keeps no history: a revision no save of Bookshelf's made is a change made
    /// in calibre (or before the log began), with no account, at its `last_modified`.
    public func history(of id: Int) async throws -> [BookRevision] {
        let current = try await load(id: id)
        var known: [Int: BookRevision] = [:]
        if let log {
            try settlePending(in: log, books: [id])
            let entries = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
                try logged { try log.saves(of: id) }
            }
            for entry in entries {
                if known[entry.before.revision] == nil {
                    known[entry.before.revision] = Self.changedInCalibre(entry.before)
                }
                known[entry.after.revision] = BookRevision(
                    record: entry.after, account: entry.account, savedAt: entry.savedAt, operation: entry.operation,
                    batch: entry.batch)
            }
        }
        if known[current.revision] == nil { known[current.revision] = Self.changedInCalibre(current) }
        return known.values.filter { $0.revision > 0 }.sorted { $0.revision > $1.revision }
    }

    /// A revision as calibre's `last_modified` dates it, no account's.
    private static func changedInCalibre(_ record: BookRecord) -> BookRevision {
        BookRevision(
            record: record, account: nil, savedAt: Date(timeIntervalSince1970: Double(record.revision) / 1_000_000),
            operation: nil)
    }

    /// Settles the log's pending rows of `books`, if calibre's lock can be taken now (a save
    /// holds it from its pending row to its mark); otherwise they wait, not shown.
    private func settlePending(in log: CalibreSaveLog, books ids: [Int]) throws {
        guard !ids.isEmpty, readOnly == nil, case let .taken(lock) = CalibreInstanceLock.take(name: lockName) else {
            return
        }
        try withExtendedLifetime(lock) {
            for id in ids {
                let current = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
                    try CalibreBooks.read(reader(), book: id).records.first
                }
                try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
                    try logged { try log.settle(book: id, current: current) }
                }
            }
        }
    }

    private func requireLog() throws(BookFailure) -> CalibreSaveLog {
        guard let log else { throw BookFailure.storeUnavailable(logProblem ?? "no save log for this library") }
        return log
    }

    /// The log's failures as the library's, naming its file.
    private func logged<T>(_ body: () throws -> T) throws(CalibreLibrary.Failure) -> T {
        do {
            return try body()
        } catch let failure as BookFailure {
            throw CalibreLibrary.Failure(description: failure.description)
        } catch {
            throw CalibreLibrary.Failure(
                description: "cannot use Bookshelf's record of this library \(log?.file ?? ""): \(error)")
        }
    }

    // MARK: SearchableBookRemote

    /// Answered by the search engine: from its index once it is loaded or built, and from the
    /// library's books meanwhile (the same answer more slowly). The page says which way
    /// answered (`SearchPage.source`), as for Bookshelf's own catalog.
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearch(query)
    }

    /// Waits until the index being built (if any) is built and stored in the cache: for a
    /// program about to exit, so that the next one finds a current index.
    public func finishIndexPreparation() async {
        await finishPreparingIndex()
    }

    /// How the search index in use was obtained, waiting until there is one.
    public func searchIndexReport() async throws -> (report: SearchIndexReport, snapshotStored: Bool) {
        try await installedIndexReport()
    }

    // MARK: SearchEngineHost

    /// The books of `ids`, in order, read in the search's read of the library.
    package func pageRows(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool, whileIndexing: Bool, countFollows: Bool
    ) throws -> SearchPage {
        let read = try CalibreBooks.read(reader(), books: ids).records
        let byID = Dictionary(read.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let records = try ids.map { id in
            guard let record = byID[id] else {
                guard namedByIndex else { throw CatalogDamage("the library lacks book \(id), which it listed") }
                throw SearchIndexDamage("the index names book \(id), which the library does not have")
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

    package func mappingSourceFailures<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as CalibreLibrary.Failure {
            throw BookFailure.storeUnavailable(failure.description)
        } catch let damage as CatalogDamage {
            throw BookFailure.storeUnavailable("the Calibre library \(file) is damaged: \(damage.reason)")
        } catch let error as SQLiteError {
            throw BookFailure.storeUnavailable("cannot read the Calibre library \(file): \(error)")
        }
    }

    package func failure(preparing error: any Error) -> BookFailure {
        if let failure = error as? BookFailure { return failure }
        return BookFailure.storeUnavailable("cannot index the Calibre library \(file): \(error)")
    }

    package func damageFailure() -> BookFailure { BookFailure.storeUnavailable(damageExplanation()) }

    package func damageExplanation() -> String {
        "the Calibre library \(file) is damaged; open it in calibre and run its Check library"
    }

    package func isDamage(_ error: any Error) -> Bool { error is CatalogDamage }

    // MARK: ChangeDetectingRemote

    public func checkForChanges() async throws -> ChangeNotice? {
        let version = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try reader().rows(of: "its data version", "PRAGMA data_version") { $0.int(0) }.first ?? 0
        }
        guard version != seenDataVersion else {
            // Searches answered behind calibre's many changes (`indexBehind`) showed the books as
            // they stood: once the index has caught up, they are to be asked again.
            return try await caughtUpAfterAnsweringBehind() ? .unspecified : nil
        }
        seenDataVersion = version
        return .unspecified
    }

    /// The library's failures as the store's: unavailable, with the reason.
    private func unavailableOnFailure<T>(_ body: () throws(CalibreLibrary.Failure) -> T) throws(BookFailure) -> T {
        do {
            return try body()
        } catch {
            throw BookFailure.storeUnavailable(error.description)
        }
    }
}

extension CalibreBookRemote {
    /// How many books the library holds: its books table's rows, counted without mapping them
    /// (a book whose title or author is not text, which searches leave out, is counted).
    public func bookCount() async throws -> Int {
        try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try reader().rows(of: "its books table", "SELECT count(*) FROM books") { $0.int(0) }.first ?? 0
        }
    }
}
