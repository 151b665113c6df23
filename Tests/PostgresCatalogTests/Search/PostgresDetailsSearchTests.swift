import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 12 (issue 40): the database derives the words of the series, the publisher
/// and the tags (`other_words`) as it does a title's, on every path a book is written, and a
/// catalog of version 11 gains them in place.
@Suite(
    "PostgreSQL details search", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresDetailsSearchTests {
    static let dune = BookDetails(
        isbn: "9780441013593", publisher: "Chilton Books", series: "Dune Chronicles", tags: ["SF classic", "Désert"])
    /// Each field's folded tokens after a space, the fields one line each (the series, the
    /// publisher, the tags in their kept order), as derived by hand.
    static let duneWords = " dune chronicles\n chilton books\n desert\n sf classic"

    @Test("a catalog of version 11 gains its books' other words in place, without new revisions")
    func migrationDerivesOtherWords() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 11)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Dune", author: "Frank Herbert", details: Self.dune), NewBook(title: "Emma")],
            scope: "main")
        let rows = "SELECT id, revision, changed_in::text, title_words FROM bookshelf.books ORDER BY id"
        let before = try await catalog.setup.execute(rows)

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        #expect(try await catalog.setup.execute(rows) == before)
        #expect(
            try await catalog.setup.execute("SELECT other_words FROM bookshelf.books ORDER BY id")
                == [[Self.duneWords], [""]])
        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.search(SearchQuery(text: "chilton")).records == [books[0]])
        #expect(try await remote.search(SearchQuery(text: "0441013597")).records == [books[0]])
        #expect(try await remote.history(of: books[0].id).map(\.record) == [books[0]])
    }

    @Test("a catalog of version 11 gains every book's other words as Swift derives them, shared values derived once")
    func migrationDerivesSharedValues() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 11)
        // Values shared between books and between fields, in different orders; a tag that is a
        // publisher elsewhere; a field with no token; books with one field or none.
        let details = [
            BookDetails(publisher: "Alpha Press", series: "Zeta Saga", tags: ["Désert", "sf classic"]),
            BookDetails(publisher: "Zeta Saga", tags: ["sf classic", "Alpha Press"]),
            BookDetails(series: "Zeta Saga"), BookDetails(publisher: "—", tags: ["Désert"]),
            BookDetails(tags: ["Ørbit", "désert", "東京"]), BookDetails(),
        ]
        let books = try await catalog.addBooks(
            details.enumerated().map { NewBook(title: "Book \($0.offset)", details: $0.element) }, scope: "main")

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        for book in books {
            let stored = try await catalog.setup.execute(
                "SELECT other_words FROM bookshelf.books WHERE id = $1", [String(book.id)])
            #expect(stored == [[BookIndexText.otherWords(book.details)]], "\(book.details)")
        }
    }

    @Test("an editor's raw SQL and an owner's INSERT are derived; editors cannot write the other words")
    func rawWritesAreDerived() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        let remote = try await catalog.remote(for: editor)

        _ = try await sql.rows(
            "UPDATE bookshelf.books SET tags = '{Space Opera}', series = 'Ørbit', revision = revision + 1 WHERE id = $1",
            [String(book.id)])
        #expect(try await remote.search(SearchQuery(text: "opera")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "orbit")).records.map(\.id) == [book.id])
        #expect(try await remote.search(SearchQuery(text: "orbit-space")).records.isEmpty)
        let forged = try await sql.run(
            "UPDATE bookshelf.books SET other_words = ' anything', revision = revision + 1 WHERE id = $1",
            [String(book.id)])
        #expect(forged.sqlState == PostgresServerError.insufficientPrivilege)
        // A title-only edit keeps them.
        _ = try await remote.save(SaveRequest(id: book.id, title: "Dune Messiah", expectedRevision: 2))
        #expect(try await remote.search(SearchQuery(text: "opera")).records.map(\.title) == ["Dune Messiah"])

        let inserted = try await catalog.setup.execute(
            """
            INSERT INTO bookshelf.books (scope, title, author, title_sort, title_words, author_words, publisher, tags)
            VALUES ('main', 'Emma', '', 'emma', ' emma', ' ', 'John Murray', '{Regency}') RETURNING other_words
            """)
        #expect(inserted == [[" john murray\n regency"]])
        #expect(try await remote.search(SearchQuery(text: "regency")).records.map(\.title) == ["Emma"])
    }

    @Test("the database's other words are SearchTerms' tokens of each field, for imported and saved books")
    func otherWordsAgreeWithSearchTerms() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let corpus = PostgresDerivedColumnsTests.edgeCorpus.filter {
            !$0.contains(",") && $0 == $0.trimmingCharacters(in: .whitespaces) && !$0.isEmpty
        }
        let details = corpus.map { text in
            BookDetails(publisher: text, series: text + " series", tags: [text, "x " + text])
        }
        // Imported books bring their words, derived in Swift: the database's trigger is off.
        _ = try await catalog.setup.execute(
            "ALTER TABLE bookshelf.books DISABLE TRIGGER books_derive_other_words_on_insert")
        let imported = try await catalog.addBooks(
            details.map { NewBook(title: "Imported", details: $0) }, scope: "main")
        _ = try await catalog.setup.execute(
            "ALTER TABLE bookshelf.books ENABLE TRIGGER books_derive_other_words_on_insert")
        let remote = try await catalog.remote(for: editor)
        var saved: [BookRecord] = []
        for (book, details) in zip(
            try await catalog.addBooks(details.map { _ in NewBook(title: "Saved") }, scope: "main"), details)
        {
            saved.append(
                try await remote.save(
                    SaveRequest(id: book.id, title: book.title, details: details, expectedRevision: 1)))
        }
        var disagreements: [String] = []
        // As kept: tags in their canonical order.
        for book in imported + saved {
            let details = book.details
            let fields = [details.series, details.publisher] + details.tags
            let expected = fields.map(SearchTerms.indexText).filter { !$0.isEmpty }.map { " " + $0 }
                .joined(separator: "\n")
            let stored = try await catalog.setup.execute(
                "SELECT other_words FROM bookshelf.books WHERE id = $1", [String(book.id)])
            if stored != [[expected]] {
                disagreements.append("\(details.publisher.debugDescription): \(expected.debugDescription), \(stored)")
            }
        }
        #expect(corpus.count > 30)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).joined(separator: "\n"))")
    }

    @Test("past the counting limit, every rank's walk pages in SearchTerms' order: ISBN, title, author, other fields")
    func walksFollowTheRule() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let isbn = "9780306406157"
        // Enough candidates for "shelf" and "0306406152" to be estimated, not counted, so each
        // rank is walked. The fillers have other words and sort first: rank 3's walk of them
        // finds nothing, and its candidates take over.
        let books =
            (0..<2_500).map { NewBook(title: "Aaa Filler \($0)", details: BookDetails(publisher: "Filler Press")) }
            + (0..<2_600).map { NewBook(title: "Title \($0)", author: "Anon", details: BookDetails(tags: ["shelf"])) }
            + (0..<60).map { NewBook(title: "Shelf Life \($0)") } + (0..<40).map { NewBook(title: "My Shelf \($0)") }
            + (0..<30).map { NewBook(title: "Book \($0)", author: "Ann Shelfer") }
            + (0..<2_400).map { NewBook(title: "Part \($0) 0306406152") }
            + [NewBook(title: "Zzz Last", details: BookDetails(isbn: isbn, tags: ["shelf"]))]
        let stored = try await catalog.addBooks(books, scope: "main")
        try await catalog.setup.analyze()
        let remote = try await catalog.remote(for: editor)
        for text in ["shelf", "0306406152", "sh"] {
            let terms = SearchTerms(text)
            let expected = stored.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(\.id)
            #expect(expected.count > 2_000, "\(text) is past the counting limit")
            let (paged, counted) = try await PostgresTestCatalog.pagedIDs(remote, text: text)
            #expect(!counted, "\(text) was counted; the walks are not exercised")
            #expect(paged == expected, "\(text): \(paged.count) of \(expected.count)")
        }
    }
}
