import BookCatalog
import SearchEngine

extension SQLiteBookRemote {
    /// The first answer of `strategies`, asked in order in the caller's read transaction, as of
    /// the catalog's `sequence`; nil when they all decline (never when `booksTable` is among them).
    /// The books of an ISBN query come first whichever answers (`ISBNFirst`).
    func firstAnswer(
        of strategies: [SearchStrategy], _ terms: SearchTerms, _ query: SearchQuery, index: SearchIndex?,
        at sequence: Int
    ) throws -> StrategyAnswer? {
        try ISBNFirst.answer(terms, query, source: searchSource) { query in
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
        let booksTable = BooksTableSearch(source: searchSource, recent: (recentScans, sequence))
        switch strategy {
        case .firstResults:
            guard terms.isEmpty, index.map({ $0.syncedSequence < sequence }) ?? true else { return nil }
            catchUpSoon()
            let (ids, total, _) = try BooksTableSearch(source: searchSource)
                .search(terms, offset: offset, limit: limit)
            return StrategyAnswer(ids: ids, total: total, source: .booksTable)
        case .index:
            guard let index else { return nil }
            do {
                guard try catchUp(index, to: sequence) else { return nil }
                // A build under way holds back meanwhile: over a stale index at ten million
                // books, keys answered beside a running build took two to four times longer.
                let search = { try index.search(terms, offset: offset, limit: limit, titleKey: self.titleKey) }
                let (ids, total) = try preparation.map { try $0.foreground.during(search) } ?? search()
                recentScans.removeAll()
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
                let (ids, seen) = try titleOrder.page(
                    terms, offset: offset, limit: limit, source: searchSource)
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
