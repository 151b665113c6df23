import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// Queries every suite asks: prefixes, CJK, accents, several words, punctuation inside a word, none.
let sampleQueries = [
    "", "a", "al", "alp", "h", "hi", "his", "rom", "東", "東京", "cafe", "zo", "2", "al ro", "ro al", "b g",
    "history of", "e", "l'e", "hi-fi", "zzz", "9780306406157", "0-13-110362-8", "978-0-14-143951-8",
    "9780141439518", "978014143951", "9780141439519",
]

/// The books `terms` matches, in result order: what every way of answering must give. (Each
/// book's key is made once: made at every comparison, a book's fields were tokenised again
/// each time, and the suites took minutes.)
func matches(of terms: SearchTerms, in books: [BookRecord]) -> [BookRecord] {
    books.filter(terms.matches).map { (key: terms.sortKey($0), book: $0) }.sorted { $0.key < $1.key }.map(\.book)
}

/// What the search index suites share: a catalog of generated books in a scope with gaps in
/// its ids, the books as the file holds them, and the checks that a remote answers exactly what
/// `SearchTerms` says over them.
protocol SearchIndexTesting {
    var directory: TemporaryDirectory { get }
}

extension SearchIndexTesting {
    func makeCatalog(books count: Int, path: String? = nil) throws -> (SQLiteCatalog, [BookRecord]) {
        let catalog = try SQLiteCatalog.open(path: path ?? directory.path("catalog.sqlite"), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.addAccount(Account(name: "outsider", role: .editor, scope: "other"))
        var generator = GeneratedBooks(seed: 3)
        var books: [BookRecord] = []
        for index in 0..<count {
            let seed = generator.book()
            let scope = index % 10 == 9 ? "other" : "main"
            let book = try catalog.addBook(
                NewBook(title: seed.title, author: seed.author, details: generator.details()), scope: scope)
            if scope == "main" { books.append(book) }
        }
        // Every tenth book is in another scope, so ids in "main" have gaps.
        return (catalog, books)
    }

    /// `books` in result order within a rank, as the index numbers them: by folded title, then id.
    func inResultOrder(_ books: [BookRecord]) -> [BookRecord] {
        func key(_ book: BookRecord) -> [UInt8] {
            Array(BookText(title: book.title, author: book.author).titleKey.utf8)
        }
        return books.sorted { ByteOrder.precedes(key($0), $0.id, key($1), $1.id) }
    }

    /// The books of `scope` as the catalog file holds them, details included, read with a plain
    /// connection: the expected answers judge every searched field.
    func committedBooks(_ path: String, scope: String) throws -> [BookRecord] {
        let raw = try RawConnection(path)
        var statement: OpaquePointer?
        let sql = """
            SELECT id, title, author, revision, isbn, year, publisher, series, series_index_thousandths, tags, notes
            FROM books WHERE scope = ?1
            """
        guard sqlite3_prepare_v2(raw.handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw RawError(message: String(cString: sqlite3_errmsg(raw.handle)))
        }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, scope, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        func text(_ column: Int32) -> String? {
            sqlite3_column_type(statement, column) == SQLITE_NULL
                ? nil : String(cString: sqlite3_column_text(statement, column))
        }
        func integer(_ column: Int32) -> Int? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, column))
        }
        var books: [BookRecord] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let tags = try JSONSerialization.jsonObject(with: Data((text(9) ?? "[]").utf8)) as? [String]
            let details = BookDetails(
                isbn: text(4), year: integer(5), publisher: text(6) ?? "", series: text(7) ?? "",
                seriesIndex: integer(8).flatMap { SeriesIndex(thousandths: $0) }, tags: tags ?? [],
                notes: text(10) ?? "")
            books.append(
                BookRecord(
                    id: integer(0) ?? 0, title: text(1) ?? "", revision: integer(3) ?? 0, author: text(2) ?? "",
                    details: details))
        }
        return books
    }

    func allBooks(_ remote: SQLiteBookRemote) async throws -> [BookRecord] {
        try await remote.search(SearchQuery(text: "", limit: 100_000)).records
    }

    /// Every query, at several pages, answers what `SearchTerms` says for `books`.
    func expectExactSearches(
        _ remote: SQLiteBookRemote, _ books: [BookRecord], withoutIndex: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var generator = GeneratedBooks(seed: 17)
        let queries = sampleQueries + (0..<15).map { _ in generator.query() }
        for text in queries {
            let terms = SearchTerms(text)
            let expected = matches(of: terms, in: books)
            for (limit, offset) in [(50, 0), (3, 0), (4, 5), (10, 100)] {
                let query = SearchQuery(text: text, limit: limit, offset: offset)
                let page = withoutIndex ? try await remote.searchWithoutIndex(query) : try await remote.search(query)
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                #expect(
                    page.records == wanted && page.total == expected.count, "\(text) \(limit) \(offset)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    func expectExactPages(
        _ text: String, _ pages: [(limit: Int, offset: Int)], _ remote: SQLiteBookRemote,
        _ books: [BookRecord], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let terms = SearchTerms(text)
        let expected = matches(of: terms, in: books)
        for (limit, offset) in pages {
            let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
            let wanted = Array(expected.dropFirst(offset).prefix(limit))
            let total = TotalCount(
                counted: expected.count, offset: offset, shown: wanted.count,
                hasMore: offset + wanted.count < expected.count)
            #expect(page.records == wanted, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
            #expect(page.totalCount == total, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
        }
    }
}

/// The parts of a snapshot file, as its header lays them out (see `SearchIndexSnapshot`):
/// word 9 is where the checked data starts, words 12 + 2p and 13 + 2p part p's offset and length.
struct SnapshotFile {
    let path: String
    var bytes: [UInt8]

    init(catalog: String) throws {
        let directory = (catalog as NSString).deletingLastPathComponent
        let name = (catalog as NSString).lastPathComponent + "-search-"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(name) && !$0.contains(".writing")
        }
        guard files.count == 1 else { throw SnapshotFileMissing(found: files) }
        path = directory + "/" + files[0]
        bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func word(_ index: Int) -> Int {
        Int(
            truncatingIfNeeded: bytes.withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
            })
    }
    var dataStart: Int { word(9) }
    func part(_ part: Int) -> Range<Int> { word(12 + 2 * part)..<word(12 + 2 * part) + word(13 + 2 * part) }
    /// Replaces the file, as a program writing a crafted one would: written beside it and
    /// renamed, so that a remote which mapped the old file (the one that stored it, whose
    /// background work may still read it) keeps its pages instead of reading these.
    func save() throws { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) }

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }

    /// Makes every checksum agree with the bytes again, as a crafted file would.
    mutating func reseal() { bytes = SearchIndexSnapshotProbe.resealed(bytes) }
}

