import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 15 (issue 41): a rank the planner expects to have fewer candidates than a walk
/// reads entries is read from its candidates at once; when the estimate was too low, the read
/// stops and the rank is walked as before. Whatever the path, the pages are SearchTerms' order.
@Suite(
    "A rank with few candidates is read from them at once; one misestimated is walked",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresFewCandidatesReadTests {
    @Test("ranks with few candidates are read from them at once, and page on from a cursor inside them")
    func fewCandidatesAreReadAtOnce() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // 400 titles hold "shelf" after their first word (rank 1 of "shelf") and 300 authors are
        // Shelfers (rank 2): the planner expects some 400 and 700 candidates, fewer than a walk's
        // 2,000 entries. Every 4th book has a "shelf" tag (rank 3, 5,000 books), so the word
        // is not counted and the ranks are read in turn. Stored in reverse title order, so that
        // the table's order is not the page's.
        let books = (0..<20_000).reversed().map { index in
            NewBook(
                title: PostgresThinRankPagingTests.title(index) + (index % 50 == 7 ? " Shelf" : ""),
                author: index % 50 == 11 || index % 200 == 13 ? "Ann Shelfer" : "Anon",
                details: BookDetails(tags: index % 4 == 1 ? ["shelf"] : []))
        }
        let stored = try await catalog.addBooks(books, scope: "main")
        try await catalog.setup.analyze()
        try await PostgresThinRankPagingTests.expectPagesInOrder(["shelf", "sh"], stored: stored, catalog: catalog)
    }

    @Test("a rank with more candidates than its stale estimate is walked, in SearchTerms' order")
    func aWrongEstimateFallsBackToTheWalk() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Analysed while 40 titles hold "shelf" after their first word, so the planner expects
        // some 40 in rank 1; then 1,500 more are stored, unanalysed (autovacuum off for the
        // table), and reading the candidates at once stops at twice the estimate and a page.
        _ = try await catalog.setup.execute("ALTER TABLE bookshelf.books SET (autovacuum_enabled = off)")
        let first = (0..<20_000).map { index in
            NewBook(
                title: PostgresThinRankPagingTests.title(index) + (index % 500 == 7 ? " Shelf" : ""),
                details: BookDetails(tags: index % 4 == 1 ? ["shelf"] : []))
        }
        var stored = try await catalog.addBooks(first, scope: "main")
        try await catalog.setup.analyze()
        let later = (0..<1_500).reversed().map { index in
            NewBook(title: PostgresThinRankPagingTests.title(index * 13) + " Shelf Again")
        }
        stored += try await catalog.addBooks(later, scope: "main")
        let estimate = try await catalog.setup.execute(
            "SELECT bookshelf.estimated_rank_candidates('main', 'shelf'::tsquery, 1)")
        let estimated = try #require(estimate.first?[0].flatMap { Int($0) })
        #expect(2 * estimated + 251 < 1_500, "the estimate (\(estimated)) is not stale enough to stop the read")
        try await PostgresThinRankPagingTests.expectPagesInOrder(["shelf"], stored: stored, catalog: catalog)
    }
}
