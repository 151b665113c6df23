import BookCatalog
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 7 (issue 36, findings 5 and 6): the database holds hand-written SQL to
/// `BookValidation`'s blank rule and byte bounds, takes every title the app takes, and a
/// catalog made before keeps its books.
@Suite(
    "PostgreSQL validity checks", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresValidityCheckTests {
    static let update = "UPDATE bookshelf.books SET title = $1, revision = revision + 1 WHERE id = $2"
    static let authorUpdate = "UPDATE bookshelf.books SET author = $1, revision = revision + 1 WHERE id = $2"

    /// Titles the app calls blank (only invisible scalars or spaces).
    static let blankTitles: [(String, String)] = [
        ("U+200B alone", "\u{200B}"), ("U+FEFF alone", "\u{FEFF}"), ("U+FFFE alone", "\u{FFFE}"),
        ("U+200B U+FEFF U+2060", "\u{200B}\u{FEFF}\u{2060}"), ("U+3000 U+200B U+3000", "\u{3000}\u{200B}\u{3000}"),
        ("variation selectors", "\u{FE0F}\u{E0100}"), ("U+00A0 U+200B", "\u{00A0}\u{200B}"),
    ]

    /// One letter and combining marks past the byte bound: one character, as the app counts.
    static let letterAndMarks = "Z" + String(repeating: "\u{0301}", count: 300_000)
    static let overTitleBytes = "Z" + String(repeating: "\u{0301}", count: BookValidation.maximumTitleBytes / 2)
    static let overAuthorBytes = "Z" + String(repeating: "\u{0301}", count: BookValidation.maximumAuthorBytes / 2)
    /// 400 characters, each "e" and a combining acute: 800 scalars, 1,200 bytes. The app takes it.
    static let decomposedTitle = String(repeating: "e\u{0301}", count: 400)
    static let decomposedAuthor = String(repeating: "e\u{0301}", count: 150)

    @Test("an editor's hand-written UPDATE cannot store a blank title or text past the byte bounds")
    func editorUpdateIsRefused() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let book = try await catalog.addBooks([NewBook(title: "Emma")], scope: "main")[0]
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        let id = String(book.id)

        for (name, title) in Self.blankTitles {
            #expect(BookValidation.isBlank(title), "\(name) is blank to the app")
            let result = try await sql.run(Self.update, [title, id])
            #expect(result.sqlState == PostgresServerError.checkViolation, "\(name): \(result)")
            #expect(Self.constraint(of: result) == "books_title_valid", "\(name)")
        }
        for (name, title) in [("300,000 marks", Self.letterAndMarks), ("one byte over", Self.overTitleBytes)] {
            #expect(title.count == 1 && title.utf8.count > BookValidation.maximumTitleBytes)
            let result = try await sql.run(Self.update, [title, id])
            #expect(Self.constraint(of: result) == "books_title_valid", "\(name): \(result)")
        }
        #expect(Self.overAuthorBytes.utf8.count == BookValidation.maximumAuthorBytes + 1)
        let author = try await sql.run(Self.authorUpdate, [Self.overAuthorBytes, id])
        #expect(Self.constraint(of: author) == "books_author_valid", "\(author)")

        // Nothing of that was stored: the book is as it was.
        #expect(
            try await sql.rows("SELECT title, author, revision FROM bookshelf.books WHERE id = $1", [id])
                == [["Emma", "", "1"]])
        // Editors cannot insert at all (the grant), so the owner's INSERT is the other way in.
        let insert = try await sql.run(
            "INSERT INTO bookshelf.books (scope, title, title_sort, title_words, author_words) VALUES ('main', 'x', 'x', ' x', ' ')"
        )
        #expect(insert.sqlState == PostgresServerError.insufficientPrivilege, "\(insert)")
    }

    @Test("the owner's hand-written INSERT cannot store a blank title or text past the byte bounds")
    func ownerInsertIsRefused() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let refused =
            Self.blankTitles.map { ($0.0, $0.1, "") }
            + [
                ("300,000 marks", Self.letterAndMarks, ""), ("title one byte over", Self.overTitleBytes, ""),
                ("author one byte over", "Emma", Self.overAuthorBytes),
            ]
        for (name, title, author) in refused {
            let failure = await #expect(throws: (any Error).self, "\(name)") {
                try await catalog.put(BookRecord(id: 1, title: title, revision: 1, author: author), scope: "main")
            }
            let constraint = author.isEmpty ? "books_title_valid" : "books_author_valid"
            #expect(
                failure.map { String(describing: $0).contains(constraint) } == true,
                "\(name): \(String(describing: failure))")
        }
        #expect(try await catalog.setup.execute("SELECT count(*) FROM bookshelf.books") == [["0"]])
    }

    @Test("a title and author the app takes are taken by the server, from the app and from SQL")
    func validTextPasses() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks([NewBook(title: "Emma"), NewBook(title: "Persuasion")], scope: "main")
        // What the app accepts, at its bounds: grapheme clusters of several scalars, the byte limit.
        let atTitleBytes = "Z" + String(repeating: "\u{0301}", count: (BookValidation.maximumTitleBytes - 1) / 2)
        let atAuthorBytes = "Z" + String(repeating: "\u{0301}", count: (BookValidation.maximumAuthorBytes - 1) / 2)
        #expect(try BookValidation.title(Self.decomposedTitle) == Self.decomposedTitle)
        #expect(try BookValidation.title(atTitleBytes) == atTitleBytes)
        #expect(try BookValidation.author(Self.decomposedAuthor) == Self.decomposedAuthor)
        #expect(try BookValidation.author(atAuthorBytes) == atAuthorBytes)
        #expect(atTitleBytes.utf8.count == BookValidation.maximumTitleBytes - 1)

        let remote = try await catalog.remote(for: editor)
        let saved = try await remote.save(
            SaveRequest(
                id: books[0].id, title: Self.decomposedTitle,
                author: Self.decomposedAuthor, expectedRevision: 1))
        #expect(
            saved
                == BookRecord(id: books[0].id, title: Self.decomposedTitle, revision: 2, author: Self.decomposedAuthor))
        let again = try await remote.save(
            SaveRequest(id: books[0].id, title: atTitleBytes, author: atAuthorBytes, expectedRevision: 2))
        #expect(again.revision == 3)

        let sql = try await RawSQLSession(catalog.connector(for: editor))
        for title in ["\u{200B}Persuasion\u{FEFF}", "\u{FEFF}x", "Ünïcödé 📚", "e\u{0301}"] {
            let result = try await sql.run(Self.update + " RETURNING title", [title, String(books[1].id)])
            #expect((try? result.get()) == [[title]], "\(result)")
        }
    }

    @Test("a catalog of schema version 6 keeps its books, blank titles included, and goes on taking edits")
    func migrationKeepsBooks() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 6)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Emma"), NewBook(title: "Persuasion", author: "Jane Austen")],
            scope: "main")
        // Under version 6 a blank title got in by hand-written SQL.
        let blank = BookRecord(id: books[1].id + 1, title: "\u{200B}", revision: 1)
        try await catalog.put(blank, scope: "main")
        let before = try await catalog.setup.execute(
            "SELECT id, title, author, revision FROM bookshelf.books ORDER BY id")
        #expect(before.count == 3)

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        #expect(
            try await catalog.setup.execute("SELECT id, title, author, revision FROM bookshelf.books ORDER BY id")
                == before)

        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.load(id: blank.id) == blank)
        #expect(
            try await remote.save(SaveRequest(id: books[0].id, title: "Emma, Revised", expectedRevision: 1)).revision
                == 2)
        #expect(
            try await remote.save(SaveRequest(id: books[1].id, title: Self.decomposedTitle, expectedRevision: 1))
                .revision == 2)
        // The blank row can be mended; it cannot be kept blank by SQL.
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        #expect(
            Self.constraint(of: try await sql.run(Self.update, ["\u{FEFF}", String(blank.id)])) == "books_title_valid")
        #expect(
            try await remote.save(SaveRequest(id: blank.id, title: "Mansfield Park", expectedRevision: 1)).revision == 2
        )
        #expect(
            try await remote.search(SearchQuery(text: "")).records.map(\.title).sorted()
                == ["Emma, Revised", "Mansfield Park", Self.decomposedTitle].sorted())
    }

    @Test("the constraints the database enforces agree with BookValidation on every scalar")
    func constraintsAgreeOnEveryScalar() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let all = (UInt32(1)...0x10FFFF).compactMap(Unicode.Scalar.init)
        let control = all.filter(BookValidation.isControl)
        // Between two letters a character is refused only for what it is; alone, a title also
        // needs something visible. Notes keep their line feeds.
        let refusedBetweenLetters = control.map { String($0.value) }
        let refusedAloneInTitle = all.filter { BookValidation.isControl($0) || BookValidation.isInvisible($0) }
            .map { String($0.value) }
        let refusedInNotes = control.filter { $0 != "\n" }.map { String($0.value) }
        #expect(
            try await Self.refused(by: "books_title_valid", column: "title", value: "'a' || chr(c) || 'a'", in: catalog)
                == refusedBetweenLetters)
        #expect(
            try await Self.refused(by: "books_title_valid", column: "title", value: "chr(c)", in: catalog)
                == refusedAloneInTitle)
        #expect(
            try await Self.refused(
                by: "books_author_valid", column: "author", value: "'a' || chr(c) || 'a'", in: catalog)
                == refusedBetweenLetters)
        #expect(
            try await Self.refused(by: "books_notes_valid", column: "notes", value: "'a' || chr(c) || 'a'", in: catalog)
                == refusedInNotes)
        #expect(refusedAloneInTitle.count > 100 && refusedBetweenLetters.count > 60)
    }

    /// Every scalar (as a number) for which `value` fails the CHECK `constraint` of the books,
    /// as the database holds it, evaluated with `column` bound to the value: a constraint
    /// written in a migration is compared with the Swift rule of today.
    static func refused(
        by constraint: String, column: String, value: String, in catalog: PostgresTestCatalog
    ) async throws -> [String] {
        let definition = try await catalog.setup.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = $1 AND conrelid = 'bookshelf.books'::regclass",
            [constraint])
        let text = try #require(definition.first?[0])
        let check = text.replacingOccurrences(of: " NOT VALID", with: "")
        #expect(check.hasPrefix("CHECK ("), "\(constraint): \(text)")
        let condition = String(check.dropFirst("CHECK ".count))
        // Every scalar PostgreSQL text can hold (no U+0000, no surrogates).
        let rows = try await catalog.setup.execute(
            """
            SELECT c FROM generate_series(1, 1114111) AS c, LATERAL (SELECT \(value) AS \(column)) AS v
            WHERE c NOT BETWEEN 55296 AND 57343 AND NOT \(condition) ORDER BY c
            """)
        return rows.map { $0[0] ?? "" }
    }

    static func constraint(of result: Result<[[String?]], PostgresCallFailure>) -> String? {
        if case let .failure(.server(error)) = result { return error.constraint }
        return nil
    }
}
