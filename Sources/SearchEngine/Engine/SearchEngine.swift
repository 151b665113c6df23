import BookCatalog

/// The search engine of one source's books (one account's scope of a catalog): where its index
/// stands (`IndexLifecycle`), and what the ways of answering without one keep between searches.
/// Owned by the store's remote, its host (`SearchEngineHost`), and touched only on the host's
/// actor; its work away from the actor (a build, a catch-up read) opens a source of its own.
package final class SearchEngine {
    /// The books, read on the host's connection, in the host's read transactions.
    package let source: any SearchSource
    /// A source of the same books on a connection of its own, for the engine's threads.
    package let opener: any SearchSourceOpener
    /// The scope the index is of: written into the index file's header, and checked against it.
    package let scope: String
    /// Strategies this engine never asks: empty but in the benchmark, which measures their worth.
    package let skippedStrategies: Set<SearchStrategy>
    /// Whether broad queries' answers are worked out whole and kept for the searches to come:
    /// the broadest one-letter prefixes as soon as an index is ready (`BroadPrefixResults.warmUp`),
    /// another broad prefix at its first search, the broad words of a multi-word query
    /// (`BroadWordPlaces`). Not for a remote that answers one search (`bookshelf search`): it
    /// would work out for every book what its one page needs only the first matches of
    /// (`perf stat` of `bookshelf search "history of"` at ten million books, docs/performance.md).
    /// Such a remote (any command's) also tries its stored index at once, on its own connection
    /// (`IndexPreparation.start(trying:otherwise:scope:)`).
    package let keepsBroadAnswers: Bool
    /// Run on the preparation's thread before a build, and on the catch-up's before its read:
    /// tests hold them there to see how searches are answered meanwhile.
    package let beforeIndexBuild: IndexPreparation.BuildHook?
    package let beforeCatchUp: IndexPreparation.BuildHook?
    /// Where the search index stands: the one to search with, the preparation loading or
    /// building one, a catch-up away from the actor. Changed only through the host's `transition`.
    package var lifecycle: IndexLifecycle
    /// Word searches' matching rows, and a copy of the books, while there is no index to answer.
    package let recentScans: RecentScans
    package let titleOrder = TitleOrderPage()
    /// Whether an index of this engine has answered a search caught up with the catalog. From
    /// then on, an index (not a bridge) that is behind by more changes than a search catches up
    /// with in its own read does not hold searches back: a catch-up read away from the actor is
    /// not waited for, and an index outgrown by the changes (its replacement being prepared)
    /// still answers, as it stands (`SearchStrategy.indexBehind`). Such an answer is the
    /// catalog as of the index's marker (`SearchIndex.syncedSequence`, a commit at or after the
    /// last answer caught up): which books match, in which order, and the total are as of
    /// that marker, and each listed book is its row as committed now. So a book changed after
    /// the marker may be listed where it stood then although it no longer matches, or be
    /// missing although it matches now, and a book added since is missing; a book removed since
    /// is never listed (that page is answered from the books instead). Once the catch-up or
    /// the replacement is done, searches answer caught up again. Before an index has kept up
    /// (a session's first searches over a stored index behind the catalog) a search waits for
    /// its catch-up or answers from the books, as the user has seen nothing of the catalog yet.
    package var hasKeptUp = false
    /// Set when a search answered behind the catalog (`SearchStrategy.indexBehind`), until the
    /// host says the index has caught up (`caughtUpAfterAnsweringBehind`), so that what was shown
    /// is asked again.
    package var answeredBehind = false
    /// Set once reading the source (an index build above all, which reads every book) found it
    /// damaged: from then on every search fails, rather than answer from the parts still readable.
    package var foundDamage = false

    /// Starts preparing the index at once (`IndexPreparation`): a stored one is loaded, or one is built.
    package init(
        source: any SearchSource, opener: any SearchSourceOpener, scope: String,
        skippedStrategies: Set<SearchStrategy> = [], keepsBroadAnswers: Bool = true,
        beforeIndexBuild: IndexPreparation.BuildHook? = nil, beforeCatchUp: IndexPreparation.BuildHook? = nil
    ) {
        self.source = source
        self.opener = opener
        self.scope = scope
        self.skippedStrategies = skippedStrategies
        self.keepsBroadAnswers = keepsBroadAnswers
        self.beforeIndexBuild = beforeIndexBuild
        self.beforeCatchUp = beforeCatchUp
        recentScans = RecentScans(memory: BuildMemory(folder: source.scratchFolder))
        // A remote for one command tries its stored index here, on its own connection, not yet shared.
        lifecycle = IndexLifecycle(
            preparing: keepsBroadAnswers
                ? IndexPreparation.start(opener, scope: scope, beforeBuild: beforeIndexBuild)
                : IndexPreparation.start(trying: source, otherwise: opener, scope: scope, beforeBuild: beforeIndexBuild)
        )
    }

    /// A build nobody waits for any more stops.
    deinit { lifecycle.preparation?.cancel() }
}

/// The actor a search engine works on: a store's remote, which owns the connection its source
/// reads. The engine answers with ids and totals; the host reads the page's books, in the same
/// read, and says what the store's failures mean to a user.
package protocol SearchEngineHost: Actor {
    var searchEngine: SearchEngine { get }

    /// The books of `ids`, in order, read in the current read. An id with no book is
    /// `SearchIndexDamage` when `namedByIndex` (the engine then distrusts its index), and the
    /// store's own damage otherwise. `whileIndexing`: a word query answered without the index.
    /// `countFollows`: `total` is the matches seen so far (`TotalCount.counting`).
    func pageRows(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool, whileIndexing: Bool, countFollows: Bool
    ) throws -> SearchPage

    /// Runs `body`, turning the source's failures and damage into the remote's `BookFailure`.
    func mappingSourceFailures<T>(_ body: () throws -> T) throws -> T

    /// What a search reports for a preparation of the index that failed with `error`.
    func failure(preparing error: any Error) -> BookFailure

    /// What a search reports once the source was found damaged, and the one line that explains it.
    func damageFailure() -> BookFailure
    func damageExplanation() -> String

    /// Whether `error`, met while reading the source, means it is damaged.
    func isDamage(_ error: any Error) -> Bool
}

extension SearchEngineHost {
    /// Where the index stands (for tests).
    package var lifecycle: IndexLifecycle { searchEngine.lifecycle }

    /// `pageRows` with the defaults of an answer from the index or the books, counted.
    func pageRows(
        ids: [Int], total: Int, query: SearchQuery, namedByIndex: Bool = false, whileIndexing: Bool = false
    ) throws -> SearchPage {
        try pageRows(
            ids: ids, total: total, query: query, namedByIndex: namedByIndex, whileIndexing: whileIndexing,
            countFollows: false)
    }
}
