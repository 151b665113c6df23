import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Schema version 10: a search holding Japanese, Chinese or Korean characters walks only the
/// books that hold such characters (`books_with_character_tokens`), and its count is bounded by
/// its rarest character. The catalog migrates from version 9 with every book kept, and the
/// pages are the ones the scenario says, before and after.
@Suite(
    "PostgreSQL character-token search migration",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresCharacterTokenSearchTests {
    /// Latin titles by a Japanese author: "村上" matches them through the author only (rank 2),
    /// and there are more of them than the word query counts (`counted_rows`, 2,000).
    static let byMurakami = 2_500
    /// Latin titles and authors that sort before and among them and match no CJK query.
    static let latinOnly = 2_500

    static func books() -> [NewBook] {
        (0..<byMurakami).map { NewBook(title: "Kafka \($0)", author: "村上春樹") }
            + (0..<latinOnly).map { NewBook(title: "Kafka Notes \($0)", author: "Anon") }
            + [
                NewBook(title: "東京物語", author: "Ozu"),  // rank 0 for 東京
                NewBook(title: "Guide to 東京", author: "Anon"),  // rank 1 for 東京
                NewBook(title: "Travel", author: "東京 Press"),  // rank 2 for 東京
                NewBook(title: "京都", author: "Anon"),  // 京 without 東 before it
                NewBook(title: "서울 이야기", author: "Kim"),  // Hangul
                NewBook(title: "ノート", author: "Anon"),  // katakana
            ]
    }

    @Test("a catalog of version 9 keeps every book, and CJK pages are the same before and after")
    func migrationKeepsBooksAndPages() async throws {
        let catalog = try await PostgresTestCatalog.make(schemaVersion: 9)
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let stored = try await catalog.addBooks(Self.books(), scope: "main")
        try await catalog.setup.analyze()

        // The scenario's answers: "Kafka N" sorts by its folded title, "kafka N", byte by byte.
        let murakami = (0..<Self.byMurakami).map { "Kafka \($0)" }.sorted { $0.lowercased() < $1.lowercased() }
        let expectations: [(query: String, titles: [String])] = [
            ("村上", Array(murakami.prefix(50))),
            ("東京", ["東京物語", "Guide to 東京", "Travel"]),
            ("京", ["京都", "Guide to 東京", "東京物語", "Travel"]),
            ("이야", ["서울 이야기"]),
            ("ノー", ["ノート"]),
            ("kafka 村上春", Array(murakami.prefix(50))),
            ("東京 zzz", []),
        ]
        // Before: version 9's search function, called as the remote calls it (a session of
        // this Bookshelf asks for the details' columns, which version 9 lacks).
        let sql = try await RawSQLSession(catalog.connector(for: editor))
        for (query, titles) in expectations {
            #expect(try await Self.titles(of: SearchQuery(text: query), on: sql) == titles, "\(query) before")
        }
        #expect(
            try await Self.titles(of: SearchQuery(text: "村上", limit: 50, offset: 50), on: sql)
                == Array(murakami[50..<100]), "second page before")

        #expect(try await catalog.setup.migrate() == PostgresSchema.latestVersion)
        let remote = try await catalog.remote(for: editor)
        for (query, titles) in expectations {
            let page = try await remote.search(SearchQuery(text: query))
            #expect(page.records.map(\.title) == titles, "\(query) after")
        }
        let first = try await remote.search(SearchQuery(text: "村上"))
        let second = try await remote.search(SearchQuery(text: "村上", limit: 50, offset: 50, after: first.next))
        #expect(second.records.map(\.title) == Array(murakami[50..<100]), "second page after")
        // More than the count limit reads: the rarest character's estimate, labelled as one.
        guard case let .about(estimate) = try await remote.search(SearchQuery(text: "村上")).totalCount else {
            Issue.record("expected an estimate for \(Self.byMurakami) matches of 村上")
            return
        }
        #expect(abs(estimate - Self.byMurakami) < Self.byMurakami / 5, "estimate \(estimate)")
        for book in stored { #expect(try await remote.load(id: book.id) == book) }
    }

    /// The titles of a page from version 9's `bookshelf.search_page`, with the remote's parameters
    /// but the ISBN ($9, which version 12 added before the patterns).
    static func titles(of query: SearchQuery, on sql: RawSQLSession) async throws -> [String] {
        let (_, current, skip) = PostgresStatements.searchParameters(query)
        let parameters = Array(current.prefix(8) + current.dropFirst(9))
        let patterns = (9..<(parameters.count + 1)).map { "$\($0)" }.joined(separator: ", ")
        let rows = try await sql.rows(
            """
            SELECT title FROM bookshelf.search_page(ARRAY[\(patterns)]::text[], $1, $2, $3, $4, $5, $6, $7::tsquery, $8)
            WHERE id IS NOT NULL
            """, parameters)
        return Array(rows.compactMap { $0[0] }.dropFirst(skip).prefix(query.limit))
    }
}
