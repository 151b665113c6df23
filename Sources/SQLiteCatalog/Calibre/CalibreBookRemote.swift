import BookCatalog
import CSQLite

/// One session on a Calibre library in place. A book's revision is its `last_modified`
/// (`CalibreTimestamp`); a save is a compare-and-set on it, in one transaction taken under
/// calibre's own single-instance lock, so that calibre, `calibre-server` and `calibredb`
/// cannot start writing in the middle of it, and refused while one of them holds the lock.
///
/// Searching reads every book and matches them by `SearchTerms`, as the in-memory store does,
/// on a copy kept until another program commits (`PRAGMA data_version`): the search engine of
/// Bookshelf's own catalogs does not index another program's file yet.
public actor CalibreBookRemote: SearchableBookRemote, ChangeDetectingRemote, AccountAwareRemote {
    public nonisolated let account: Account
    private let database: CalibreDatabase
    private let file: String
    private let readOnly: String?
    /// calibre's lock (`CalibreInstanceLock.name`); another name only in tests.
    private let lockName: String
    private var books: [BookRecord]?
    private var seenDataVersion: Int

    init(
        database: CalibreDatabase, file: String, account: Account, readOnly: String?,
        lockName: String = CalibreInstanceLock.name
    ) {
        self.database = database
        self.lockName = lockName
        self.file = file
        self.account = account
        self.readOnly = readOnly
        seenDataVersion = (try? database.connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
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
        books = nil
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

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        let terms = SearchTerms(query.text)
        let all = try currentBooks()
        let matching = terms.matchesEverything ? all : all.filter(terms.matches)
        let ordered =
            terms.isEmpty
            ? matching
            : matching.sorted { terms.sortKey($0) < terms.sortKey($1) }
        let page = Array(ordered.dropFirst(query.offset).prefix(query.limit))
        let hasMore = query.offset + page.count < ordered.count
        return SearchPage(
            records: page,
            totalCount: TotalCount(
                counted: min(ordered.count, SearchPage.exactCountLimit + 1), offset: query.offset, shown: page.count,
                hasMore: hasMore))
    }

    /// Every book, in title order (folded, then id), re-read when another program committed.
    private func currentBooks() throws -> [BookRecord] {
        let version = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try reader().rows(of: "its data version", "PRAGMA data_version") { $0.int(0) }.first ?? 0
        }
        if version != seenDataVersion { books = nil }
        seenDataVersion = version
        if let books { return books }
        let read = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try CalibreBooks.read(reader()).records
        }
        let ordered = read.map { (SearchTerms.fold($0.title), $0) }.sorted {
            ($0.0, $0.1.id) < ($1.0, $1.1.id)
        }.map(\.1)
        books = ordered
        return ordered
    }

    // MARK: ChangeDetectingRemote

    public func checkForChanges() async throws -> ChangeNotice? {
        let version = try unavailableOnFailure { () throws(CalibreLibrary.Failure) in
            try reader().rows(of: "its data version", "PRAGMA data_version") { $0.int(0) }.first ?? 0
        }
        guard version != seenDataVersion else { return nil }
        seenDataVersion = version
        books = nil
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
    /// How many books the library shows (those whose title and author can be read).
    public func bookCount() throws -> Int { try currentBooks().count }
}
