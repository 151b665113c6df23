import BookCatalog

// What each way of answering a search (`SearchStrategy`) answers, or why it declines, for the one
// function that asks them in order (`answerSearch`, SearchAnswering.swift); the plan of one search
// (each way asked at most once); and the answers without the index that tests and the benchmark
// compare with.

/// One way's answer: the page's ids, in result order, and the total: exact, or, when the count
/// follows (`SearchStrategy.countFollows`), the matches seen so far.
package struct StrategyAnswer {
    package let ids: [Int]
    package let total: Int
    /// What answered: the way asked, or what it answered from (`SearchStrategy.staleIndex`…).
    package let strategy: SearchStrategy

    package init(ids: [Int], total: Int, strategy: SearchStrategy) {
        self.ids = ids
        self.total = total
        self.strategy = strategy
    }

    package init(_ found: BooksTableSearch.Found) {
        self.init(ids: found.ids, total: found.total, strategy: found.strategy)
    }
}

/// The ways one search has not asked yet, in order: each is asked at most once.
package struct SearchPlan {
    private var left: [SearchStrategy]

    /// Every way asked but those `skipped` (the benchmark's, to measure what one buys; never
    /// `booksTable`, which answers whatever the others decline).
    package init(skipping skipped: Set<SearchStrategy>) {
        precondition(!skipped.contains(.booksTable), "the books table answers what every other way declines")
        left = SearchStrategy.asked.filter { !skipped.contains($0) }
    }

    /// Takes out the ways that give the page alone, to be asked ahead of the wait for an index
    /// (none, when they were taken already).
    package mutating func takePagesAlone() -> [SearchStrategy] {
        defer { left.removeAll(where: \.countFollows) }
        return left.filter(\.countFollows)
    }

    /// Takes out every way not asked yet, in order.
    package mutating func takeTheRest() -> [SearchStrategy] {
        defer { left = [] }
        return left
    }
}

extension SearchEngineHost {
    /// The same search answered without the index, as while one is being built: for tests
    /// and benchmarks that compare both ways.
    package func answerSearchWithoutIndex(_ query: SearchQuery) async throws -> SearchPage {
        try mappingSourceFailures {
            try searchEngine.source.inOneRead {
                let found = try withoutIndex(SearchTerms(query.text), query)
                return try pageRows(ids: found.ids, total: found.total, query: query)
                    .answered(by: found.strategy.answerSource)
            }
        }
    }

    /// The answer from the books alone, the books of an ISBN query first (`ISBNFirst`), in the
    /// caller's read transaction. (The books always answer, so this does too.)
    package func withoutIndex(_ terms: SearchTerms, _ query: SearchQuery) throws -> StrategyAnswer {
        try ISBNFirst.answer(terms, query, source: searchEngine.source) { query in
            StrategyAnswer(
                try BooksTableSearch(source: searchEngine.source)
                    .search(terms, offset: query.offset, limit: query.limit))
        }!
    }

    /// The page alone, its count to follow, from the first of `strategies` that gives it, in a
    /// read transaction of its own: before the index is loaded, or while it catches up away
    /// from this actor. Nil when they all decline, when there are none (they were asked
    /// already), or when the query wants its count now.
    package func pageBeforeItsCount(_ strategies: [SearchStrategy], _ terms: SearchTerms, _ query: SearchQuery) throws
        -> SearchPage?
    {
        guard query.countLater, !strategies.isEmpty else { return nil }
        return try mappingSourceFailures {
            try searchEngine.source.inOneRead {
                guard let found = try firstAnswer(of: strategies, terms, query, index: nil, at: latestChange()) else {
                    return nil
                }
                return try page(found, terms, query)
            }
        }
    }

    /// The page of a way's answer: a search index's ids must all be books, a word query
    /// answered without one says so, a page alone says its count follows, and the page says
    /// what answered it.
    package func page(_ found: StrategyAnswer, _ terms: SearchTerms, _ query: SearchQuery) throws -> SearchPage {
        try pageRows(
            ids: found.ids, total: found.total, query: query, namedByIndex: found.strategy.isIndex,
            whileIndexing: !found.strategy.isIndex && !terms.isEmpty, countFollows: found.strategy.countFollows
        )
        .answered(by: found.strategy.answerSource)
    }

