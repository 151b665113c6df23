import BookCatalog
import Testing

/// How a store's count of matches becomes what the header says, held against the page that
/// came with it: the page is the truth where it settles the number.
@Suite("Total count")
struct TotalCountTests {
    @Test("an estimate with an empty first page and nothing after it is exactly none")
    func emptyFirstPageIsNone() {
        // PostgreSQL estimates a word the planner has no statistics for at 0.5 % of the books,
        // so a word no book holds came back as "about 5,000" above an empty list.
        #expect(TotalCount(estimate: 5_005, offset: 0, shown: 0, hasMore: false) == .exact(0))
    }

    @Test("an estimate with a last page is exactly the rows reached")
    func lastPageIsExact() {
        #expect(TotalCount(estimate: 5_005, offset: 100, shown: 7, hasMore: false) == .exact(107))
    }

    @Test("an estimate stays one while rows follow, and never falls below the rows reached")
    func estimateWhileRowsFollow() {
        #expect(TotalCount(estimate: 5_005, offset: 0, shown: 50, hasMore: true) == .about(5_005))
        #expect(TotalCount(estimate: 40, offset: 100, shown: 50, hasMore: true) == .about(151))
    }

    @Test("an empty page past the first says nothing exact: the offset may be past the end")
    func emptyLaterPageStaysAnEstimate() {
        #expect(TotalCount(estimate: 5_005, offset: 200, shown: 0, hasMore: false) == .about(5_005))
    }
}
