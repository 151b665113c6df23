import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 6: letters that do not decompose ("ø", "æ") fold as transliterated, in the
/// database's folding table and in the search columns of books stored before.
@Suite(
    "A catalog folded before transliteration is folded again, without new revisions",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresRefoldingTests {
    @Test("a catalog folded before transliteration is re-derived without new revisions")
    func migrationRederivesSearchColumns() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 5)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Øresund", author: "Søren Ærø"), NewBook(title: "Adam")],
            scope: "main")
        // As version 5 left them: "ø" and "æ" folded to themselves, in the table and the rows.
        _ = try await catalog.setup.execute("DELETE FROM bookshelf.folding WHERE code IN (216, 248, 198, 230)")
        _ = try await catalog.setup.execute(
            "INSERT INTO bookshelf.folding (code, kind) VALUES (216, 'w'), (248, 'w'), (198, 'w'), (230, 'w')")
        _ = try await catalog.setup.execute("ALTER TABLE bookshelf.books DISABLE TRIGGER USER")
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.books SET title_sort = 'øresund', title_words = ' øresund', author_words = ' søren ærø' WHERE id = $1",
            [String(books[0].id)])
        _ = try await catalog.setup.execute("ALTER TABLE bookshelf.books ENABLE TRIGGER USER")
        // No book is found under the transliterated word (the session of that version searched these columns).
        #expect(
            try await catalog.setup.execute(
                "SELECT count(*) FROM bookshelf.books WHERE title_words || author_words LIKE '% soren%'") == [["0"]])

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.search(SearchQuery(text: "soren aero")).records.map(\.title) == ["Øresund"])
        #expect(try await remote.search(SearchQuery(text: "")).records.map(\.title) == ["Adam", "Øresund"])
        #expect(try await remote.history(of: books[0].id).map(\.record) == [books[0]])
        // An edit after the migration folds with the new table (the database's own trigger).
        let saved = try await remote.save(SaveRequest(id: books[1].id, title: "Æblegrød", expectedRevision: 1))
        #expect(saved.revision == 2)
        #expect(try await remote.search(SearchQuery(text: "aeblegrod")).records.map(\.title) == ["Æblegrød"])
    }
}
