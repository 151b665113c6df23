import BookCatalog

// How a search is answered: one list, `SearchStrategy`, and one function, `answerSearch`, both
// here, read top to bottom. Every way answers exactly what `SearchTerms` gives over the committed
// books, in the same order with the same total (the differential tests in `Tests/SQLiteCatalogTests`
// and the `SearchDifferential` fuzz target hold them to it); they differ only in what they need at
// hand and what they cost. The ways are tried in the order of the list, each at most once per search:
//
// 1. The ISBN shortcut: an ISBN query's books come first whichever way answers (`ISBNFirst`,
//    around each way in `firstAnswer`).
// 2. The index, once waited for (a stored one tried, a catch-up read away from the actor), caught
//    up in the same read the page's rows are read in; the first results do not wait for it.
// 3. Catching up: many changes since the index are read away from the actor, then replayed; a page
//    before its count does not wait for that either, nor for an index not installed yet.
// 4. The fallbacks while the index is built: the pages alone, then the books themselves.
// 5. Damage: an index that names a book the source lacks is distrusted and rebuilt, and the
//    search is answered from the books; a source found damaged fails every search from then on.
//
// What answered is a case of the same list: the page says it (`SearchPage.source`, through
// `SearchStrategy.answerSource`), and F4 and `--trace` show it.
// What each way answers, and when it declines, is `SearchStrategies.swift`.

/// The ways of answering a search, in the order they are tried (`allCases`), and what answered
/// one. Each way the engine asks (`asked`) says why it sits where it does and when it declines;
/// the other cases say what one of them answered from (the index asked over a stale stored
/// index, the books asked over an earlier scan or their copy); the page says which
/// (`answerSource`). `public` so that the benchmark can leave a way out (`keys --without
/// STRATEGY`, by the case's name) to measure what it buys.
public enum SearchStrategy: String, CaseIterable, Sendable {
    /// The empty query (the first results) while no index is current: the books in title order,
    /// cheap at any size. First, because mapping a stored index and catching it up could take
    /// seconds (a stale one bridging a rebuild, at ten million books): the first results come at
    /// once, and the index is made ready right after, so the user's first key finds it. Declines
    /// every word query, and the empty one once an index is current (which answers it as quickly),
    /// or, over a source whose title order reads every book (`titleOrderReadsEveryBook`: not
    /// cheap there), once there is an index at all.
    case firstResults
    /// The search index, current, caught up with the catalog: a few milliseconds at any size,
    /// counted at once. Before every way without an index, which all read rows and cost more (or
    /// count later). Declines when there is no index yet (it is being built), when the changes
    /// since it are too many for its overlay (a replacement is then prepared), and when its stored
    /// file fails a check (it is distrusted).
    case index
    /// What `index` answers from while a stored index too far behind to keep bridges the
    /// rebuild: that index, with the changed books judged on top. Not asked on its own.
    case staleIndex
    /// What `index` answers from while it is behind the catalog by more changes than a search
    /// catches up with in its own read (another program's bulk edit saving thousands of books a
    /// second): the index as it stands, not waiting for the catch-up or the replacement under
    /// way. Only once an index of this engine has answered caught up (`SearchEngine.hasKeptUp`),
    /// and never over a bridge. What such an answer may show is `SearchEngine.hasKeptUp`'s to
    /// say. Not asked on its own.
    case indexBehind
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
    /// What `booksTable` answers from when the query narrows an earlier scan of the books: that
    /// scan's matching rows and the rows changed since. Not asked on its own.
    case earlierScan
    /// What `booksTable` answers from when the first scans have copied the books' search columns
    /// whole (`BooksCopy`), with the rows changed since. Not asked on its own.
    case booksCopy
    /// The books themselves (`BooksTableSearch`): an earlier scan the query narrows, the books'
    /// copy, or the source read whole, with the rows changed since. Last, because it always
    /// answers, whole and counted, and it is the slowest way (it may read every book).
    case booksTable

