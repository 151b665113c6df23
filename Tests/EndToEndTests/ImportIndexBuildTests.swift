@testable import bookshelf
import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import Testing

/// After an import into SQLite the scope's search index is built and stored in the import's
/// process only while the scope is small enough for that build to stay within the import's
/// memory (issue 55, item 13). Past that, no index is built or stored by the import, and the
/// next program that opens the scope builds it while it answers from the books table.
@Suite struct ImportIndexBuildTests {
    /// A catalog holding `count` books in scope "main" and an editor of it.
    static func catalog(books count: Int, in directory: URL) throws -> SQLiteCatalog {
        let catalog = try SQLiteCatalog.open(
            path: directory.appendingPathComponent("catalog.sqlite").path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        let books = (0..<count).map { NewBook(title: "Book \($0) of Rome", author: "Writer \($0)") }
        try catalog.insertBooks(books, scope: "main")
        return catalog
    }

    /// The stored search index files beside the catalog (`catalog.sqlite-search-…`).
    static func storedIndexes(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("catalog.sqlite-search-")
        }
    }

    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-import-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aScopeWithinTheLimitHasItsIndexStoredBeforeTheImportEnds() async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = try Self.catalog(books: 12, in: directory)

        let outcome = await SearchIndexAfterImport.prepare(catalog, scope: "main", buildLimit: 12)

        #expect(outcome == .stored)
        #expect(try Self.storedIndexes(in: directory).count == 1, "the import stored the scope's index")
    }

    @Test func aScopePastTheLimitLeavesTheBuildToTheNextProgram() async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = try Self.catalog(books: 12, in: directory)

        let outcome = await SearchIndexAfterImport.prepare(catalog, scope: "main", buildLimit: 11)

        #expect(outcome == .leftToNextProgram(books: 12))
        #expect(try Self.storedIndexes(in: directory).isEmpty, "the import built and stored no index")
        #expect(
            SearchIndexAfterImport.note(outcome, scope: "main")
                == "the search index of scope main (12 books) is left to the next program that searches"
                + " it, which answers from the books table, more slowly, until it has built the index")

        // The next program: its remote answers at once and builds and stores the index.
        let remote = try catalog.remote(account: "editor")
        let page = try await remote.search(SearchQuery(text: "book 11", limit: 10))
        #expect(page.records.map(\.title) == ["Book 11 of Rome"])
        try Await.until("the next program to store the index") {
            try Self.storedIndexes(in: directory).count
        } _: {
            $0 == 1
        }
    }
}
