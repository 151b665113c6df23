import BookCatalog
import CSQLite
import SearchEngine

/// One session on a Calibre library in place. A book's revision is its `last_modified`
/// (`CalibreTimestamp`); a save is a compare-and-set on it, in one transaction taken under
/// calibre's own single-instance lock, so that calibre, `calibre-server` and `calibredb`
/// cannot start writing in the middle of it, and refused while one of them holds the lock.
///
/// Searching is the search engine's (`SearchEngine`), over the library through
/// `CalibreSearchSource`: its index lives in the user's cache, keyed by the library's uuid,
/// and catches up with calibre's changes (additions, edits, deletions) as with this session's.
public actor CalibreBookRemote: SearchableBookRemote, ChangeDetectingRemote, AccountAwareRemote, SearchEngineHost {
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

    init(
        database: CalibreDatabase, file: String, account: Account, readOnly: String?, place: CalibreIndexPlace,
        lockName: String = CalibreInstanceLock.name, warmsBroadPrefixes: Bool = true
    ) throws {
        self.database = database
        self.lockName = lockName
        self.file = file
        self.account = account
        self.readOnly = readOnly
        seenDataVersion = (try? database.connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
        source = try CalibreSearchSource(database: database, file: file, place: place)
        searchEngine = SearchEngine(
            source: source, opener: CalibreSearchSourceOpener(file: file, place: place),
            scope: CalibreIndexPlace.scope, warmsBroadPrefixes: warmsBroadPrefixes)
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
        let request = try unchecked.validated()
        if let readOnly { throw BookFailure.storeUnavailable(readOnly) }
        let lock: CalibreInstanceLock.Held
        switch CalibreInstanceLock.take(name: lockName) {
        case let .taken(held): lock = held
        case .heldByCalibre: throw BookFailure.storeUnavailable(CalibreLibraryStore.calibreIsRunning)
        case let .unknown(reason): throw BookFailure.storeUnavailable(reason)
        }
        let outcome: Result<BookRecord, BookFailure> = try withExtendedLifetime(lock) {
            try unavailableOnFailure { () throws(CalibreLibrary.Failure) in try committed(request) }
        }
        // This connection's own commit does not move its data version: the source must look.
        source.forgetState()
        return try outcome.get()
    }

    private func committed(_ request: SaveRequest) throws(CalibreLibrary.Failure) -> Result<BookRecord, BookFailure> {
        let connection = database.connection
        do {
            return try connection.transaction(immediate: true) { () throws -> Result<BookRecord, BookFailure> in
                let reader = reader()
                guard let stored = try CalibreBooks.read(reader, book: request.id).records.first else {
                    return .failure(.missing)
                }
                guard stored.revision == request.expectedRevision else {
                    return .failure(.conflict(expected: request.expectedRevision, actual: stored.revision))
                }
                let write = CalibreBookWrite(reader: reader, book: request.id)
                let others = try write.write(request, over: stored)
                // A later time than the stored one, whatever the clock says: a revision only grows.
                let stamp = max(CalibreTimestamp.now(), stored.revision + 1)
                try write.touch(others.union([request.id]), at: stamp)
                guard let saved = try CalibreBooks.read(reader, book: request.id).records.first else {
                    return .failure(.missing)
                }
                return .success(saved)
            }
        } catch let failure as CalibreLibrary.Failure {
            throw failure
        } catch {
            throw CalibreLibrary.Failure(description: "cannot write the Calibre library \(file): \(error)")
        }
    }

    // MARK: SearchableBookRemote

    /// Answered by the search engine: from its index once it is loaded or built, and from the
    /// library's books meanwhile (the same answer more slowly).
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        try await answerSearch(query).page
    }

    /// The page `search` gives, and what answered it: for benchmarks and tests.
    public func answer(_ query: SearchQuery) async throws -> SearchAnswer {
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
        guard version != seenDataVersion else { return nil }
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
