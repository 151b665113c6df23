import BookCatalog
import CSQLite
import Foundation
import SQLiteCatalog
import Testing

/// The search index snapshot stored in the catalog: who stores it, who loads it, and that a
/// loaded snapshot answers exactly like a fresh build even when it is stale or damaged.
@Suite struct SQLiteSearchIndexTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let queries = ["", "a", "al", "alp", "h", "hi", "his", "rom", "東", "東京", "cafe", "zo", "2", "al ro", "ro al",
                          "b g", "history of", "e", "l'e", "hi-fi", "zzz"]

    @Test func aBuiltIndexIsStoredAndTheNextRemoteLoadsIt() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let first = try catalog.remote(account: "editor")
        let (built, stored) = try await first.searchIndexReport()
        #expect(built.origin == .built && built.books == books.count && stored)
        try await expectExactSearches(first, books)

        let second = try catalog.remote(account: "reader")
        let (loaded, _) = try await second.searchIndexReport()
        #expect(loaded.origin == .loadedSnapshot && loaded.books == books.count && loaded.bytes == built.bytes)
        try await expectExactSearches(second, books)
    }

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
            current[index] = try await first.save(SaveRequest(id: current[index].id, title: seed.title, author: seed.author,
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

    @Test func aSnapshotTooFarBehindIsRebuiltAndStoredAgain() async throws {
        let (catalog, books) = try makeCatalog(books: 50)
        let first = try catalog.remote(account: "editor")
        #expect(try await first.searchIndexReport().snapshotStored)
        // More changed rows than an index may hold in its overlay (1,024 for a small catalog).
        var generator = GeneratedBooks(seed: 5)
        try catalog.insertBooks((0..<1_100).map { _ in let seed = generator.book(); return NewBook(title: seed.title, author: seed.author) },
                                scope: "main")
        let second = try catalog.remote(account: "reader")
        let (report, stored) = try await second.searchIndexReport()
        #expect(report.origin == .built && report.books == books.count + 1_100 && stored)
        let current = try await allBooks(second)
        #expect(current.count == books.count + 1_100)
        try await expectExactSearches(second, current)
        // The first remote's overlay was too large as well: it moved to a fresh index.
        try await expectExactSearches(first, current)
        #expect(try await catalog.remote(account: "reader").searchIndexReport().report.origin == .loadedSnapshot)
    }

    @Test(arguments: 0..<9)
    func aDamagedSnapshotIsIgnoredAndRebuilt(part: Int) async throws {
        let path = directory.path("damaged-\(part).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // Flip one byte in the middle of the part, as a damaged disk might.
        try withRawConnection(path) {
            try execute($0, """
                UPDATE search_snapshot_parts
                SET data = CAST(substr(data, 1, length(data) / 2) || x'A5' || substr(data, length(data) / 2 + 2) AS BLOB)
                WHERE part = \(part)
                """)
        }
        let remote = try catalog.remote(account: "reader")
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "part \(part)")
        try await expectExactSearches(remote, books)
        #expect(try await catalog.remote(account: "reader").searchIndexReport().report.origin == .loadedSnapshot)
    }

    @Test func aVersionOneCatalogIsMigratedAndSearchable() async throws {
        let path = directory.path("v1.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            let handle = created.handle
            try execute(handle, Self.versionOneSchema)
            try execute(handle, """
                INSERT INTO accounts VALUES ('reader', 'reader', 'main');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) VALUES
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 1),
                    ('main', 'A History of Rome', 'Mary Beard', 3, 'a history of rome', 'a history of rome', 'mary beard', 2),
                    ('main', 'Spring 🌸 Rome', 'Bashō', 1, 'spring 🌸 rome', 'spring rome', 'basho', 3);
                PRAGMA user_version = 1;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "4")
        let remote = try catalog.remote(account: "reader")
        let page = try await remote.search(SearchQuery(text: "rom"))
        #expect(page.records.map(\.title) == ["Rome", "A History of Rome", "Spring 🌸 Rome"] && page.total == 3)
        // Terms written before symbols were tokens are derived again by the upgrade.
        #expect(try await remote.search(SearchQuery(text: "🌸")).records.map(\.title) == ["Spring 🌸 Rome"])
        #expect(page.records[1].revision == 3)
        #expect(try await remote.searchIndexReport().snapshotStored)
    }

    // MARK: Helpers

    /// The schema of version 1, as it shipped.
    static let versionOneSchema = """
        CREATE TABLE accounts(
            name TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('reader', 'editor')),
            scope TEXT NOT NULL
        ) STRICT;
        CREATE TABLE books(
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL,
            title TEXT NOT NULL CHECK (length(title) > 0),
            author TEXT NOT NULL DEFAULT '',
            revision INTEGER NOT NULL CHECK (revision > 0),
            title_key TEXT NOT NULL,
            title_terms TEXT NOT NULL,
            author_terms TEXT NOT NULL,
            change_seq INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX books_by_scope_title ON books(scope, title_key, id);
        CREATE INDEX books_by_change ON books(change_seq);
        CREATE TABLE committed_saves(
            operation TEXT PRIMARY KEY NOT NULL,
            book_id INTEGER NOT NULL REFERENCES books(id),
            revision INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        """

    private func makeCatalog(books count: Int, path: String? = nil) throws -> (SQLiteCatalog, [BookRecord]) {
        let catalog = try SQLiteCatalog.open(path: path ?? directory.path("catalog.sqlite"), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.addAccount(Account(name: "outsider", role: .editor, scope: "other"))
        var generator = GeneratedBooks(seed: 3)
        var books: [BookRecord] = []
        for index in 0..<count {
            let seed = generator.book()
            let scope = index % 10 == 9 ? "other" : "main"
            let book = try catalog.addBook(NewBook(title: seed.title, author: seed.author), scope: scope)
            if scope == "main" { books.append(book) }
        }
        // Every tenth book is in another scope, so ids in "main" have gaps.
        return (catalog, books)
    }

    private func allBooks(_ remote: SQLiteBookRemote) async throws -> [BookRecord] {
        try await remote.search(SearchQuery(text: "", limit: 100_000)).records
    }

    /// Every query, at several pages, answers what `SearchTerms` says for `books`.
    private func expectExactSearches(_ remote: SQLiteBookRemote, _ books: [BookRecord],
                                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var generator = GeneratedBooks(seed: 17)
        let queries = Self.queries + (0..<15).map { _ in generator.query() }
        for text in queries {
            let terms = SearchTerms(text)
            let expected = books.filter { terms.isEmpty || terms.matches($0) }.sorted { terms.sortKey($0) < terms.sortKey($1) }
            for (limit, offset) in [(50, 0), (3, 0), (4, 5), (10, 100)] {
                let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                #expect(page.records == wanted && page.total == expected.count, "\(text) \(limit) \(offset)",
                        sourceLocation: sourceLocation)
            }
        }
    }
}
