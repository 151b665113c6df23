/// What answered a search: the one list of the ways a store answers, carried by the answer itself
/// (`SearchPage.source`), so that the request panel (F4) and `--trace` say how each shown search
/// was answered without asking the store afterwards. The search engine's ways
/// (`SearchEngine.SearchStrategy`, for SQLite catalogs and Calibre libraries) are mapped onto
/// these cases in one place, beside that list; PostgreSQL and the in-memory store name their
/// own. Every way answers exactly what `SearchTerms` gives; they differ in what they cost.
/// The raw value is the name F4 and `--trace` show (docs/design/search-index.md, "What answered").
public enum SearchAnswerSource: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The empty query while no index is current: the books in title order, at once.
    case firstResults = "first-results"
    /// The search index, current, caught up with the catalog.
    case index
    /// A stored index too far behind to keep, with the changed books judged on top, while its
    /// replacement is built.
    case staleIndex = "stale-index"
    /// The search index as it stood, behind changes committed faster than a search catches up
    /// with them (another program's bulk edit): the catalog as of the index's last catch-up,
    /// each listed book as it is now. Caught up again once the catch-up is done.
    case indexBehind = "index-behind"
    /// While the index is built: a page before its count, from an earlier scan's first matches.
    case leadingMatches = "leading-matches"
    /// While the index is built: a page before its count, from the titles beginning with the
    /// first word, read in title order.
    case titleOrder = "title-order"
    /// While the index is built: a page before its count, from an earlier scan's matches walked
    /// in result order.
    case orderedMatches = "ordered-matches"
    /// While the index is built: the matching rows of an earlier scan the query narrows.
    case earlierScan = "earlier-scan"
    /// While the index is built: the copy of the books' search columns the first scans made.
    case booksCopy = "books-copy"
    /// While the index is built: the books themselves, read whole.
    case booksTable = "books-table"
    /// PostgreSQL: the database's search function (`bookshelf.search_page`).
    case searchFunction = "search-function"
    /// A query with no searchable words: nothing can match, so the store was not asked.
    case noSearchableWords = "no-searchable-words"
    /// The in-memory store (`bookshelf-demo`, tests): `SearchTerms` over every book.
    case memory

    /// The name F4 and `--trace` show.
    public var description: String { rawValue }

    /// What the source is, in words, for the benchmark's reports.
    public var explanation: String {
        switch self {
        case .firstResults: "the books in title order, the first results"
        case .index: "the search index"
        case .staleIndex: "the stale stored index with the changes on top, while the index is rebuilt"
        case .indexBehind: "the search index as it stood, while it catches up with many changes"
        case .leadingMatches: "an earlier scan's first matches, the page before its count"
        case .titleOrder: "the title index, the page before its count"
        case .orderedMatches: "an earlier scan's matches in result order, the page before its count"
        case .earlierScan: "an earlier scan's matching rows, narrowed"
        case .booksCopy: "the copy of the books table"
        case .booksTable: "the books table"
        case .searchFunction: "the database's search function"
        case .noSearchableWords: "nothing: the query has no searchable words"
        case .memory: "the books in memory"
        }
    }
}
