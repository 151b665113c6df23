import BookCatalog
import Foundation
import SearchEngine

/// The search engine's source (`SearchSource`) over a Calibre library's `metadata.db`, read in
/// place with the store's limits (`CalibreReader`: tables only, bounded work) and never written.
/// calibre's tables hold none of the forms the engine indexes, so the books are mapped as the
/// store maps them (`CalibreBooks`) and their forms made here (`CalibreBookTexts`), and calibre
/// keeps no change counter, so the change marker is the cache's (`CalibreChangeLedger`): it
/// moves when another program's commit (`PRAGMA data_version`) or this session's own save
/// changed the books (`last_modified`, the count, the ids).
///
/// The index file and its record are in the user's cache folder, named by the library's
/// uuid (`library_id`), never in the library's folder, which calibre alone manages.
final class CalibreSearchSource: SearchSource {
    private let database: CalibreDatabase
    private let file: String
    private let ledger: CalibreChangeLedger
    let indexFilePath: String
    let scratchFolder: String?
    let canStoreIndex = true
    /// calibre's tables hold no title key: the title order is made from every book's forms.
    let titleOrderReadsEveryBook = true
    /// The library's file: the index is as private as the library.
    var indexFileTakesModeOf: String? { file }

    /// `PRAGMA data_version` when the marker was last made, and the marker: the marker is made
    /// again only when the version moves (another connection committed) or after `forgetState`.
    private var seenDataVersion: Int?
    private var knownSequence: Int?
    /// Every book's forms, as of a marker, once a read of many books needed them.
    private var texts: (sequence: Int, books: CalibreBookTexts)?
    /// The state an index build reads (`readingEveryBook`): its marker and every book's forms,
    /// answered without a read of the library while the build runs.
    private var building: (sequence: Int, books: CalibreBookTexts)?
    /// How a build reads every book: in pages of ids, each in a read of its own.
    private let paging: CalibreBuildPaging

    init(database: CalibreDatabase, file: String, place: CalibreIndexPlace, paging: CalibreBuildPaging = .init()) throws
    {
        self.database = database
        self.file = file
        self.paging = paging
        ledger = try CalibreChangeLedger.open(path: place.ledgerPath, library: place.libraryID)
        indexFilePath = place.indexPath
        scratchFolder = place.folder
    }

