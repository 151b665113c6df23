import BookCatalog
import Foundation
@testable import PostgresCatalog
import Testing

/// Schema version 14 (issue 41): a rank that the first walk did not fill is walked further when
/// its books lie thin but many through the title order, then its candidates past that walk fill
/// the rest; rank 3 walks the books whose words fit in an index entry merged with those whose
/// words do not. Whatever the path, the pages are SearchTerms' order.
@Suite(
    "PostgreSQL sparse ranks", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresSparseRankTests {
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
        // Every 14th book has "shelf" in its author (rank 2 of "shelf"), but for a gap of 1,000
        // books; every 4th has a "shelf" tag (rank 3), so that the word has too many candidates
        // to count and each rank is walked. The third page (250 books) finds some 140 of rank
        // 2's books in the first walk of 2,000 entries, walks on some 2,360 entries (cheaper than
        // rank 2's 1,300 candidates at five entries a row), which the gap leaves short, and takes
        // the rest from the candidates past that walk's end.
        let books = (0..<20_000).map { index in
            let shelfer = index % 14 == 0 && !(3_000..<4_000).contains(index)
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
