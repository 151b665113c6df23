import BookCatalog
import CatalogContract
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 11 (issue 40): every book carries an ISBN, a year, a publisher, a series and
/// its index, tags and notes, through every path of the store, and the database holds
/// hand-written SQL to the same rules as `BookValidation`.
@Suite(
    "PostgreSQL book details", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresDetailsTests {
    /// Pride and Prejudice (Penguin Classics): its check digit is 8.
    static let isbn = "9780141439518"
    static let details = BookDetails(
        isbn: isbn, year: 1813, publisher: "Penguin Classics", series: "Austen's Novels",
        seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["Classic", "Romance"],
        notes: "First line.\nSecond line, \"quoted\".")

    @Test("a catalog of schema version 10 keeps every book with empty details, and takes details after")
    func migrationKeepsBooks() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 10)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Emma", author: "Jane Austen"), NewBook(title: "Persuasion")], scope: "main")
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.books SET title = 'Emma, Revised', revision = revision + 1 WHERE id = $1",
            [String(books[0].id)])
        let columns = "SELECT id, scope, title, author, revision FROM bookshelf.books ORDER BY id"
        let before = try await catalog.setup.execute(columns)
        #expect(before.count == 2)

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        #expect(try await catalog.setup.execute(columns) == before)
        let remote = try await catalog.remote(for: editor)
        let emma = BookRecord(id: books[0].id, title: "Emma, Revised", revision: 2, author: "Jane Austen")
        #expect(try await remote.load(id: emma.id) == emma)
        #expect(try await remote.load(id: books[1].id) == books[1])
        #expect(try await remote.history(of: emma.id).map(\.record) == [emma, books[0]])
        #expect(try await remote.search(SearchQuery(text: "")).records == [emma, books[1]])

        let saved = try await remote.save(
            SaveRequest(id: emma.id, title: emma.title, details: Self.details, expectedRevision: 2))
        #expect(
            saved == BookRecord(id: emma.id, title: emma.title, revision: 3, author: emma.author, details: Self.details)
        )
        #expect(try await remote.load(id: emma.id) == saved)
    }

    @Test("a session on a catalog not yet migrated says to run setup, on every call")
    func unmigratedCatalogSaysSo() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 10)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        let remote = try await catalog.remote(for: editor)
        let runSetup = BookFailure.storeUnavailable(PostgresServerError.olderSchema)
        await expectFailure(runSetup) { _ = try await remote.load(id: book.id) }
        await expectFailure(runSetup) { _ = try await remote.search(SearchQuery(text: "emma")) }
        await expectFailure(runSetup) { _ = try await remote.history(of: book.id) }
        await expectFailure(runSetup) {
            _ = try await remote.save(SaveRequest(id: book.id, title: "Emma", expectedRevision: 1))
        }
    }

    @Test("save writes every field together, keeps them all when it carries none, and every path reads them")
    func roundTrip() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let book = try await catalog.addBooks(
            [NewBook(title: "Pride and Prejudice", author: "Jane Austen")], scope: "main")[0]
        let remote = try await catalog.remote(for: editor)

        // As a person types them: the ISBN-10 form with hyphens, tags in any order and case.
        let typed = BookDetails(
            isbn: "0-14-143951-3", year: 1813, publisher: " Penguin Classics ", series: "Austen's Novels",
            seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["romance", "Classic", "Romance"],
            notes: "First line.\r\nSecond line, \"quoted\".\n")
        let withDetails = SaveRequest(id: book.id, title: book.title, details: typed, expectedRevision: 1)
        let saved = try await remote.save(withDetails)
        let expected = BookRecord(
            id: book.id, title: book.title, revision: 2, author: book.author,
            details: BookDetails(
                isbn: Self.isbn, year: 1813, publisher: "Penguin Classics", series: "Austen's Novels",
                seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["Classic", "romance"],
                notes: "First line.\nSecond line, \"quoted\"."))
        #expect(saved == expected)
        #expect(try await remote.load(id: book.id) == expected)
        #expect(try await remote.search(SearchQuery(text: "pride")).records == [expected])
        #expect(try await catalog.remote(for: reader).search(SearchQuery(text: "")).records == [expected])
        // The settle path of an unknown outcome: the operation's revision, then the full record.
        #expect(try await remote.committedRevision(of: withDetails.operation) == 2)

        // A save that knows only the title keeps every detail.
        let renamed = try await remote.save(SaveRequest(id: book.id, title: "Pride & Prejudice", expectedRevision: 2))
        #expect(
            renamed
                == BookRecord(
                    id: book.id, title: "Pride & Prejudice", revision: 3, author: book.author, details: expected.details
                ))
        // Empty details clear every field.
        let cleared = try await remote.save(
            SaveRequest(id: book.id, title: "Pride & Prejudice", details: BookDetails.empty, expectedRevision: 3))
        #expect(cleared.details == BookDetails.empty && cleared.revision == 4)
        #expect(try await remote.load(id: book.id) == cleared)

        let history = try await remote.history(of: book.id)
        #expect(history.map(\.record) == [cleared, renamed, expected, book])

        // A field that breaks its rule is refused before any store call, named in the failure.
        await #expect(throws: BookFailure.invalidField(.isbn, reason: ISBNProblem.wrongCheckDigit.description)) {
            _ = try await remote.save(
                SaveRequest(
                    id: book.id, title: "X", details: BookDetails(isbn: "9780141439519"), expectedRevision: 4))
        }
        #expect(try await remote.load(id: book.id) == cleared)
    }

    @Test("the history records every field of every revision, hand-written SQL included")
    func historyRecordsEveryField() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        let remote = try await catalog.remote(for: editor)
        let saved = try await remote.save(
            SaveRequest(id: book.id, title: "Emma", details: Self.details, expectedRevision: 1))
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        _ = try await sql.rows(
            "UPDATE bookshelf.books SET notes = $1, tags = '{Classic}', revision = revision + 1 WHERE id = $2",
            ["Reread in 2026.", String(book.id)])

        let byHand = BookDetails(
            isbn: Self.isbn, year: 1813, publisher: "Penguin Classics", series: "Austen's Novels",
            seriesIndex: SeriesIndex(thousandths: 2_500), tags: ["Classic"], notes: "Reread in 2026.")
        let history = try await remote.history(of: book.id)
        #expect(
            history.map(\.record) == [
                BookRecord(id: book.id, title: "Emma", revision: 3, details: byHand), saved, book,
            ])
        #expect(history.map(\.account) == [editor.name, editor.name, nil])
        #expect(
            try await sql.rows(
                """
                SELECT revision, isbn, year, publisher, series, series_index::text, tags::text, notes
                FROM bookshelf.book_revisions WHERE book_id = $1 ORDER BY revision
                """, [String(book.id)])
                == [
                    ["1", nil, nil, "", "", nil, "{}", ""],
                    [
                        "2", Self.isbn, "1813", "Penguin Classics", "Austen's Novels", "2.5", "{Classic,Romance}",
                        Self.details.notes,
                    ],
                    [
                        "3", Self.isbn, "1813", "Penguin Classics", "Austen's Novels", "2.5", "{Classic}",
                        "Reread in 2026.",
                    ],
                ])
    }

    @Test("an editor's hand-written UPDATE cannot store what the rules refuse, and can store what they take")
    func checksRefuseBadValues() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        let id = String(book.id)
        func update(_ column: String, _ value: String?) async throws -> Result<[[String?]], PostgresCallFailure> {
            try await sql.run(
                "UPDATE bookshelf.books SET \(column) = $1, revision = revision + 1 WHERE id = $2", [value, id])
        }
        let nextYear = BookValidation.latestYear
        let refused: [(String, String, String, String)] = [
            ("isbn", "9780141439519", "books_isbn_valid", "a wrong check digit"),
            ("isbn", "0141439513", "books_isbn_valid", "the ISBN-10 form"),
            ("isbn", "978-0141439518", "books_isbn_valid", "a hyphen"),
            ("isbn", "9770141439518", "books_isbn_valid", "a prefix other than 978 and 979"),
            ("year", "-3001", "books_year_valid", "before -3000"),
            ("year", String(nextYear + 2), "books_year_valid", "the year after next"),
            ("publisher", "Penguin\u{1B}[2J", "books_publisher_valid", "an escape"),
            ("publisher", String(repeating: "é", count: 401), "books_publisher_valid", "802 bytes"),
            ("series", "Austen\u{202E}", "books_series_valid", "a bidi override"),
            ("series_index", "1.2345", "books_series_index_valid", "four decimals"),
            ("series_index", "-1", "books_series_index_valid", "a negative position"),
            ("series_index", "100000", "books_series_index_valid", "past 99999.999"),
            ("series_index", "NaN", "books_series_index_valid", "NaN"),
            ("tags", "{\"a,b\"}", "books_tags_valid", "a tag with a comma"),
            ("tags", "{\"\"}", "books_tags_valid", "an empty tag"),
            ("tags", "{\" padded\"}", "books_tags_valid", "a tag with a space at its start"),
            ("tags", "{\"\u{200B}\"}", "books_tags_valid", "an invisible tag"),
            ("tags", "{\"bell\u{7}\"}", "books_tags_valid", "a control character in a tag"),
            ("tags", "{" + String(repeating: "x", count: 201) + "}", "books_tags_valid", "a tag past 200 bytes"),
            ("tags", "{" + (0...50).map { "t\($0)" }.joined(separator: ",") + "}", "books_tags_valid", "51 tags"),
            ("tags", "{{a},{b}}", "books_tags_valid", "two dimensions"),
            ("tags", "{a,NULL}", "books_tags_valid", "a NULL tag"),
            ("notes", "line\u{1B}[2J", "books_notes_valid", "an escape in notes"),
            ("notes", "a\rb", "books_notes_valid", "a carriage return"),
            (
                "notes", String(repeating: "x", count: BookValidation.maximumNotesBytes + 1), "books_notes_valid",
                "past the byte bound"
            ),
        ]
        for (column, value, constraint, name) in refused {
            let result = try await update(column, value)
            #expect(result.sqlState == PostgresServerError.checkViolation, "\(name): \(result)")
            #expect(PostgresValidityCheckTests.constraint(of: result) == constraint, "\(name)")
        }
        #expect(try await sql.rows("SELECT revision FROM bookshelf.books WHERE id = $1", [id]) == [["1"]])

        // What the app takes, the server takes; the editor's grant covers every new column.
        let taken: [(String, String?)] = [
            ("isbn", Self.isbn), ("isbn", "9791032305690"), ("isbn", nil), ("year", "-3000"),
            ("year", String(nextYear)),
            ("publisher", "Gallimard"), ("series", "Les Rougon-Macquart"), ("series_index", "99999.999"),
            ("series_index", "0"), ("tags", "{Classic,\"Science fiction\",Æther}"), ("tags", "{}"),
            ("notes", "line one\nline two"),
        ]
        for (column, value) in taken {
            let result = try await update(column, value)
            #expect((try? result.get()) != nil, "\(column) = \(value ?? "NULL"): \(result)")
        }
        #expect(
            try await sql.rows("SELECT revision FROM bookshelf.books WHERE id = $1", [id]) == [
                [String(1 + taken.count)]
            ])
        let readerSQL = try await RawSQLSession(catalog.connector(for: reader))
        #expect(
            try await readerSQL.run(
                "UPDATE bookshelf.books SET notes = 'mine', revision = revision + 1 WHERE id = $1", [id]
            )
            .sqlState == PostgresServerError.insufficientPrivilege)
    }

    @Test("the server's ISBN rule agrees with ISBN.canonical on valid ISBNs and every one-digit slip of them")
    func isbnRuleAgrees() async throws {
        let catalog = try await PostgresTestCatalog.make()
        var candidates: [String] = []
        var state: UInt64 = 40
        for _ in 0..<200 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let body = (state % 2 == 0 ? "978" : "979") + String(format: "%09ld", Int(state >> 20) % 1_000_000_000)
            let valid = (0...9).map { body + String($0) }.first { ISBN.canonical($0) == .success($0) }!
            candidates.append(valid)
            let position = Int(state >> 8) % 13
            var digits = Array(valid)
            digits[position] = Character(String((Int(String(digits[position]))! + 1) % 10))
            candidates.append(String(digits))
        }
        let answers = try await catalog.setup.execute(
            "SELECT bookshelf.is_isbn13(c) FROM unnest($1::text[]) WITH ORDINALITY AS t(c, n) ORDER BY n",
            ["{" + candidates.joined(separator: ",") + "}"])
        let expected = candidates.map { ISBN.canonical($0) == .success($0) ? "t" : "f" }
        #expect(answers.map { $0[0] } == expected)
        #expect(expected.filter { $0 == "f" }.count == 200)
    }

    @Test("a row whose details break the rules is read canonical or empty, never a crash or an error")
    func brokenRowIsRead() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        // As if written while the constraints were dropped and the year's trigger was off.
        let constraints = [
            "books_isbn_valid", "books_year_valid", "books_series_index_valid", "books_tags_valid",
            "books_publisher_valid", "books_notes_valid",
        ]
        for constraint in constraints {
            _ = try await catalog.setup.execute("ALTER TABLE bookshelf.books DROP CONSTRAINT \(constraint)")
        }
        _ = try await catalog.setup.execute("ALTER TABLE bookshelf.books DISABLE TRIGGER books_year_not_late")
        _ = try await catalog.setup.execute(
            """
            UPDATE bookshelf.books SET isbn = '97801414395xx', year = 99999, series_index = 1.23456,
                tags = ARRAY['a,b', 'Gothic', NULL, 'gothic', ' Classic ', ''], publisher = $1, notes = $2,
                revision = revision + 1
            WHERE id = $3
            """, ["Penguin\u{1B}[2J", "one\r\ntwo\r\u{7}three", String(book.id)])
        let remote = try await catalog.remote(for: editor)
        let expected = BookRecord(
            id: book.id, title: "Emma", revision: 2,
            details: BookDetails(
                publisher: "Penguin\u{FFFD}[2J", tags: ["Classic", "Gothic"], notes: "one\ntwo\n\u{FFFD}three"))
        #expect(try await remote.load(id: book.id) == expected)
        #expect(try await remote.search(SearchQuery(text: "emma")).records == [expected])
        #expect(try await remote.history(of: book.id).first?.record == expected)
    }

    @Test("an import carries every field; into a catalog without the columns, a book with details adds nothing")
    func importCarriesDetails() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let tricky = BookDetails(
            isbn: Self.isbn, year: -400, publisher: "Tab\\Slash \"Press\"", series: "{Braces}",
            seriesIndex: SeriesIndex(thousandths: 1), tags: ["back\\slash", "He said \"hi\"", "{x}"],
            notes: "one\n\ntwo \\n three")
        let books = try await catalog.addBooks(
            [NewBook(title: "Tricky", details: tricky), NewBook(title: "Plain")], scope: "main")
        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.load(id: books[0].id).details == tricky)
        #expect(try await remote.load(id: books[1].id).details == BookDetails.empty)
        #expect(try await remote.history(of: books[0].id).map(\.record.details) == [tricky])

        let old = try await PostgresTestCatalog.make(schemaVersion: 10)
        await #expect(throws: BookFailure.self) {
            try await old.setup.importBooks(
                [NewBook(title: "Plain"), NewBook(title: "Tricky", details: tricky)], scope: "main")
        }
        #expect(try await old.setup.execute("SELECT count(*) FROM bookshelf.books") == [["0"]])
    }
}
