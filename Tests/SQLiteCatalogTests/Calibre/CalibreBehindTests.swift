import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// A session on a Calibre library while another program adds more books than a search catches
/// up with in its own read (issue 61's index-behind answers, on a library): searches answer as
/// the library stood, and the change check says once when the index has caught up, so that a
/// session that stopped typing searches again.
@Suite struct CalibreBehindTests {
    let directory: TemporaryDirectory
    let library: CalibreLibraryCopy
    init() throws {
        directory = try TemporaryDirectory()
        library = try CalibreLibraryCopy(in: directory)
    }

    /// More than `SearchTuning.backgroundCatchUpRows`.
    static let added = 5_000

    @Test func theChangeCheckTellsWhenTheIndexHasCaughtUpWithCalibresManyChanges() async throws {
        let remote = try CalibreLibraryStore.open(
            path: library.folder, environment: ["XDG_CACHE_HOME": directory.path("cache")]
        )
        .remote(lockName: "bookshelf-test-\(UUID().uuidString)")
        _ = try await remote.searchIndexReport()
        let first = try await remote.search(SearchQuery(text: "zebrine"))
        #expect(first.source == .index && first.total == 0, "\(String(describing: first.source))")
        #expect(try await remote.checkForChanges() == nil)

        // Another program adds the books, as calibre does (its triggers give each its sort and uuid).
        try library.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.added))
            INSERT INTO books(title, author_sort, last_modified) SELECT 'Zebrine ' || i, 'Nobody', '2026-12-07 09:00:00+00:00' FROM n
            """)
        let behind = try await remote.search(SearchQuery(text: "zebrine", limit: 5))
        #expect(behind.source == .indexBehind && behind.total == 0, "\(String(describing: behind.source))")
        #expect(try await remote.checkForChanges() != nil, "the other program's commit")

        if let catchingUp = await runningCatchUp(of: remote) { await catchingUp.value }
        await remote.finishIndexPreparation()
        #expect(try await remote.checkForChanges() == .unspecified, "told that the index caught up, before any search")
        #expect(try await remote.checkForChanges() == nil, "told once")
        let page = try await remote.search(SearchQuery(text: "zebrine", limit: 5))
        #expect(page.source == .index && page.total == Self.added, "\(String(describing: page.source)) \(page.total)")
    }

}
