import BookCatalog
import Foundation
@testable import PostgresCatalog
import Testing

/// Schema version 13 (issue 41): the search function's statements are static, with plans the
/// server keeps. It must answer every page exactly as version 12 did, and as `SearchTerms` says.
@Suite(
    "PostgreSQL kept search plans", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresKeptPlansTests {
    /// Enough books for the broad queries to be estimated (over 2,000 candidates), so each rank is
    /// walked, continued through its word index, and paged by cursor; and few enough matches for
    /// the narrow ones to be counted. In title order: "a river guide", "book", "river song",
    /// "tagged", "the river", "zz filler", "東 0"…, so a walk from the start passes books of every rank.
    static func books() -> [NewBook] {
        let isbn = "9780306406157"
        // Rank 1 for "river", first in title order.
        return (0..<30).map { NewBook(title: "A River Guide \($0)") }
            // Rank 2 for "river" and "ann river": the author only, one book in six.
            + (0..<1_500).map { NewBook(title: "Book \($0)", author: $0 % 6 == 0 ? "Ann River" : "Anon") }
            // Rank 0 for "river", inside the first walk of 2,000 entries; rank 1 for "the river".
            + (0..<60).map { NewBook(title: "River Song \($0)") } + (0..<40).map { NewBook(title: "The River \($0)") }
            // Rank 3: a tag only; for "press", 2,100 books with other words and none of it.
            + (0..<2_100).map {
                NewBook(title: "Tagged \($0)", author: "Anon", details: BookDetails(tags: ["river shelf"]))
            }
            // Rank 3 for "press", after the walk of the tagged books.
            + (0..<2_200).map { NewBook(title: "Zz Filler \($0)", details: BookDetails(publisher: "Filler Press")) }
            // Rank 0's range for "東京" (every title from 東): 2,100 titles without 京 after 東
            // before 東京物語, so it is walked and then continued. 京 in their author makes the
            // rarest character's estimate past the counting limit.
            + (0..<2_100).map { NewBook(title: "東 \($0)", author: "京都") }
            + [
                // Titles whose sort key does not start with their first word (books_odd_title_start),
                // sorted before the first word: in rank 0 of a walked query.
                NewBook(title: "'River Tales"), NewBook(title: "「東京」日記"),
                NewBook(title: "'Salem's Lot", author: "Stephen King"),
                NewBook(title: "...And Then There Were None", author: "Agatha Christie"),
                NewBook(title: "東京物語", author: "Ozu"), NewBook(title: "Guide to 東京", author: "Anon"),
                NewBook(title: "Travel", author: "東京 Press"),
                NewBook(title: "Zzz Last", details: BookDetails(isbn: isbn, tags: ["river"])),
            ]
    }

    static let queries = [
        "", "r", "river", "riv", "the river", "ann river", "ann", "shelf", "river shelf", "press", "filler", "salem",
        "salem's lot", "and", "guide",
        "東京", "東", "京", "0306406152", "978-0-306-40615-7", "zzz", "tagged 20", "book 1", "nothing here",
    ]

    /// The pages read of each query, in turn: 1,950 rows, past the 2,000-entry walks of the first pages.
    static let pageLimits = [1, 49, 250, 250, 700, 700]

    /// Every query's pages, each continued from the cursor of the one before, and each first
    /// page's total.
    static func pages(of remote: PostgresRemote) async throws -> [String: (ids: [Int], total: TotalCount)] {
        var answers: [String: (ids: [Int], total: TotalCount)] = [:]
        for text in queries {
            var ids: [Int] = []
            var cursor: SearchCursor?
            var total: TotalCount?
            for limit in pageLimits {
                let page = try await remote.search(
                    SearchQuery(text: text, limit: limit, offset: ids.count, after: cursor))
                total = total ?? page.totalCount
                guard !page.records.isEmpty else { break }
                ids += page.records.map(\.id)
                cursor = page.next
            }
            // A jump to a deep page without a cursor reads every row before it.
            let jump = try await remote.search(SearchQuery(text: text, limit: 10, offset: 2_150))
            answers[text] = (ids + [-1] + jump.records.map(\.id), total ?? .exact(0))
        }
        return answers
    }

    @Test("a catalog of version 12 answers every page and total the same after version 13, in SearchTerms' order")
    func migrationKeepsEveryAnswer() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 12)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let stored = try await catalog.addBooks(Self.books(), scope: "main")
        // Another scope's books match the same words and never show.
        _ = try await catalog.addBooks(
            [NewBook(title: "River Elsewhere"), NewBook(title: "东京 Elsewhere")], scope: "other")
        try await catalog.setup.analyze()

        let before = try await Self.pages(of: catalog.remote(for: editor))
        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        let after = try await Self.pages(of: catalog.remote(for: editor))

        for text in Self.queries {
            let terms = SearchTerms(text)
            let ordered = stored.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(\.id)
            let paged = Array(ordered.prefix(Self.pageLimits.reduce(0, +)))
            let jump = Array(ordered.dropFirst(2_150).prefix(10))
            let expected = paged + [-1] + jump
            #expect(before[text]?.ids == expected, "\(text.debugDescription) at version 12")
            #expect(after[text]?.ids == expected, "\(text.debugDescription) at version 13")
            #expect(after[text]?.total == before[text]?.total, "\(text.debugDescription): the same total")
        }
        // The scenario reaches each path: estimated totals walk the ranks, small ones are counted.
        guard case .about = after["river"]?.total else {
            Issue.record("river was counted: the walks are not exercised")
            return
        }
        #expect(after["ann river"]?.total == .exact(250))
    }

    @Test("rank 0's range ends at the first sort key past the token's, byte by byte")
    func prefixEnd() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let cases: [(String, String?)] = [
            ("abc", "abd"), ("a", "b"), ("z", "{"), ("é", "ê"), ("\u{6771}", "\u{6772}"),
            // After U+D7FF comes U+E000 (the surrogates are no characters); U+10FFFF has no successor.
            ("a\u{D7FF}", "a\u{E000}"), ("a\u{10FFFF}", "b"), ("ab\u{10FFFF}\u{10FFFF}", "ac"), ("\u{10FFFF}", nil),
        ]
        for (prefix, end) in cases {
            let rows = try await catalog.setup.execute("SELECT bookshelf.prefix_end($1)", [prefix])
            #expect(rows == [[end]], "\(prefix.debugDescription)")
        }
    }
}