struct SnapshotFileMissing: Error { let found: [String] }

extension GeneratedBooks {
    /// The next `count` generated books, to insert.
    mutating func newBooks(_ count: Int) -> [NewBook] {
        (0..<count).map { _ in
            let seed = book()
            return NewBook(title: seed.title, author: seed.author, details: details())
        }
    }

    /// ISBNs some books share: an ISBN query lists them all first. The last is also a tag of
    /// some books, so its query matches some books both ways.
    static let isbns = ["9780131103627", "9780306406157", "9780141439518"]

    /// Details from the same word pool as titles and authors, so that queries hit them: about
    /// half the books have a series, a publisher or tags, some an ISBN; notes, never searched,
    /// hold words too.
    mutating func details() -> BookDetails {
        guard next(2) == 0 else { return .empty }
        let series = next(3) == 0 ? phrase(1 + next(2)) : ""
        let publisher = next(3) == 0 ? phrase(1 + next(2)) : ""
        var tags = (0..<next(3)).map { _ in phrase(1 + next(2)) }
        if next(8) == 0 { tags.append(Self.isbns[2]) }
        let isbn = next(4) == 0 ? Self.isbns[next(Self.isbns.count)] : nil
        return BookDetails(
            isbn: isbn, publisher: publisher, series: series, seriesIndex: series.isEmpty ? nil : SeriesIndex("2"),
            tags: (try? BookValidation.tags(tags)) ?? [], notes: phrase(next(3)))
    }
}

// The engine reads books through a `SearchSource`; these suites drive it on a connection they
// opened themselves, so they say which, as the remote does with its own.

extension SearchIndexBuilder {
    init(
        connection: Connection, scope: String, memory: BuildMemory = .anonymous,
        isCancelled: @escaping () -> Bool = { false }, givingWay: @escaping () -> Void = {}
    ) {
        self.init(
            source: SQLiteSearchSource(connection: connection, scope: scope, catalogPath: ""), memory: memory,
            isCancelled: isCancelled, givingWay: givingWay)
    }
}

extension BooksTableSearch {
    init(connection: Connection, scope: String, recent: (scans: RecentScans, sequence: Int)? = nil) {
        self.init(source: SQLiteSearchSource(connection: connection, scope: scope, catalogPath: ""), recent: recent)
    }
}

extension IndexPreparation {
    static func start(
        path: String, busyTimeout: Duration, scope: String, useSnapshot: Bool = true, beforeBuild: BuildHook? = nil,
        keepsBroadAnswers: Bool = true
    ) -> IndexPreparation {
        start(
            SQLiteSearchSourceOpener(path: path, busyTimeout: busyTimeout, scope: scope), scope: scope,
            useSnapshot: useSnapshot, beforeBuild: beforeBuild, keepsBroadAnswers: keepsBroadAnswers)
    }
}

/// The catch-up `remote` reads away from its actor, if one runs: a test awaits it.
func runningCatchUp(of remote: isolated some SearchEngineHost) -> Task<Void, Never>? {
    remote.lifecycle.runningCatchUp
}