    /// A reader whose work is metered for one call, as the store's.
    private func reader() -> CalibreReader {
        CalibreReader(database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: database.bytes))
    }

    /// This session wrote the library: its own commits do not move its connection's data version.
    func forgetState() {
        knownSequence = nil
    }

    func inOneRead<T>(_ body: () throws -> T) throws -> T {
        try database.connection.transaction(immediate: false, body)
    }

    /// calibre's database is in SQLite's rollback journal, where a read holds every writer's
    /// commit off until it ends: calibre's own saves wait out their busy timeout behind it and
    /// fail with "database is locked". So a build does not read in one read as long as it is:
    /// the marker is taken in a short read, then every book is read in pages of ids, each page
    /// in a read of its own, and the build runs over what they read with no read open. A book
    /// calibre changes, adds or removes meanwhile is read in its page as it then is (or not at
    /// all); either way the change moves the books past the marker (`CalibreChangeLedger`), and
    /// the index's catch-up from the marker reads it again.
    func readingEveryBook<T>(_ body: () throws -> T) throws -> T {
        let sequence = try inOneRead { try latestChange() }
        var records: [BookRecord] = []
        var after = 0
        while true {
            let page = try inOneRead { () throws -> (ids: [Int], records: [BookRecord]) in
                let reader = reader()
                let ids = try reader.rows(
                    of: "its books table", "SELECT id FROM books WHERE id > ?1 ORDER BY id LIMIT ?2",
                    [.int(after), .int(paging.books)]
                ) { $0.int(0) }
                return (ids, ids.isEmpty ? [] : try CalibreBooks.read(reader, books: ids).records)
            }
            guard let last = page.ids.last else { break }
            records += page.records
            after = last
            paging.betweenPages?()
        }
        building = (sequence, CalibreBookTexts(records))
        defer { building = nil }
        return try body()
    }

    func latestChange() throws -> Int {
        if let building { return building.sequence }
        let reader = reader()
        let version = try reader.rows(of: "its data version", "PRAGMA data_version") { $0.int(0) }.first ?? 0
        if version == seenDataVersion, let knownSequence { return knownSequence }
        let fingerprint = CalibreFileStamp.read(database.connection, path: file)
        let sequence = try ledger.sync(fingerprint: fingerprint) {
            try reader.rows(of: "its books table", "SELECT id, last_modified FROM books") {
                (id: $0.int(0), stamp: $0.isNull(1) ? "" : $0.text(1))
            }
        }
        seenDataVersion = version
        knownSequence = sequence
        return sequence
    }

    /// Every book's forms as of now, read once per state of the library.
    private func allBooks() throws -> CalibreBookTexts {
        if let building { return building.books }
        let sequence = try latestChange()
        if let texts, texts.sequence == sequence { return texts.books }
        let books = CalibreBookTexts(try CalibreBooks.read(reader()).records)
        texts = (sequence, books)
        return books
    }

    /// The books of `ids` that are there now, from the kept forms when they are current.
    private func books(_ ids: [Int], _ visit: (CalibreBookTexts.Book) throws -> Void) throws {
        guard !ids.isEmpty else { return }
        if let texts, texts.sequence == (try latestChange()) {
            for id in ids { if let book = texts.books.book(id) { try visit(book) } }
            return
        }
        for record in try CalibreBooks.read(reader(), books: ids).records {
            try visit(CalibreBookTexts.Book(record))
        }
    }

    func census() throws -> BookCensus { try allBooks().census }

    func everyBook(after: Int?, holding: [[UInt8]], _ visit: (SourceBook) throws -> Void) throws {
        for book in try allBooks().books where after.map({ book.id > $0 }) ?? true {
            try book.withSourceBook(visit)
        }
    }

    func idsInTitleOrder(offset: Int, limit: Int?, _ visit: (Int) throws -> Void) throws {
        let all = try allBooks()
        let start = min(max(offset, 0), all.titleOrder.count)
        let end = limit.map { min(start + max($0, 0), all.titleOrder.count) } ?? all.titleOrder.count
        for place in all.titleOrder[start..<end] { try visit(all.books[place].id) }
    }

    func booksInTitleOrder(from: [UInt8], upTo: [UInt8], _ visit: (SourceBook) throws -> Bool) throws {
        let all = try allBooks()
        var place = all.firstInTitleOrder(notBelow: from)
        while place < all.titleOrder.count {
            let book = all.books[all.titleOrder[place]]
            guard book.titleKey.lexicographicallyPrecedes(upTo) else { return }
            guard try book.withSourceBook(visit) else { return }
            place += 1
        }
    }

    func changes(since marker: Int, limit: Int, _ visit: (SourceBook) throws -> Void) throws {
        let ids = try ledger.changed(since: marker, upTo: latestChange(), limit: limit)
        try books(ids) { try $0.withSourceBook(visit) }
    }

    func removals(since marker: Int, limit: Int, _ visit: (Int) throws -> Void) throws {
        for id in try ledger.removed(since: marker, upTo: latestChange(), limit: limit) { try visit(id) }
    }

    func changeCount(since marker: Int, upTo limit: Int) throws -> Int {
        try ledger.changeCount(since: marker, upTo: latestChange(), limit: limit)
    }

    func changeCountAtLeast(since marker: Int, upTo limit: Int) throws -> Int {
        try changeCount(since: marker, upTo: limit)
    }

    func bookCount(upTo limit: Int) throws -> Int { min(try allBooks().books.count, limit) }

    /// The books whose ISBN, as the store maps it, is `isbn`: those whose ISBN identifier holds
    /// its nine digits that ISBN-10 and ISBN-13 share are read, and each judged as mapped.
    func books(withISBN isbn: String, _ visit: (SourceBook) throws -> Void) throws {
        let digits = Array(isbn)
        let core = digits.count == 13 ? String(digits[3..<12]) : digits.count == 10 ? String(digits[0..<9]) : isbn
        let candidates = try reader().rows(
            of: "its identifiers table",
            """
            SELECT DISTINCT book FROM identifiers
            WHERE lower(type) = 'isbn' AND instr(replace(replace(val, '-', ''), ' ', ''), ?1)
            """, [.text(core)]
        ) { $0.int(0) }
        guard !candidates.isEmpty else { return }
        for record in try CalibreBooks.read(reader(), books: candidates).records where record.details.isbn == isbn {
            try CalibreBookTexts.Book(record).withSourceBook(visit)
        }
    }

    func titleKey(of id: Int) throws -> [UInt8]? {
        var key: [UInt8]?
        try books([id]) { key = $0.titleKey }
        return key
    }

    /// A library's reads are metered by the store's own progress handler (`CalibreReader`),
    /// which SQLite lets a connection have one of: a search is cancelled between reads.
    func cancellable<T>(_ body: () throws -> T) throws -> T {
        try Task.checkCancellation()
        return try body()
    }

    func pausing<T>(_ pause: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
        try body()
    }

    func storedIndexRecord(format: Int) throws -> StoredIndexRecord? {
        guard let stored = try ledger.storedIndex(format: format) else { return nil }
        return StoredIndexRecord(
            format: format, sequence: stored.sequence, count: stored.count, recorded: stored.header)
    }

    func recordStoredIndex(_ record: StoredIndexRecord, install: () throws -> Void) throws -> Bool {
        try ledger.recordStoredIndex(
            format: record.format, sequence: record.sequence, count: record.count, header: record.recorded,
            install: install)
    }
}

