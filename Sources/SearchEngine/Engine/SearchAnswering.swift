import BookCatalog

// How a search is answered, read top to bottom: `answerSearch` below is the one function, and the
// ways it tries, in order, are `SearchStrategy`'s cases (SearchPlanner.swift, each with why it sits
// where it does); what answered is a `SearchAnswerSource`.
//
// 1. The ISBN shortcut: an ISBN query's books come first whichever way answers (`ISBNFirst`,
//    around `firstAnswer`).
// 2. The pages alone, before any wait: while no index is at hand (none installed yet, or a catch-up
//    reading away from the actor), the ways that give a page before its count are asked first.
// 3. Catching up: many changes since the index are read away from the actor, then replayed.
// 4. The index, caught up in the same read the page's rows are read in (`SearchStrategy.index`),
//    or, while it is built, the fallbacks (`firstResults`, the pages alone, the books).
// 5. Damage: an index that names a book the source lacks is distrusted and rebuilt, and the
//    search is answered from the books; a source found damaged fails every search from then on.

extension SearchEngineHost {
    /// The page `search` gives, and which strategy answered it (`SearchStrategy`, in the order
    /// they are asked): for benchmarks and tests.
    package func answerSearch(_ query: SearchQuery) async throws -> SearchAnswer {
        let terms = SearchTerms(query.text)
        var plan = SearchPlan(skipping: searchEngine.skippedStrategies)
        if !terms.isEmpty {
            // A page before its count waits neither for an index to be loaded (a stale one is
            // counted first) nor for many changes to be caught up with, which are read away
            // from this actor; other pages wait for the latter (the index answers them).
            if lifecycle.index == nil, let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) {
                return answer
            }
            if lifecycle.runningCatchUp == nil, let index = await indexIfReady(), lifecycle.runningCatchUp == nil,
                try mappingSourceFailures({ try hasManyChanges(since: index.syncedSequence) })
            {
                startCatchUp(index)
            }
            if lifecycle.runningCatchUp != nil {
                if let answer = try pageBeforeItsCount(plan.takePagesAlone(), terms, query) { return answer }
                while let catchingUp = lifecycle.runningCatchUp { await catchingUp.value }
            }
        }
        // The empty query (the first results) does not wait for a stored index to be mapped
        // and checked either (a third of a second at ten million books): see `firstResults`.
        let index = terms.isEmpty && lifecycle.index == nil ? nil : await indexIfReady()
        if searchEngine.foundDamage { throw damageFailure() }
        return try mappingSourceFailures {
            // One read transaction: the index catches up to, and the page rows are read from,
            // the same snapshot.
            try searchEngine.source.inOneRead {
                let sequence = try latestChange()
                // The last strategy, the books table, always answers.
                let found = try firstAnswer(of: plan.takeTheRest(), terms, query, index: index, at: sequence)!
                do {
                    return SearchAnswer(page: try page(found, terms, query), source: found.source)
                } catch is SearchIndexDamage {
                    // In one read snapshot every id the index names is a book: this index was
                    // crafted or damaged where no checksum looks. Never trust it again.
                    distrustIndex()
                    let found = try withoutIndex(terms, query)
                    return SearchAnswer(
                        page: try pageRows(
                            ids: found.ids, total: found.total, query: query, whileIndexing: !terms.isEmpty),
                        source: .booksTable)
                }
            }
        }
    }

    /// The same search answered without the index, as while one is being built: for tests
    /// and benchmarks that compare both ways.
    package func answerSearchWithoutIndex(_ query: SearchQuery) async throws -> SearchPage {
        try mappingSourceFailures {
            try searchEngine.source.inOneRead {
                let found = try withoutIndex(SearchTerms(query.text), query)
                return try pageRows(ids: found.ids, total: found.total, query: query)
            }
        }
    }

    /// The answer from the books table alone, the books of an ISBN query first (`ISBNFirst`),
    /// in the caller's read transaction. (The books table always answers, so this does too.)
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
        -> SearchAnswer?
    {
        guard query.countLater, !strategies.isEmpty else { return nil }
        return try mappingSourceFailures {
            try searchEngine.source.inOneRead {
                guard let found = try firstAnswer(of: strategies, terms, query, index: nil, at: latestChange()) else {
                    return nil
                }
                return SearchAnswer(page: try page(found, terms, query), source: found.source)
            }
        }
    }

    /// The page of a strategy's answer: a search index's ids must all be books, a word query
    /// answered without one says so, and a page alone says its count follows.
    package func page(_ found: StrategyAnswer, _ terms: SearchTerms, _ query: SearchQuery) throws -> SearchPage {
        try pageRows(
            ids: found.ids, total: found.total, query: query, namedByIndex: found.source.isIndex,
            whileIndexing: !found.source.isIndex && !terms.isEmpty, countFollows: found.source.countFollows)
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
            guard terms.isEmpty, index.map({ $0.syncedSequence < sequence }) ?? true else { return nil }
            catchUpSoon()
            let (ids, total, _) = try BooksTableSearch(source: searchEngine.source)
                .search(terms, offset: offset, limit: limit)
            return StrategyAnswer(ids: ids, total: total, source: .booksTable)
        case .index:
            guard let index else { return nil }
            do {
                guard try catchUp(index, to: sequence) else { return nil }
                // A build under way holds back meanwhile: over a stale index at ten million
                // books, keys answered beside a running build took two to four times longer.
                let search = {
                    try index.search(
                        terms, offset: offset, limit: limit, titleKey: { try self.searchEngine.source.titleKey(of: $0) }
                    )
                }
                let (ids, total) = try preparation.map { try $0.foreground.during(search) } ?? search()
                searchEngine.recentScans.removeAll()
                return StrategyAnswer(ids: ids, total: total, source: index.isBridge ? .staleIndex : .index)
            } catch is SearchIndexDamage {
                // A stored snapshot failed a check where this search read it: never trust it again.
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
            return StrategyAnswer(ids: ids, total: seen, source: .titleOrder)
        case .orderedMatches:
            guard query.countLater, !booksTable.narrowsAKeptScan(ofAtMost: SearchTuning.titleOrderRows, terms) else {
                return nil
            }
            return try booksTable.pageFromOrderedMatches(terms, offset: offset, limit: limit).map { StrategyAnswer($0) }
        case .booksTable:
            return StrategyAnswer(try booksTable.search(terms, offset: offset, limit: limit))
        }
    }
}