    /// The ways the engine asks, in order; every other case is what one of them answered from.
    package static let asked: [SearchStrategy] = [
        .firstResults, .index, .leadingMatches, .titleOrder, .orderedMatches, .booksTable,
    ]

    /// What answered, as the answer says it (`SearchPage.source`, shown by F4 and `--trace`): the
    /// one place the engine's ways are named to the layers above, which do not import the engine.
    package var answerSource: SearchAnswerSource {
        switch self {
        case .firstResults: .firstResults
        case .index: .index
        case .staleIndex: .staleIndex
        case .indexBehind: .indexBehind
        case .leadingMatches: .leadingMatches
        case .titleOrder: .titleOrder
        case .orderedMatches: .orderedMatches
        case .earlierScan: .earlierScan
        case .booksCopy: .booksCopy
        case .booksTable: .booksTable
        }
    }

    /// Whether the answer is a page alone, its count to follow (`TotalCount.counting`); these are
    /// asked ahead of the wait for an index not at hand, so that a key's page comes at once.
    public var countFollows: Bool { self == .leadingMatches || self == .titleOrder || self == .orderedMatches }

    /// Whether a search index answered, so that every id it names must be a book (but for an
    /// index behind the catalog: a book it names may have been removed since).
    package var isIndex: Bool { self == .index || self == .staleIndex || self == .indexBehind }
}

extension SearchEngineHost {
    /// The page `search` gives, saying which way answered it (`SearchPage.source`).
    package func answerSearch(_ query: SearchQuery) async throws -> SearchPage {
        let terms = SearchTerms(query.text)
        var plan = SearchPlan(skipping: searchEngine.skippedStrategies)
        // Where the title order reads every book (a Calibre library), the ways without an index
        // cost seconds at 100,000 books, and trying the stored index a few milliseconds.
        if searchEngine.source.titleOrderReadsEveryBook, lifecycle.index == nil { _ = await indexIfReady() }
        if !terms.isEmpty {
            // A page before its count waits neither for an index to be loaded (a stale one is
            // counted first) nor for many changes to be caught up with, which are read away from
            // this actor; other pages wait for the latter (the index answers them).
            if lifecycle.index == nil, let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) {
                return answer
            }
            if lifecycle.runningCatchUp == nil, let index = await indexIfReady(), lifecycle.runningCatchUp == nil,
                !index.isOutgrown, try mappingSourceFailures({ try hasManyChanges(since: index.syncedSequence) })
            {
                startCatchUp(index)
            }
            // An index that has kept up answers as it stands rather than wait for many changes
            // (`indexBehind`); a catch-up of a few is waited for.
            if lifecycle.runningCatchUp != nil, try !mappingSourceFailures({ try answersBehind(lifecycle.index) }) {
                if let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) { return answer }
                while let catchingUp = lifecycle.runningCatchUp { await catchingUp.value }
            }
        }
        // The empty query (the first results) does not wait for a stored index to be mapped and
        // checked either (a third of a second at ten million books): see `firstResults`.
        let index = terms.isEmpty && lifecycle.index == nil ? nil : await indexIfReady()
        if searchEngine.foundDamage { throw damageFailure() }
        return try mappingSourceFailures {
            // One read: the index catches up to, and the page's rows are read from, one snapshot.
            try searchEngine.source.inOneRead {
                let sequence = try latestChange()
                // The last way, the books, always answers.
                let found = try firstAnswer(of: plan.takeTheRest(), terms, query, index: index, at: sequence)!
                do {
                    return try page(found, terms, query)
                } catch is SearchIndexDamage {
                    // In one read every id the index names is a book: this index was crafted or
                    // damaged where no checksum looks. Never trust it again. An index behind the
                    // catalog may name a book removed since: the books answer, and the next
                    // search caught up checks the index.
                    if found.strategy != .indexBehind { distrustIndex() }
                    let found = try withoutIndex(terms, query)
                    return try pageRows(
                        ids: found.ids, total: found.total, query: query, whileIndexing: !terms.isEmpty
                    )
                    .answered(by: found.strategy.answerSource)
                }
            }
        }
    }
}
