import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
import Testing

/// Import and re-import into a Calibre library in place (issue 60, ask 5): the books written as
/// calibre writes them, what the imports remember kept in Bookshelf's file in the state folder,
/// never in `metadata.db`, and the same three-way rule as every store (`Reimport.run`).
@Suite struct CalibreReimportTests {
    let directory: TemporaryDirectory
    let library: CalibreLibraryCopy
    let lockName = "bookshelf-test-\(UUID().uuidString)"
    var stateFolder: String { directory.path("state/bookshelf") }

    init() throws {
        directory = try TemporaryDirectory()
        library = try CalibreLibraryCopy(in: directory)
    }

    private var store: CalibreLibraryStore {
        get throws {
            try CalibreLibraryStore.open(path: library.folder, environment: ["XDG_CACHE_HOME": directory.path("cache")])
        }
    }

    private func reimport(_ books: [SourcedBook], _ plan: ReimportPlan) throws -> ReimportReport {
        try store.reimport(books, plan: plan, stateFolder: stateFolder, lockName: lockName)
    }

    private func book(_ id: Int) async throws -> BookRecord {
        try await store.remote(lockName: lockName).load(id: id)
    }

    /// The rows of Bookshelf's own file for the library, by `sql`.
    private func stateColumn(_ sql: String) throws -> [String] {
        let uuid = try #require(try library.column("SELECT uuid FROM library_id").first)
        let connection = try Connection(path: "\(stateFolder)/calibre/\(uuid).sqlite", flags: SQLITE_OPEN_READONLY)
        return try connection.query(sql) { $0.text(0) }
    }

    private static func goodreads(_ id: String, _ title: String, _ details: BookDetails) -> SourcedBook {
        SourcedBook(
            NewBook(title: title, author: "Frank Herbert", details: details),
            origin: BookOrigin(source: .goodreads, id: id))
    }

    @Test func aDryRunChangesNothingAndASecondImportMergesThreeWays() async throws {
        let schema = try library.column("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1")
        let dune = BookDetails(year: 1965, publisher: "Chilton", tags: ["sf"], notes: "First.")
        let first = try reimport([Self.goodreads("1", "Dune", dune)], ReimportPlan(source: .goodreads))
        #expect(first.added == 1)
        let id = try #require(Int(try library.column("SELECT id FROM books WHERE title = 'Dune'").first ?? ""))
        #expect(
            try stateColumn("SELECT source || ' ' || source_id || ' ' || book_id FROM import_provenance") == [
                "goodreads 1 \(id)"
            ])

        // Here: the publisher only, and the year. The source: the year, otherwise, and the tags.
        let stored = try await book(id)
        let mine = BookDetails(year: 1966, publisher: "Ace", tags: ["sf"], notes: "First.")
        _ = try await store.remote(lockName: lockName).save(
            SaveRequest(
                id: id, title: stored.title, author: stored.author, details: mine, expectedRevision: stored.revision))
        let edited = try await book(id)
        let theirs = BookDetails(year: 1964, publisher: "Chilton", tags: ["sf", "read"], notes: "First.")
        let again = [Self.goodreads("1", "Dune", theirs)]

        let dry = try reimport(again, ReimportPlan(source: .goodreads, dryRun: true))
        #expect(dry.updated == 1 && dry.updatedFields == 1 && dry.conflictCount == 1 && dry.added == 0)
        #expect(try await book(id) == edited)
        #expect(try stateColumn("SELECT import_stamp FROM import_provenance") == ["1"])

        let report = try reimport(again, ReimportPlan(source: .goodreads))
        #expect(report.summary() == "added 0, updated 1 (1 field), unchanged 0, conflicts 1, gone from the source 0")
        #expect(report.conflicts.map(\.field) == [.year])
        let merged = try await book(id)
        #expect(merged.title == "Dune" && merged.author == "Frank Herbert")
        #expect(merged.details.publisher == "Ace", "only here: yours")
        #expect(merged.details.year == 1966, "both, differently: yours")
        // Tags are kept in Bookshelf's order, whatever order the source gives them.
        #expect(merged.details.tags == ["read", "sf"], "only in the source: theirs")
        #expect(merged.details.notes == "First.")
        #expect(merged.revision > edited.revision)
        // The base is now what the source said: the year is no conflict until the source changes it again.
        #expect(try stateColumn("SELECT year || ' ' || import_stamp FROM import_provenance") == ["1964 2"])
        #expect(try library.column("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1") == schema)
    }

    @Test func aPlainFileMatchesByAnISBNCalibreKeepsInTenDigitsAndABookCalibreDeletedIsAddedAgain() async throws {
        // The fixture's Good Omens (book 2) has the identifier "0-575-04800-X".
        let isbn = try ISBN.canonical("0-575-04800-X").get()
        let omens = SourcedBook(
            NewBook(
                title: "Good Omens", author: "Terry Pratchett & Neil Gaiman",
                details: BookDetails(isbn: isbn, publisher: "Corgi Test")))
        let matched = try reimport([omens], ReimportPlan(source: nil, matchByISBN: true))
        #expect(matched.added == 0)
        // No base: every field that differs from the fixture's book (its year 1990, publisher
        // Gollancz, tags humour and fantasy) is a conflict, kept as yours.
        #expect(matched.conflicts.map(\.bookID) == [2, 2, 2])
        #expect(matched.conflicts.map(\.field) == [.year, .publisher, .tags])
        #expect(try await book(2).details.publisher == "Gollancz")

        let first = try reimport([Self.goodreads("7", "Dune", .empty)], ReimportPlan(source: .goodreads))
        #expect(first.added == 1)
        let id = try #require(Int(try library.column("SELECT id FROM books WHERE title = 'Dune'").first ?? ""))
        try library.execute("DELETE FROM books WHERE id = \(id)")
        let again = try reimport([Self.goodreads("7", "Dune", .empty)], ReimportPlan(source: .goodreads))
        #expect(again.added == 1 && again.goneCount == 0)
        let newID = try #require(Int(try library.column("SELECT id FROM books WHERE title = 'Dune'").first ?? ""))
        #expect(newID > id)
        #expect(try stateColumn("SELECT book_id FROM import_provenance WHERE source = 'goodreads'") == ["\(newID)"])
        #expect(throws: CalibreLibrary.Failure.self) {
            try reimport([], ReimportPlan(source: .goodreads, removeMissing: true))
        }
    }
}
