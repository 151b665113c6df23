import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// A book's details in an SQLite catalog: written by imports and saves, read back by every
/// path (load, search with and without the index, history), checked by the file where SQLite
/// can, and read safely when another program wrote them.
@Suite struct SQLiteDetailsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let details = BookDetails(
        isbn: "9780141439518", year: 1869, publisher: "Penguin Classics", series: "Russian Classics",
        seriesIndex: SeriesIndex("2.5"), tags: ["\"Quoted\" \\ and /", "classic", "Russian", "war"],
        notes: "Read in winter.\nSecond line.")

    private func catalog(_ name: String = "details.sqlite") throws -> (SQLiteCatalog, SQLiteBookRemote) {
        let catalog = try SQLiteCatalog.open(path: directory.path(name), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        return (catalog, try catalog.remote(account: "editor"))
    }

    @Test func aBookAddedWithDetailsCarriesThemOnEveryReadPath() async throws {
        let (catalog, editor) = try catalog()
        let added = try catalog.addBook(
            NewBook(title: "War and Peace", author: "Tolstoy", details: Self.details), scope: "main")
        let expected = BookRecord(id: 1, title: "War and Peace", revision: 1, author: "Tolstoy", details: Self.details)
        #expect(added == expected)
        #expect(try await editor.load(id: 1) == expected)
        #expect(try await editor.searchWithoutIndex(SearchQuery(text: "war")).records == [expected])
        _ = try await editor.searchIndexReport()
        #expect(try await editor.search(SearchQuery(text: "war")).records == [expected])
        #expect(try await editor.search(SearchQuery(text: "")).records == [expected])
        #expect(try await editor.history(of: 1).map(\.record) == [expected])
        // The file holds the tags as a JSON array SQLite itself reads.
        let raw = try RawConnection(directory.path("details.sqlite"))
        #expect(
            try queryText(raw.handle, "SELECT group_concat(value, '|') FROM books, json_each(books.tags)")
                == Self.details.tags.joined(separator: "|"))
    }

    @Test func anImportStoresEveryBooksDetails() async throws {
        let (catalog, editor) = try catalog()
        let other = BookDetails(year: -400, tags: ["philosophy"])
        try catalog.insertBooks(
            [NewBook(title: "War and Peace", details: Self.details), NewBook(title: "Republic", details: other)],
            scope: "main")
        #expect(try await editor.load(id: 1).details == Self.details)
        #expect(try await editor.load(id: 2).details == other)
        #expect(try await editor.history(of: 2).map(\.record.details) == [other])
    }

    @Test func aSaveWritesEveryDetailAndASaveWithoutThemKeepsThem() async throws {
        let (catalog, editor) = try catalog()
        let added = try catalog.addBook(NewBook(title: "War and Peace", details: Self.details), scope: "main")

        let kept = try await editor.save(SaveRequest(id: 1, title: "War & Peace", expectedRevision: 1))
        #expect(kept == BookRecord(id: 1, title: "War & Peace", revision: 2, details: Self.details))
        let written = BookDetails(year: 1870, series: "Tolstoy", tags: ["epic"])
        let rewritten = try await editor.save(
            SaveRequest(id: 1, title: "War & Peace", details: written, expectedRevision: 2))
        #expect(rewritten == BookRecord(id: 1, title: "War & Peace", revision: 3, details: written))
        let cleared = try await editor.save(
            SaveRequest(id: 1, title: "War & Peace", details: BookDetails.empty, expectedRevision: 3))
        #expect(cleared == BookRecord(id: 1, title: "War & Peace", revision: 4))

        // Another connection, as another process, reads what was committed.
        let other = try catalog.remote(account: "editor")
        #expect(try await other.load(id: 1) == cleared)
        #expect(try await other.history(of: 1).map(\.record) == [cleared, rewritten, kept, added])
    }

    @Test func aRefusedSaveChangesNoDetail() async throws {
        let (catalog, editor) = try catalog()
        let added = try catalog.addBook(NewBook(title: "War and Peace", details: Self.details), scope: "main")
        await expectFailure(.conflict(expected: 7, actual: 1)) {
            _ = try await editor.save(
                SaveRequest(id: 1, title: "Other", details: BookDetails(year: 1900), expectedRevision: 7))
        }
        await expectFailure(.invalidField(.isbn, reason: ISBNProblem.wrongCheckDigit.description)) {
            _ = try await editor.save(
                SaveRequest(id: 1, title: "Other", details: BookDetails(isbn: "9780141439519"), expectedRevision: 1))
        }
        #expect(try await editor.load(id: 1) == added)
        #expect(try await editor.history(of: 1).map(\.record) == [added])
    }

    @Test func theFileRefusesDetailsThatBreakTheRulesSQLiteCanCheck() throws {
        let path = directory.path("checked.sqlite")
        _ = try catalog("checked.sqlite")
        let raw = try RawConnection(path)
        let insert =
            "INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq"
        let refused = [
            "isbn) VALUES ('main', 'T', '', 1, 't', 't', '', 1, '12345')",
            "isbn) VALUES ('main', 'T', '', 1, 't', 't', '', 1, '9780141439519')",
            "isbn) VALUES ('main', 'T', '', 1, 't', 't', '', 1, '9770141439518')",
            "year) VALUES ('main', 'T', '', 1, 't', 't', '', 1, -3001)",
            "series_index_thousandths) VALUES ('main', 'T', '', 1, 't', 't', '', 1, -1)",
            "series_index_thousandths) VALUES ('main', 'T', '', 1, 't', 't', '', 1, 100000000)",
            "tags) VALUES ('main', 'T', '', 1, 't', 't', '', 1, 'war, peace')",
            "tags) VALUES ('main', 'T', '', 1, 't', 't', '', 1, '{\"war\": 1}')",
            "publisher) VALUES ('main', 'T', '', 1, 't', 't', '', 1, 'A' || char(27) || '[31m')",
            "series) VALUES ('main', 'T', '', 1, 't', 't', '', 1, 'A' || char(10) || 'B')",
            "notes) VALUES ('main', 'T', '', 1, 't', 't', '', 1, 'A' || char(9) || 'B')",
            "notes) VALUES ('main', 'T', '', 1, 't', 't', '', 1, replace(hex(zeroblob(40001)), '0', 'ab'))",
        ]
        for values in refused {
            #expect(throws: RawError.self, "\(values)") { try execute(raw.handle, "\(insert), \(values)") }
        }
        try execute(
            raw.handle,
            "\(insert), isbn, year, series_index_thousandths, tags, notes) VALUES "
                + "('main', 'T', '', 1, 't', 't', '', 1, '9780141439518', 1869, 2500, '[\"war\"]', 'A' || char(10) || 'B')"
        )
        #expect(try queryText(raw.handle, "SELECT count(*) FROM books") == "1")
    }

    /// Another program may write anything the file's checks let through. Each field that is
    /// not as Bookshelf keeps it is read in its canonical form when it has one, with control
    /// characters shown as U+FFFD, and otherwise as empty: the book stays readable and
    /// editable, and a save that names no details leaves the stored values alone.
    @Test func detailsAnotherProgramWroteAreReadCanonicalOrEmpty() async throws {
        let path = directory.path("foreign.sqlite")
        let (catalog, editor) = try catalog("foreign.sqlite")
        try catalog.insertBooks([NewBook(title: "War and Peace")], scope: "main")
        try withRawConnection(path) { handle in
            for (table, id) in [("books", "id"), ("book_revisions", "book_id")] {
                try execute(
                    handle,
                    """
                    UPDATE \(table) SET year = 5000, publisher = ' Penguin ' || char(8238) || 'Books ',
                        series = replace(hex(zeroblob(101)), '0', 'x') || 'y',
                        tags = '["war", "Classic", "WAR", " ", 7, "a,b", "clássico", ["nested"]]',
                        notes = '  Line one' || char(10) || 'two' || char(8232) || 'x' || char(10) || char(10)
                        WHERE \(id) = 1
                    """)
            }
        }
        let expected = BookDetails(
            publisher: "Penguin \u{FFFD}Books", tags: ["Classic", "clássico", "war"], notes: "Line one\ntwo\u{FFFD}x")
        #expect(try expected.validated() == expected, "canonical by its rules")

        #expect(try await editor.load(id: 1).details == expected)
        #expect(try await editor.history(of: 1).map(\.record.details) == [expected])
        #expect(try await editor.searchWithoutIndex(SearchQuery(text: "war")).records.map(\.details) == [expected])
        _ = try await editor.searchIndexReport()
        #expect(try await editor.search(SearchQuery(text: "war")).records.map(\.details) == [expected])

        // A save naming no details keeps the stored values as they were.
        let renamed = try await editor.save(SaveRequest(id: 1, title: "War & Peace", expectedRevision: 1))
        #expect(renamed.details == expected)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "SELECT year FROM books WHERE id = 1") == "5000")
        #expect(
            try queryText(raw.handle, "SELECT year FROM book_revisions WHERE book_id = 1 AND revision = 2") == "5000")
        // A save with details writes them all, in the form Bookshelf keeps.
        let saved = try await editor.save(
            SaveRequest(id: 1, title: "War & Peace", details: expected, expectedRevision: 2))
        #expect(saved.details == expected)
        #expect(try queryText(raw.handle, "SELECT year FROM books WHERE id = 1") == nil)
        #expect(
            try queryText(raw.handle, "SELECT tags FROM books WHERE id = 1") == "[\"Classic\",\"clássico\",\"war\"]")
    }

    /// A file whose checks were bypassed (`PRAGMA ignore_check_constraints`) can hold anything
    /// its column types allow. Reading is as safe as ever; a save naming no details is refused
    /// by the file's checks with nothing changed, naming the first field that breaks its rule,
    /// and a save with details repairs the book.
    @Test func detailsWrittenPastTheFilesChecksAreReadSafelyAndRepairedBySaving() async throws {
        let path = directory.path("unchecked.sqlite")
        let (catalog, editor) = try catalog("unchecked.sqlite")
        try catalog.insertBooks([NewBook(title: "War and Peace"), NewBook(title: "Peace Talks")], scope: "main")
        try withRawConnection(path) { handle in
            try execute(handle, "PRAGMA ignore_check_constraints = ON")
            for (table, id) in [("books", "id"), ("book_revisions", "book_id")] {
                try execute(
                    handle,
                    """
                    UPDATE \(table) SET isbn = '0-14-143951-3', year = 99999, series_index_thousandths = -5,
                        publisher = CAST(x'50656e6775ff' AS TEXT), tags = 'war, peace',
                        notes = 'Line one' || char(13) || char(10) || 'two' || char(9) || 'tab' || char(13)
                        WHERE \(id) = 1;
                    UPDATE \(table) SET isbn = '9780141439519', series = 'A' || char(27) || '[31m',
                        tags = (
                            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
                            SELECT json_group_array('tag ' || i) FROM n),
                        notes = replace(hex(zeroblob(10001)), '0', 'n')
                        WHERE \(id) = 2;
                    """)
            }
        }
        let first = BookDetails(isbn: "9780141439518", publisher: "Pengu\u{FFFD}", notes: "Line one\ntwo\u{FFFD}tab")
        // Of sixty tags, the first fifty stored are kept: the most a book may have.
        let second = BookDetails(series: "A\u{FFFD}[31m", tags: (1...50).map { "tag \($0)" }.sorted())
        for expected in [first, second] { #expect(try expected.validated() == expected, "canonical by its rules") }

        #expect(try await editor.load(id: 1).details == first)
        #expect(try await editor.load(id: 2).details == second)
        #expect(try await editor.history(of: 1).map(\.record.details) == [first])
        #expect(try await editor.searchWithoutIndex(SearchQuery(text: "")).records.map(\.details) == [second, first])

        let refusal = await #expect(throws: BookFailure.self) {
            _ = try await editor.save(SaveRequest(id: 1, title: "War & Peace", expectedRevision: 1))
        }
        guard case .invalidField(.isbn, _)? = refusal else {
            Issue.record("a title-only save names the ISBN another program stored: \(String(describing: refusal))")
            return
        }
        #expect(try await editor.load(id: 1) == BookRecord(id: 1, title: "War and Peace", revision: 1, details: first))
        let repaired = try await editor.save(
            SaveRequest(id: 1, title: "War & Peace", details: first, expectedRevision: 1))
        #expect(repaired == BookRecord(id: 1, title: "War & Peace", revision: 2, details: first))
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "SELECT isbn || ',' || tags FROM books WHERE id = 1") == "9780141439518,[]")
    }
}
