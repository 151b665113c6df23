import BookCatalog

// How a search is answered: one ordered list of strategies (`SearchStrategy`). Each is asked in
// turn and either answers, its answer carrying its source, or declines; the last one always
// answers. Every strategy answers exactly what `SearchTerms` gives over the committed books, in
// the same order with the same total (the differential tests in `Tests/SQLiteCatalogTests` hold
// them to it); they differ only in what they need to be at hand and what they cost. One search
// asks each strategy at most once.
//
// The remote (`SQLiteBookRemote.answer`) asks them in this order inside one read transaction,
// once it has waited for what the index needs (the stored snapshot tried, a catch-up read away
// from the actor). One exception to the order: when the index is not at hand without waiting
// (none is installed yet, or a catch-up runs away from the actor), the strategies that give the
// page alone (`givesThePageAlone`) are asked ahead, in their own read transaction, before the
// wait; those that decline there are not asked again.

/// What answered a search, for the benchmark and for tests: all give the same answer.
public enum SearchAnswerSource: String, Sendable {
    /// The search index, current.
    case index = "the search index"
    /// A stored index too far behind to keep, with the changed books judged on top, while the
    /// new index is built.
    case staleIndex = "the stale stored index with the changes on top, while the index is rebuilt"
    /// The books table: the list of all books (the first results) before the stored index is
    /// mapped or caught up, and a word query while the index is built that neither an earlier
    /// scan nor the table's copy can answer.
    case booksTable = "the books table"
    /// The matching rows of an earlier scan of the books table that the query narrows, and the
    /// rows changed since, while the index is built.
    case earlierScan = "an earlier scan's matching rows, narrowed"
    /// A copy of the books table's search columns, made by the first scans while the index is built.
    case booksCopy = "the copy of the books table"
    /// The books whose titles begin with the first word, read in title order while the index
    /// is built: the page alone, its count to follow (`TitleOrderPage`).
    case titleOrder = "the title index, the page before its count"
    /// The first matches of an earlier scan that the query narrows, while the index is built:
    /// the page alone, its count to follow (`LeadingMatches`).
    case leadingMatches = "an earlier scan's first matches, the page before its count"
    /// All the matches of an earlier scan that the query narrows, walked in result order while
    /// the index is built: the page alone, its count to follow (`MatchOrder`).
    case orderedMatches = "an earlier scan's matches in result order, the page before its count"

    /// Whether the answer is a page alone, its count to follow (`TotalCount.counting`).
    public var countFollows: Bool { self == .titleOrder || self == .leadingMatches || self == .orderedMatches }

    /// Whether a search index answered, so that every id it names must be a book.
    package var isIndex: Bool { self == .index || self == .staleIndex }
}

/// A search's page and what answered it: `SQLiteBookRemote.answer(_:)`, for benchmarks and
/// tests (the app calls `search(_:)`, which gives the page alone).
public struct SearchAnswer: Sendable {
    public let page: SearchPage
    public let source: SearchAnswerSource

    package init(page: SearchPage, source: SearchAnswerSource) {
        self.page = page
        self.source = source
    }
}

/// The ways of answering a search, in the order they are asked (`allCases`). The order is the
/// plan: each entry says why it sits where it does, and when it declines. `package` so that the
/// benchmark can measure a strategy's worth by running without it (`SQLiteCatalog.remote(account:without:)`).
package enum SearchStrategy: String, CaseIterable, Sendable {
    /// The empty query (the first results) while no index is current: the title index read in
    /// order, cheap from the books table at any size. First, because mapping a stored index and
    /// catching it up could take seconds (a stale one bridging a rebuild, at ten million books):
    /// the first results come at once, and the index is made ready right after, so the user's
    /// first key finds it. Declines every word query, and the empty one once an index is current
    /// (which answers it as quickly).
    case firstResults
    /// The search index, current or a stale one bridging its rebuild, caught up with the
    /// catalog: a few milliseconds at any size, counted at once. Before every way without an
    /// index, which all read rows and cost more (or count later). Declines when there is no index
    /// yet (it is being built), when the changes since it are too many for its overlay (a
    /// replacement is then prepared), and when its stored file fails a check (it is distrusted).
    case index
    /// A page before its count from the first matches of a kept scan the query narrows
    /// (`LeadingMatches`). First of the pages alone: it is in memory. Declines unless the query
    /// wants its page before its count, narrows a kept scan of more rows than its first matches,
    /// and those hold the page.
    case leadingMatches
    /// A page before its count from the books whose titles begin with the first word, read in
    /// title order (`TitleOrderPage`: up to `SearchTuning.titleOrderRows` rows of the title order).
    /// Before the ordered matches, whose walk passes over rows on their token starts, which tell
    /// little of a query whose words are a letter or two ("mu" after "m"). Declines when the query
    /// narrows a kept scan of no more rows than it would read: the whole answer, counted, comes as
    /// quickly from there (`booksTable`: "the secret ga" after "the secret g", where the title
    /// order would read as many titles beginning "the" and give up); and when those titles are not
    /// the page. Bench: `keys --count 1000000 --no-index`.
    case titleOrder
    /// A page before its count from all the matches of a kept scan the query narrows, walked in
    /// result order (`MatchOrder`: far past the first matches, as long as the words' token starts
    /// pass over most rows on the way). Last of the pages alone, for the reason above; declines
    /// when the title order would, and when the walk does not find the page.
    case orderedMatches
    /// The books table (`BooksTableSearch`): an earlier scan the query narrows, the table's copy,
    /// or the table itself, with the rows changed since. Last, because it always answers, whole
    /// and counted, and it is the slowest way (a third of a second at a million books when it
    /// reads the table).
    case booksTable

    /// Whether the strategy gives a page before its count without the index: those are asked
    /// ahead of the wait when the index is not at hand, so that a key's page comes at once.
    package var givesThePageAlone: Bool { self == .leadingMatches || self == .titleOrder || self == .orderedMatches }
}

/// One strategy's answer: the page's ids, in result order, and the total: exact, or, when the
/// source's count follows (`SearchAnswerSource.countFollows`), the matches seen so far.
package struct StrategyAnswer {
    package let ids: [Int]
    package let total: Int
    package let source: SearchAnswerSource

    package init(ids: [Int], total: Int, source: SearchAnswerSource) {
        self.ids = ids
        self.total = total
        self.source = source
    }
}

/// The strategies one search has not asked yet, in order: each is asked at most once.
package struct SearchPlan {
    private var left: [SearchStrategy]

    /// Every strategy but those `skipped` (the benchmark's, to measure what one buys; never `booksTable`,
    /// which answers whatever the others decline).
    package init(skipping skipped: Set<SearchStrategy>) {
        precondition(!skipped.contains(.booksTable), "the books table answers what every other strategy declines")
        left = SearchStrategy.allCases.filter { !skipped.contains($0) }
    }

    /// Takes out the strategies that give the page alone, to be asked ahead of the wait for an
    /// index (none, when they were taken already).
    package mutating func takePagesAlone() -> [SearchStrategy] {
        defer { left.removeAll(where: \.givesThePageAlone) }
        return left.filter(\.givesThePageAlone)
    }

    /// Takes out every strategy not asked yet, in order.
    package mutating func takeTheRest() -> [SearchStrategy] {
        defer { left = [] }
        return left
    }
}

extension StrategyAnswer {
    package init(_ found: BooksTableSearch.Found) {
        self.init(ids: found.ids, total: found.total, source: found.source)
    }
}
