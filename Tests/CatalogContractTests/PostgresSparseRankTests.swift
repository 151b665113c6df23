import BookCatalog
import Foundation
@testable import PostgresCatalog
import Testing

/// Schema version 14 (issue 41): a rank that the first walk of the title index did not fill is
/// walked further when its books lie thin but many through the title order, then its
/// candidates past that walk fill the rest, and the pages are the same as SearchTerms' order.
@Suite(
    "PostgreSQL sparse ranks", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresSparseRankTests {
    @Test(
        "a rank spread thin through the title order pages in SearchTerms' order, walked further and then by its candidates"
    )
    func aThinRankIsWalkedFurther() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        // Every 14th book has "shelf" in its author (rank 2 of "shelf"), but for a gap of 1,000
        // books, in title order; every 4th has a "shelf" tag (rank 3), so that the word has too
        // many candidates to count and each rank is walked. The third page (250 books) finds
        // some 140 of rank 2's books in the first walk of 2,000 entries, walks on some 2,360
        // entries (cheaper than rank 2's 1,300 candidates at five entries a row), which the gap
        // leaves short, and takes the rest from the candidates past that walk's end.
        let books = (0..<20_000).map { index in
            let shelfer = index % 14 == 0 && !(3_000..<4_000).contains(index)
            return NewBook(
                title: "Title " + String(repeating: "0", count: 5 - String(index).count) + String(index),
                author: shelfer ? "Ann Shelfer" : "Anon",
                details: BookDetails(tags: index % 4 == 1 ? ["shelf"] : []))
        }
        let stored = try await catalog.addBooks(books, scope: "main")
        try await catalog.setup.analyze()
        let remote = try await catalog.remote(for: editor)
        for text in ["shelf", "sh"] {
            let terms = SearchTerms(text)
            let expected = stored.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(\.id)
            var paged: [Int] = []
            var cursor: SearchCursor?
            for limit in [1, 49] + Array(repeating: 250, count: 30) {
                let page = try await remote.search(
                    SearchQuery(text: text, limit: limit, offset: paged.count, after: cursor))
                if paged.isEmpty, case .exact = page.totalCount {
                    Issue.record("\(text) was counted; the walks are not exercised")
                }
                guard !page.records.isEmpty else { break }
                paged += page.records.map(\.id)
                cursor = page.next
            }
            #expect(paged == expected, "\(text): \(paged.count) of \(expected.count)")
        }
    }
}
