import BookCatalog
@testable import bookshelf
import Testing

/// What `bookshelf search` says about the number of matches when a large catalog (PostgreSQL
/// past the counting limit) stops counting: stderr for people, a JSON object for programs.
@Suite struct PostgresTotalsTextTests {
    static let records = (1...3).map { BookRecord(id: $0, title: "Book \($0)", revision: 1) }

    @Test("stderr says whether the number is exact, a lower bound or an estimate")
    func summaryNamesTheKind() {
        let query = SearchQuery(text: "a", limit: 3)
        let exact = SearchPage(records: Self.records, totalCount: .exact(3_010))
        let atLeast = SearchPage(records: Self.records, totalCount: .atLeast(10_000))
        let about = SearchPage(records: Self.records, totalCount: .about(460_000))
        #expect(SearchCommand.summary(exact, query: query) == "3,010 matches (showing 1–3)")
        #expect(SearchCommand.summary(atLeast, query: query) == "10,000+ matches (showing 1–3)")
        #expect(SearchCommand.summary(about, query: query) == "about 460,000 matches (showing 1–3)")
        #expect(
            SearchCommand.summary(SearchPage(records: [Self.records[0]], totalCount: .exact(1)), query: query)
                == "1 match")
    }

    @Test("--json puts the kind in the summary object")
    func jsonSummaryNamesTheKind() {
        let query = SearchQuery(text: "a", limit: 3, offset: 0)
        #expect(
            SearchCommand.jsonSummary(SearchPage(records: Self.records, totalCount: .atLeast(10_000)), query: query)
                == #"{"total":10000,"total_kind":"at_least","offset":0,"shown":3}"#)
        #expect(
            SearchCommand.jsonSummary(SearchPage(records: Self.records, totalCount: .about(460_000)), query: query)
                == #"{"total":460000,"total_kind":"about","offset":0,"shown":3}"#)
        #expect(
            SearchCommand.jsonSummary(SearchPage(records: Self.records, totalCount: .exact(3)), query: query)
                == #"{"total":3,"total_kind":"exact","offset":0,"shown":3}"#)
    }
}
