import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// The terms of a book's series, publisher and tags (`other_terms`), which searches match: derived
/// by the upgrade for books that had details, written by every insert, kept by a save that keeps
/// the details.
@Suite struct OtherTermsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Each field's folded tokens, the fields apart: series, publisher, then each tag.
    static let separator = " \u{1F} "

    private func otherTerms(_ path: String, id: Int) throws -> String? {
        let raw = try RawConnection(path)
        return try queryText(raw.handle, "SELECT other_terms FROM books WHERE id = \(id)")
    }

    @Test func aVersionSixCatalogWithDetailsDerivesTheirTermsAndDropsItsStoredIndex() async throws {
        let path = directory.path("v6.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            try execute(created.handle, Self.versionSixSchema)
            try execute(
                created.handle,
                """
                INSERT INTO accounts VALUES ('reader', 'reader', 'main');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq,
                    publisher, series, tags, notes) VALUES
                    ('main', 'Mort', 'Pratchett', 1, 'mort', 'mort', 'pratchett', 1,
                        'Gollancz', 'Discworld', '["Fantasy","Hi-Fi Café"]', 'never searched'),
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 2, '', '', '[]', 'notes only');
                INSERT INTO search_snapshots VALUES ('main', 7, 2, 2, x'00');
                PRAGMA user_version = 6;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(
            try otherTerms(path, id: 1)
                == ["discworld", "gollancz", "fantasy", "hi fi cafe"].joined(separator: Self.separator))
        #expect(try otherTerms(path, id: 2) == "")
        #expect(try queryText(raw.handle, "SELECT count(*) FROM search_snapshots") == "0")
        #expect(
            try queryText(raw.handle, "SELECT count(*) FROM sqlite_master WHERE name = 'books_by_isbn'") == "1")
        _ = catalog
    }

    /// A new catalog at `name` with an editor's remote and "Mort" by Pratchett with `details`.
    private func catalogWithMort(_ name: String, details: BookDetails) throws
        -> (path: String, editor: SQLiteBookRemote, added: BookRecord)
    {
        let path = directory.path(name)
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        let added = try catalog.addBook(NewBook(title: "Mort", author: "Pratchett", details: details), scope: "main")
        return (path, try catalog.remote(account: "editor"), added)
    }

    @Test func aSaveWithoutDetailsKeepsTheirTermsAndOneWithDetailsWritesThem() async throws {
        let (path, editor, added) = try catalogWithMort(
            "saves.sqlite", details: BookDetails(series: "Discworld", tags: ["Death"]))
        #expect(try otherTerms(path, id: added.id) == "discworld" + Self.separator + "death")

        let renamed = try await editor.save(SaveRequest(id: added.id, title: "Mort!", expectedRevision: 1))
        #expect(try otherTerms(path, id: added.id) == "discworld" + Self.separator + "death")

        _ = try await editor.save(
            SaveRequest(
                id: added.id, title: renamed.title, details: BookDetails(publisher: "Corgi"),
                expectedRevision: renamed.revision))
        #expect(try otherTerms(path, id: added.id) == "corgi")
    }

    /// A save writes only the columns whose value changes, so an unchanged field's search terms
    /// are neither worked out again nor written (nor its index entries): terms set here by hand
    /// stay as they are until their own field changes.
    @Test func aSaveWritesTheSearchColumnsOfTheFieldsItChangesOnly() async throws {
        let (path, editor, added) = try catalogWithMort("changed.sqlite", details: BookDetails(tags: ["Death"]))
        func terms() throws -> [String?] {
            let raw = try RawConnection(path)
            return try ["title_key", "title_terms", "author_terms", "other_terms"].map {
                try queryText(raw.handle, "SELECT \($0) FROM books WHERE id = \(added.id)")
            }
        }
        do {
            let raw = try RawConnection(path)
            try execute(
                raw.handle,
                "UPDATE books SET title_key = 'k', title_terms = 't', author_terms = 'a', other_terms = 'o'")
        }

        let tagged = try await editor.save(
            SaveRequest(
                id: added.id, title: "Mort", author: "Pratchett", details: BookDetails(tags: ["Death", "Rincewind"]),
                expectedRevision: 1))
        #expect(try terms() == ["k", "t", "a", "death" + Self.separator + "rincewind"])

        let renamed = try await editor.save(
            SaveRequest(
                id: added.id, title: "Small Gods", author: "Pratchett", details: tagged.details,
                expectedRevision: tagged.revision))
        #expect(try terms() == ["small gods", "small gods", "a", "death" + Self.separator + "rincewind"])

        _ = try await editor.save(
            SaveRequest(
                id: added.id, title: "Small Gods", author: "Terry Pratchett", details: tagged.details,
                expectedRevision: renamed.revision))
        #expect(try terms() == ["small gods", "small gods", "terry pratchett", "death" + Self.separator + "rincewind"])
    }

    @Test func anImportWritesTheTermsOfEachBooksDetails() throws {
        let path = directory.path("import.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        let count = try catalog.insertBooks(
            [
                NewBook(
                    title: "Mort", author: "Pratchett", details: BookDetails(publisher: "Gollancz", tags: ["Ankh"])),
                NewBook(title: "Plain", author: "Nobody"),
            ], scope: "main")
        #expect(count == 2)
        #expect(try otherTerms(path, id: 1) == "gollancz" + Self.separator + "ankh")
        #expect(try otherTerms(path, id: 2) == "")
    }

    /// The schema of version 6: version 5 and the details' columns (without their checks, which
    /// the upgrade does not depend on).
    static let versionSixSchema =
        SchemaUpgradeTests.versionFiveSchema
        + ["books", "book_revisions"].map { table in
            """
            ALTER TABLE \(table) ADD COLUMN isbn TEXT;
            ALTER TABLE \(table) ADD COLUMN year INTEGER;
            ALTER TABLE \(table) ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
            ALTER TABLE \(table) ADD COLUMN series TEXT NOT NULL DEFAULT '';
            ALTER TABLE \(table) ADD COLUMN series_index_thousandths INTEGER;
            ALTER TABLE \(table) ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
            ALTER TABLE \(table) ADD COLUMN notes TEXT NOT NULL DEFAULT '';

            """
        }.joined()

    /// An ISBN query reads the books of that ISBN through `books_by_isbn`; asked in title order,
    /// SQLite read every book of the scope through the title index instead (3 s at a million).
    @Test func anISBNQueryReadsItsBooksThroughTheISBNIndex() throws {
        let path = directory.path("isbn.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        _ = try catalog.insertBooks(
            [NewBook(title: "Dune", details: BookDetails(isbn: "9780441172719"))], scope: "main")
        let raw = try RawConnection(path)
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                raw.handle, "EXPLAIN QUERY PLAN " + SQLiteSearchSource.booksOfTheISBN, -1, &statement, nil)
                == SQLITE_OK
        else { throw RawError(message: String(cString: sqlite3_errmsg(raw.handle))) }
        defer { sqlite3_finalize(statement) }
        var plan: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { plan.append(String(cString: sqlite3_column_text(statement, 3))) }
        #expect(plan == ["SEARCH books USING INDEX books_by_isbn (scope=? AND isbn=?)"])
    }
}
