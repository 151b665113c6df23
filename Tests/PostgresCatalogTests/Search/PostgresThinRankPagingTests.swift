import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 14 (issue 41): a rank that the first walk did not fill is walked further when
/// its books lie thin but many through the title order, then its candidates past that walk fill
/// the rest; rank 3 walks the books whose words fit in an index entry merged with those whose
/// words do not. Whatever the path, the pages are SearchTerms' order.
@Suite(
    "A rank spread thin walks the title order further, then reads its candidates",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresThinRankPagingTests {
    /// "Title 00000" to "Title 19999": title order is the index order.
    static func title(_ index: Int) -> String {
        "Title " + String(repeating: "0", count: 5 - String(index).count) + String(index)
    }

    /// Pages through each query and compares the pages with SearchTerms' order of the stored
    /// books, which every path of the search must follow.
    static func expectPagesInOrder(_ texts: [String], stored: [BookRecord], catalog: PostgresTestCatalog) async throws {
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let remote = try await catalog.remote(for: editor)
        for text in texts {
            let terms = SearchTerms(text)
            let expected = stored.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(\.id)
            let (paged, counted) = try await PostgresTestCatalog.pagedIDs(remote, text: text)
            #expect(!counted, "\(text) was counted; the walks are not exercised")
            #expect(paged == expected, "\(text): \(paged.count) of \(expected.count)")
        }
    }

    @Test("a thin rank 2 pages in SearchTerms' order, walked further and then by its candidates")
    func aThinRankIsWalkedFurther() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Rank 2 of "shelf" (a Shelfer the author) holds every 3rd of the first 6,000 books, then
        // every 40th but for a gap of 4,000 books: some 2,250, more than a walk's 2,000 entries,
        // so it is walked (version 15). Every 4th book has a "shelf" tag (rank 3), so that the
        // word has too many candidates to count. The first pages fill in their first walk. The
        // page that starts near the 6,000th book finds some 80 there, walks on some 6,000 entries
        // (less than rank 2's candidates at five entries a row), which the gap leaves short, and
        // takes the rest from the candidates past that walk's end. Past the gap, a first walk
        // finds 50: the page lies 12,000 entries on by that density, further than the candidates
        // would cost, so the longer walk stops there (version 15; it reaches the last book).
        let books = (0..<20_000).map { index in
            let shelfer =
                index < 6_000 ? index % 3 == 0 : index % 40 == 0 && !(12_000..<16_000).contains(index)
            return NewBook(
                title: Self.title(index), author: shelfer ? "Ann Shelfer" : "Anon",
                details: BookDetails(tags: index % 4 == 1 ? ["shelf"] : []))
        }
        let stored = try await catalog.addBooks(books, scope: "main")
        try await catalog.setup.analyze()
        try await Self.expectPagesInOrder(["shelf", "sh"], stored: stored, catalog: catalog)
    }

    @Test("a thin rank 3 pages in SearchTerms' order, its long rows merged with those its index covers")
    func aThinRankThreeMergesLongRows() async throws {
        let catalog = try await PostgresTestCatalog.make()
        // Every book has other words (a "misc" tag), so rank 3 walks all of them. Every 10th
        // has a "shelf" tag (rank 3 of "shelf"), but for gaps of 700 books; every 50th of those
        // has 48 more tags of 50 letters, too long for the covered index. A thousand authors
        // named Shelfer (rank 2) put the word past the counting limit.
        let longTags = (0..<48).map { tag in "t\(tag)" + String(repeating: "x", count: 49 - String(tag).count) }
        let books = (0..<20_000).map { index in
            let tagged = index % 10 == 0 && ![3_000, 8_000, 13_000].contains { (($0)..<($0 + 700)).contains(index) }
            var tags = ["misc"]
            if tagged { tags.append("shelf") }
            if tagged && index % 500 == 0 { tags += longTags }
            return NewBook(
                title: Self.title(index), author: index % 10 == 5 && index < 10_000 ? "Ann Shelfer" : "Anon",
                details: BookDetails(tags: tags))
        }
        let stored = try await catalog.addBooks(books, scope: "main")
        try await catalog.setup.analyze()
        let long = try await catalog.setup.execute(
            """
            SELECT count(*) FROM bookshelf.books
            WHERE octet_length(title_sort) + octet_length(search_words) + octet_length(other_words) > 2400
            """)
        let expectedLong = books.filter { $0.details.tags.count > 2 }.count
        #expect(
            expectedLong > 20 && long == [[String(expectedLong)]], "the books whose words the covered index cannot hold"
        )
        try await Self.expectPagesInOrder(["shelf"], stored: stored, catalog: catalog)
    }
}