    /// The first answer of `strategies`, asked in order in the caller's read transaction, as of
    /// the catalog's `sequence`; nil when they all decline (never when `booksTable` is among them).
    /// The books of an ISBN query come first whichever answers (`ISBNFirst`).
    package func firstAnswer(
        of strategies: [SearchStrategy], _ terms: SearchTerms, _ query: SearchQuery, index: SearchIndex?,
        at sequence: Int
    ) throws -> StrategyAnswer? {
        try ISBNFirst.answer(terms, query, source: searchEngine.source) { query in
            for strategy in strategies {
                if let answer = try ask(strategy, terms, query, index: index, at: sequence) { return answer }
            }
            return nil
        }
    }

    /// What `strategy` answers, or nil when it declines (see each case of `SearchStrategy`).
    private func ask(
        _ strategy: SearchStrategy, _ terms: SearchTerms, _ query: SearchQuery, index: SearchIndex?,
        at sequence: Int
    ) throws -> StrategyAnswer? {
        let (offset, limit) = (query.offset, query.limit)
        let booksTable = BooksTableSearch(source: searchEngine.source, recent: (searchEngine.recentScans, sequence))
        switch strategy {
        case .firstResults:
            // Over a source whose title order reads every book, an index behind answers sooner,
            // caught up with its few changes.
            guard terms.isEmpty,
                index.map({ $0.syncedSequence < sequence && !searchEngine.source.titleOrderReadsEveryBook }) ?? true
            else { return nil }
            catchUpSoon()
            let (ids, total, _) = try BooksTableSearch(source: searchEngine.source)
                .search(terms, offset: offset, limit: limit)
            return StrategyAnswer(ids: ids, total: total, strategy: .firstResults)
        case .index, .staleIndex, .indexBehind:
            guard let index else { return nil }
            let mayLag = mayAnswerBehind(index)
            do {
                // Behind by more than this read catches up with (many changes, read away from the
                // actor, or more than the overlay holds): as it stands, if it has kept up.
                let caughtUp =
                    try sequence > index.syncedSequence && answersBehind(index) ? false : catchUp(index, to: sequence)
                guard caughtUp || mayLag else { return nil }
                if index.isOutgrown && lifecycle.preparation == nil { startPreparation() }
                // A build under way holds back meanwhile: keys answered over a stale index beside a
                // running build wait for the core it takes (`keys --count 10000000 --cold`).
                let search = {
                    try index.search(
                        terms, offset: offset, limit: limit,
                        titleKey: { try self.searchEngine.source.titleKey(of: $0) },
                        keepingBroadAnswers: self.searchEngine.keepsBroadAnswers)
                }
                let (ids, total) = try preparation.map { try $0.foreground.during(search) } ?? search()
                searchEngine.recentScans.removeAll()
                guard caughtUp else {
                    searchEngine.answeredBehind = true
                    return StrategyAnswer(ids: ids, total: total, strategy: .indexBehind)
                }
                searchEngine.hasKeptUp = true
                return StrategyAnswer(ids: ids, total: total, strategy: index.isBridge ? .staleIndex : .index)
            } catch is SearchIndexDamage {
                // A stored snapshot failed a check where this search read it: never trust it again.
                // Behind the catalog, a book the index names may have been removed since (its
                // title key is gone): the other ways answer, and the next search caught up checks.
                if mayLag && sequence > index.syncedSequence { return nil }
                distrustIndex()
                return nil
            }
        case .leadingMatches:
            guard query.countLater else { return nil }
            return try booksTable.pageFromFirstMatches(terms, offset: offset, limit: limit).map { StrategyAnswer($0) }
        case .titleOrder:
            guard query.countLater, !booksTable.narrowsAKeptScan(ofAtMost: SearchTuning.titleOrderRows, terms),
                let (ids, seen) = try searchEngine.titleOrder.page(
                    terms, offset: offset, limit: limit, source: searchEngine.source)
            else { return nil }
            return StrategyAnswer(ids: ids, total: seen, strategy: .titleOrder)
        case .orderedMatches:
            guard query.countLater, !booksTable.narrowsAKeptScan(ofAtMost: SearchTuning.titleOrderRows, terms) else {
                return nil
            }
            return try booksTable.pageFromOrderedMatches(terms, offset: offset, limit: limit).map { StrategyAnswer($0) }
        case .booksTable, .earlierScan, .booksCopy:
            return StrategyAnswer(try booksTable.search(terms, offset: offset, limit: limit))
        }
    }
}
