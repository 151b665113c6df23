import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 13 (issue 41): the word indexes keep no pending list, so no search reads
/// through the words of recent saves, and a bulk import's lists are merged when it ends,
/// committed or not. Version 21 (issue 61): they keep lists again, of 64 kB at most, so a save
/// appends its words there and a search reads a few pages of them at most; version 24 lets a
/// list hold 256 kB, so a bulk edit merges a list a quarter as often.
@Suite(
    "The word indexes keep short pending lists at most; a bulk import merges its own",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresPendingListTests {
    static let wordIndexes = ["books_title_vector", "books_search_vector", "books_word_vector"]

    /// The pages the word indexes' pending lists held, summed; merging them is how they are read.
    static func pendingPages(_ catalog: PostgresTestCatalog) async throws -> Int {
        let merged = wordIndexes.map { "gin_clean_pending_list('bookshelf.\($0)')" }.joined(separator: " + ")
        let rows = try await catalog.setup.execute("SELECT " + merged)
        return try #require(rows.first?[0].flatMap { Int($0) })
    }

    /// Each word index's storage options, by name.
    static func options(_ catalog: PostgresTestCatalog) async throws -> [String: String] {
        let rows = try await catalog.setup.execute(
            """
            SELECT c.relname, coalesce(array_to_string(c.reloptions, ','), '') FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'bookshelf' AND c.relname = ANY ($1::text[])
            """, ["{" + wordIndexes.joined(separator: ",") + "}"])
        return Dictionary(uniqueKeysWithValues: rows.compactMap { row in row[0].map { ($0, row[1] ?? "") } })
    }

    /// How many lexemes the word index's statistics keep the frequency of.
    static func keptLexemes(_ catalog: PostgresTestCatalog) async throws -> Int {
        let rows = try await catalog.setup.execute(
            """
            SELECT array_length(most_common_elems, 1) FROM pg_catalog.pg_stats
            WHERE schemaname = 'bookshelf' AND tablename = 'books_word_vector'
            """)
        return try #require(rows.first?[0].flatMap { Int($0) })
    }

    /// Words enough that a few hundred saves pass a list's limit several times.
    static let longTitle = "over the northern quays at dusk by candle and lantern beside wintering boats"

    static let listsOff = Dictionary(uniqueKeysWithValues: wordIndexes.map { ($0, "fastupdate=off") })
    static let keptLists = Dictionary(
        uniqueKeysWithValues: wordIndexes.map { ($0, "fastupdate=on,gin_pending_list_limit=256") })

    @Test("a catalog of version 12 merges the words its saves left pending, and at version 13 saves leave none")
    func migrationMergesPendingWords() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 12)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks((0..<40).map { NewBook(title: "Book \($0)") }, scope: "main")
        // Some 1,500 distinct prefixes of numbers, more than the default statistics keep.
        _ = try await catalog.addBooks((0..<1_500).map { NewBook(title: "Volume \($0)") }, scope: "main")
        try await catalog.setup.analyze()
        #expect(try await Self.keptLexemes(catalog) == 1_000)
        // Today's saves record their batch, a column version 12 lacks: before the migration the
        // books are updated as version 12's save did it, a title and the next revision.
        func updateEach(_ title: String) async throws {
            for book in books {
                _ = try await catalog.setup.execute(
                    "UPDATE bookshelf.books SET title = $1, revision = revision + 1 WHERE id = $2::bigint",
                    ["\(title) \(book.id)", String(book.id)])
            }
        }
        // Version 12's indexes keep lists: the saves' words wait there for every search to read.
        try await updateEach("Orchard")
        #expect(try await Self.pendingPages(catalog) > 0)
        try await updateEach("Meadow")

        #expect(try await catalog.setup.migrate(upTo: PostgresSchema.steadyIndexesVersion) == 13)
        #expect(try await Self.options(catalog) == Self.listsOff)
        #expect(try await Self.pendingPages(catalog) == 0, "the migration merged the lists")
        try await updateEach("Lantern")
        #expect(try await Self.pendingPages(catalog) == 0, "a save writes the trees")

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        let remote = try await catalog.remote(for: editor)
        func saveEach(_ title: String, from revision: Int) async throws {
            for book in books {
                _ = try await remote.save(
                    SaveRequest(id: book.id, title: "\(title) \(book.id)", expectedRevision: revision))
            }
        }
        #expect(try await Self.options(catalog) == Self.keptLists)
        try await saveEach("Harbour", from: 4)
        #expect(try await remote.search(SearchQuery(text: "harbour")).records.count == books.count)
        #expect(try await remote.search(SearchQuery(text: "meadow")).records.isEmpty)
        // The word index's statistics keep up to ten times the lexemes, so rare words are told apart.
        let kept = try await Self.keptLexemes(catalog)
        #expect(kept > 1_000, "\(kept)")
    }

    @Test("saves append their words to lists that never pass 256 kB, and every search finds them")
    func savesKeepShortLists() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks((0..<800).map { NewBook(title: "Book \($0)") }, scope: "main")
        #expect(try await Self.options(catalog) == Self.keptLists)
        #expect(try await Self.pendingPages(catalog) == 0)

        let remote = try await catalog.remote(for: editor)
        for book in books {
            _ = try await remote.save(
                SaveRequest(
                    id: book.id, title: "Harbour lights \(book.id) \(Self.longTitle)",
                    details: BookDetails(tags: ["quayside"]),
                    expectedRevision: 1))
        }

        // Some 800 saves of some 60 prefixes each, several times what 256 kB hold in each
        // index: each list was merged into its tree whenever it passed the limit, so at most
        // about 32 pages of each are left.
        let pending = try await Self.pendingPages(catalog)
        #expect(pending > 0, "the saves went through the lists")
        #expect(pending <= 3 * 34, "\(pending) pages pending in three lists")
        for text in ["harbour", "harbour li", "quay"] {
            let found = try await PostgresTestCatalog.pagedIDs(remote, text: text)
            #expect(found.ids.sorted() == books.map(\.id).sorted(), "\(text)")
        }
        #expect(try await remote.search(SearchQuery(text: "book")).records.isEmpty)
    }

    @Test("a bulk import goes through long lists and merges them when it ends, committed or rolled back")
    func importMergesItsLists() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        _ = try await catalog.addBooks((0..<300).map { NewBook(title: "Imported \($0)") }, scope: "main")
        #expect(try await Self.options(catalog) == Self.keptLists)
        #expect(try await Self.pendingPages(catalog) == 0)

        // A book that breaks the rules ends the COPY and rolls it back; the lists close all the same.
        let bad = (0..<300).map { NewBook(title: "Refused \($0)") } + [NewBook(title: "   ")]
        await #expect(throws: (any Error).self) { try await catalog.setup.importBooks(bad, scope: "main") }
        #expect(try await Self.options(catalog) == Self.keptLists)
        #expect(try await Self.pendingPages(catalog) == 0)

        let remote = try await catalog.remote(for: editor)
        #expect(try await remote.search(SearchQuery(text: "imported", limit: 500)).records.count == 300)
        #expect(try await remote.search(SearchQuery(text: "refused")).records.isEmpty)
    }
}
