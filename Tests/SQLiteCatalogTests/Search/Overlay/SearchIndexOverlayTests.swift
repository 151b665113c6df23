import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// A base plus the books changed since it (`SearchIndex`): a stale index caught up, changed books
/// found at their places and judged where they can rank, and matches kept across keys: every
/// answer what the committed books give.
@Suite struct SearchIndexOverlayTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func aStaleSnapshotIsLoadedAndCaughtUpWithLaterChanges() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let first = try catalog.remote(account: "editor")
        #expect(try await first.searchIndexReport().snapshotStored)
        // Changes after the snapshot: edits (some twice), new books, and a book in another scope.
        var current = books
        var generator = GeneratedBooks(seed: 11)
        for step in 0..<30 {
            let index = (step * 37) % 20  // revisits some books
            let seed = generator.book()
            current[index] = try await first.save(
                SaveRequest(
                    id: current[index].id, title: seed.title, author: seed.author,
                    expectedRevision: current[index].revision))
        }
        for _ in 0..<25 {
            let seed = generator.book()
            current.append(try catalog.addBook(NewBook(title: seed.title, author: seed.author), scope: "main"))
        }
        try catalog.addBook(NewBook(title: "Alpha elsewhere"), scope: "other")

        let second = try catalog.remote(account: "reader")
        #expect(try await second.searchIndexReport().report.origin == .loadedSnapshot)
        try await expectExactSearches(second, current)
    }

    /// Keys that type out the rest of a rare word compile to the same words of the index, whose
    /// matches are kept from one key to the next; a change between two keys (a matching book
    /// renamed away, another added) is in the next key's answer all the same.
    @Test func aWordTypedOutAcrossAChangeIsAnsweredAsTheBooksAreNow() async throws {
        let path = directory.path("typed-out.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.insertBooks(
            (0..<300).map { NewBook(title: "Book \($0)", author: "Author \($0 % 7)") }
                + (0..<6).map { NewBook(title: "Murakami days \($0)") }, scope: "main")
        let editor = try catalog.remote(account: "editor")
        #expect(try await editor.searchIndexReport().report.books == 306)
        func expectCommitted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let terms = SearchTerms(text)
            let expected = try matches(of: terms, in: committedBooks(path, scope: "main"))
            let page = try await editor.search(SearchQuery(text: text, limit: 50))
            #expect(page.records == expected && page.total == expected.count, "\(text)", sourceLocation: sourceLocation)
        }
        try await expectCommitted("murak")
        let renamed = try #require(try committedBooks(path, scope: "main").first { $0.title == "Murakami days 3" })
        _ = try await editor.save(id: renamed.id, title: "Quiet days", expectedRevision: renamed.revision)
        try catalog.addBook(NewBook(title: "Murakami nights"), scope: "main")
        try await expectCommitted("muraka")
        try await expectCommitted("murakam")
    }

    /// Catching up finds each changed book's place in result order, in batches of ascending ids:
    /// the place the scenario gives (the scope's books ordered by title key, then id), and none
    /// for ids of another scope, ids never used and ids past the last, whether the batch holds
    /// every id, every seventh, or one; from an index built in memory and from its stored file.
    @Test func changedBooksAreFoundAtTheirPlacesInResultOrder() async throws {
        let path = directory.path("ids.sqlite")
        let (catalog, books) = try makeCatalog(books: 500, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let inOrder = inResultOrder(books)
        let place = Dictionary(uniqueKeysWithValues: inOrder.enumerated().map { ($1.id, $0) })
        let everyID = Array(-2...(books.map(\.id).max()! + 3))
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let built = try SearchIndexBuilder(connection: connection, scope: "main").build()
        let stored = try SnapshotFile(catalog: path).bytes.withUnsafeBytes {
            try SearchIndexSnapshot.decode(copying: $0)
        }
        for base in [built, stored] {
            for batch in [everyID, everyID.enumerated().filter { $0.offset % 7 == 3 }.map(\.element)] {
                let found = try base.ordinals(ofAscendingIDs: batch)
                #expect(
                    zip(batch, found).filter { place[$0] != $1 }.isEmpty,
                    "misplaced: \(zip(batch, found).filter { place[$0] != $1 }.prefix(5))")
            }
            for id in [-1, 0, books[0].id, books.last!.id, books.last!.id + 1] {
                #expect(try base.ordinal(ofID: id) == place[id], "\(id)")
            }
        }
    }

    /// Typing over an index with changed books beside it judges, for a query that narrows an
    /// earlier one, only the changed books the earlier one matched: the pages and totals stay
    /// exactly what the books say, and after more changes too.
    @Test func typingOverChangedBooksNarrowsTheirEarlierMatchesExactly() async throws {
        let path = directory.path("overlay-narrowing.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        var current = (0..<3_000).map { index in
            BookRecord(
                id: index + 1, title: ["History \(index)", "Hidden \(index)", "Quiet \(index)"][index % 3], revision: 1,
                author: index % 5 == 0 ? "Hiro Ota" : "")
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        func rename(_ index: Int, _ title: String) async throws {
            let book = current[index]
            current[index] = try await writer.save(
                SaveRequest(id: book.id, title: title, author: book.author, expectedRevision: book.revision))
        }
        // 375 changed books beside the index (fewer than half its room, so it is not replaced):
        // some still match what they matched, some more, some less, and some rank lower in a
        // narrower query ("Hope and History" ranks first for "h", second for "hi", after "A
        // history of" there).
        for (step, index) in stride(from: 0, to: 3_000, by: 8).enumerated() {
            let titles = [
                "History of Rome \(index)", "Hi there \(index)", "A history of \(index)", "Quiet \(index)",
                "Hope and History \(index)",
            ]
            try await rename(index, titles[step % titles.count])
        }
        let typed = ["h", "hi", "his", "hist", "history", "history o", "history of", "history of r", "hi t", "o"]
        let pages = [(50, 0), (10, 395)]
        for text in typed { try await expectExactPages(text, pages, reader, current) }
        // Where the second rank of a narrower query begins: books that ranked first for the
        // query before it ("Hope and History" for "h") come among those that ranked second all
        // along ("A history of"), in title order.
        for (before, after) in [("h", "hi"), ("h", "hist")] {
            let terms = SearchTerms(after)
            let secondRank = try #require(
                matches(of: terms, in: current)
                    .firstIndex { terms.rank($0) == 1 })
            try await expectExactPages(before, pages, reader, current)
            try await expectExactPages(after, [(60, secondRank - 5)], reader, current)
        }
        // More changes: a book "history of" matched no longer does, and one it did not now does;
        // then queries that narrow those typed before them.
        try await rename(0, "Quiet again")
        try await rename(1, "Zebra, by History of Athens")
        for text in ["history of a", "hi th", "of"] + typed { try await expectExactPages(text, pages, reader, current) }
    }

    /// A broad query over changed books beside an index, whose first rank fills the page from
    /// the index's own books and whose matches pass the count, judges only the changed books
    /// whose keys can rank first: the pages and totals stay exactly what the books say, at the
    /// top, deep, and where the index's first rank reaches keys beginning with punctuation above
    /// the word's first letter ("«Hymn»" for "h"), before which changed books may go ("¡Hola!").
    @Test func changedBooksBesideABroadQueryAreJudgedWhereTheyCanRankFirst() async throws {
        let path = directory.path("overlay-first-rank.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // Every book by a "Hiro": an "h" query has more matches than are counted.
        var current = (0..<12_000).map { index in
            let title = index < 9_000 ? "History \(index)" : index < 9_500 ? "«Hymn» \(index)" : "Quiet \(index)"
            return BookRecord(id: index + 1, title: title, revision: 1, author: "Hiro \(index)")
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        // 200 changed books: some rank first for "h" with keys below its letter ("[Hope]"), at
        // it ("Haze", "Hi"), above it ("¡Hola!"); some lower ("A history", "Zebra" by a Hiro).
        for (step, index) in stride(from: 0, to: 12_000, by: 60).enumerated() {
            let book = current[index]
            let titles = [
                "[Hope] \(index)", "Haze \(index)", "A history \(index)", "¡Hola! \(index)", "Zebra \(index)",
                "Hi \(index)",
            ]
            current[index] = try await writer.save(
                SaveRequest(
                    id: book.id, title: titles[step % titles.count], author: book.author,
                    expectedRevision: book.revision))
        }
        for text in ["h", "hi", "his", "history", "hist 1", "h h"] {
            try await expectExactPages(
                text, [(50, 0), (10, 395), (50, 5_000), (100, 8_900), (10, 9_300)], reader, current)
        }
    }
}