/// Where a library's index and change ledger live: in the user's cache folder, named by the
/// library's uuid (`IndexFilePlace.inCache(kind:key:)`). With no cache folder to be had, in a
/// folder of this user's in the temporary folder, so that every source of one session shares
/// one ledger all the same.
struct CalibreIndexPlace: Sendable {
    let libraryID: String
    let folder: String
    let indexPath: String
    let ledgerPath: String

    static let scope = "calibre"

    init(libraryID: String, libraryFile: String, environment: [String: String]) {
        // A library without its uuid (damaged) is named by its path instead.
        let key = libraryID.isEmpty ? "path " + CalibreLibraryFile.resolved(libraryFile) : libraryID
        var environment = environment
        if !Self.makeFolder(IndexFilePlace.cacheFolder(environment: environment)) {
            environment = ["XDG_CACHE_HOME": NSTemporaryDirectory() + "/bookshelf-\(getuid())"]
            _ = Self.makeFolder(IndexFilePlace.cacheFolder(environment: environment))
        }
        self.libraryID = key
        folder = IndexFilePlace.cacheFolder(environment: environment)!
        indexPath = IndexFilePlace.inCache(kind: "calibre", key: key, scope: Self.scope, environment: environment)!
        ledgerPath = indexPath + "-changes"
    }

    /// Makes the folder (private to the user) if need be; false when it cannot be made.
    private static func makeFolder(_ folder: String?) -> Bool {
        guard let folder else { return false }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return access(folder, W_OK) == 0
        } catch {
            return false
        }
    }
}

/// How an index build reads every book of a library (`CalibreSearchSource.readingEveryBook`):
/// `books` to a page, each page in a read of its own, short enough that calibre's writes
/// waiting behind one do not time out. `betweenPages` runs after each page, with no read open:
/// tests write there as calibre does.
package struct CalibreBuildPaging: Sendable {
    package var books = 1_000
    package var betweenPages: (@Sendable () -> Void)?

    package init(books: Int = 1_000, betweenPages: (@Sendable () -> Void)? = nil) {
        self.books = max(1, books)
        self.betweenPages = betweenPages
    }
}

/// Opens the library again, read-only, for the engine's background work.
struct CalibreSearchSourceOpener: SearchSourceOpener {
    let file: String
    let place: CalibreIndexPlace
    var paging = CalibreBuildPaging()

    func openSource() throws -> any SearchSource {
        try CalibreSearchSource(
            database: try CalibreDatabase.openInPlace(file, writable: false), file: file, place: place, paging: paging)
    }
}
