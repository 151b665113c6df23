import BookCatalog

/// Answers a search from the books table itself, for while the search index is being built
/// or caught up: the same matches, in the same order, with the same exact total as
/// `SearchIndex`, so switching to the index changes nothing but speed.
///
/// SQLite reads the table in file order (sequential; the scope index would read it in title
/// order, one random page per row, ten times slower) and narrows the rows to those holding the
/// longest token of every query word somewhere in their derived terms (`instr`, a superset);
/// each remaining row is then judged by the row matcher (`RowJudge`: on its tokens exactly as
/// `SearchIndexBase` judges a book, by `SearchTerms.rank`'s rules), and ordered by rank, `title_key` bytes, then id, as the index
/// orders its ordinals. Only the best `offset + limit` rows of each rank are kept, so memory
/// stays small for broad queries. Query text only ever reaches SQL as bound values.
///
/// For the remote that waits for its index (`recent`), the table is read once: a query that
/// narrows an earlier one is judged on that scan's matching rows (`RecentScans`), or for a page
/// alone on their first matches (`LeadingMatches`), and any other on the table's copy that the
/// first scans make (`BooksCopy`), each with the rows changed since.
package struct BooksTableSearch {
    package let source: any SearchSource
    /// Earlier scans' rows, to answer a narrower query from (`RecentScans`), and the catalog's
    /// latest `change_seq` in this read transaction. A word query's matches are kept there too.
    package var recent: (scans: RecentScans, sequence: Int)? = nil

    package init(source: any SearchSource, recent: (scans: RecentScans, sequence: Int)? = nil) {
        self.source = source
        self.recent = recent
    }

    /// `strategy`: the books table, or with `recent`, an earlier scan's matches or the table's copy.
    package typealias Found = (ids: [Int], total: Int, strategy: SearchStrategy)

    package func search(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found {
        guard !terms.hasNoSearchableWords else { return ([], 0, .booksTable) }
        if terms.isEmpty {
            // Counting stops where the page would say "at least" anyway.
            let countLimit = SearchIndex.countLimit(offset: offset, limit: limit)
            let total = try source.bookCount(upTo: countLimit)
            var ids: [Int] = []
            try source.idsInTitleOrder(offset: offset, limit: limit) { ids.append($0) }
            // Both read the same snapshot: a page shorter than the count leaves room for is damage.
            // (The count goes past offset + limit, so the page is always within it.)
            guard ids.count == min(limit, max(total - offset, 0)) else {
                throw CatalogDamage("the title index lists \(offset + ids.count) books of \(total) counted")
            }
            return (ids, total, .booksTable)
        }
        let words = terms.words.map(QueryWord.init)
        guard let (scans, sequence) = recent else {
            var judge = RowJudge(words: words, wanted: offset + limit, recordingUpTo: nil)
            try cancellableScan(words, into: &judge)
            let (ids, total) = judge.answer(offset: offset, limit: limit)
            return (ids, total, .booksTable)
        }
        let earlier = try scans.narrowest(holdingMatchesOf: words, at: sequence).flatMap { scan in
            scans.copyIsQuicker(than: scan) ? nil : try changedRows(since: scan.sequence).map { (scan, $0) }
        }
        // The kept scans cannot answer a query none of them narrows: their room goes to its matches.
        if earlier == nil { scans.removeKeptScans() }
        // What the new matches may take: the kept rows and these stay within the budget together.
        var judge = RowJudge(
            words: words, wanted: offset + limit, recordingUpTo: SearchTuning.keptScansBytes - scans.byteCount,
            keepingWholeMatchesUpTo: scans.wholeMatchesLimit)
        let strategy: SearchStrategy
        if let (scan, changed) = earlier {
            let changedIDs = Set(changed.ids)
            judge.copy = scan.rows.copy
            try scan.rows.forEach(mayMatch: words) { id, key, title, author, other, place in
                if changedIDs.isEmpty || !changedIDs.contains(id) {
                    judge.offer(id: id, key: key, title: title, author: author, other: other, copiedAt: place)
                }
            }
            try changed.forEach { id, key, title, author, other, _ in
                judge.offer(id: id, key: key, title: title, author: author, other: other)
            }
            strategy = .earlierScan
        } else if let copied = try copiedRows(into: &judge, scans: scans, sequence: sequence) {
            strategy = copied
        } else {
            try cancellableScan(words, into: &judge)
            strategy = .booksTable
        }
        if var matched = judge.matched {
            let leading = judge.leading?.ordered ?? FirstMatches()
            // A narrower query's page is among the first matches when they are all of them;
            // otherwise it is found by walking all of them in result order (`MatchOrder`).
            if leading.isWhole { matched.dropOrder() } else { matched.sortOrder() }
            scans.keep(RecentScans.Scan(words: words, sequence: sequence, rows: matched, leading: leading))
        }
        let (ids, total) = judge.answer(offset: offset, limit: limit)
        return (ids, total, strategy)
    }

    /// The page alone, its count to follow, from the first matches of a kept scan the query
    /// narrows, when they hold it (`LeadingMatches`), with the matches seen as the total; nil
    /// otherwise. A scan of no more rows than a scan's first matches are (1,024) is left to
    /// `search`, as quick, and counted.
    package func pageFromFirstMatches(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found? {
        try page(narrowing: terms, offset: offset, limit: limit, strategy: .leadingMatches) { scan, changed, judge in
            try LeadingMatches.page(among: scan.leading, changed: changed, judge: &judge, offset: offset, limit: limit)
        }
    }

    /// The same from all the matches of that scan, walked in result order (`MatchOrder`), when
    /// they are in order. Asked after the title order (`TitleOrderPage`): the walk passes over
    /// rows on their token starts, which tell little of a query whose words are a letter or
    /// two ("mu" after "m" judged every title beginning "ma" to "mo"; `keys --no-index`).
    package func pageFromOrderedMatches(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found? {
        try page(narrowing: terms, offset: offset, limit: limit, strategy: .orderedMatches) { scan, changed, judge in
            try MatchOrder.page(of: scan.rows, changed: changed, judge: &judge, offset: offset, limit: limit)
        }
    }

    /// The page `find` finds among the kept scan the query narrows, as it is now.
    private func page(
        narrowing terms: SearchTerms, offset: Int, limit: Int, strategy: SearchStrategy,
        find: (RecentScans.Scan, _ changed: ScannedRows, inout RowJudge) throws -> (ids: [Int], seen: Int)?
    ) throws -> Found? {
        guard !terms.isEmpty, !terms.hasNoSearchableWords, let (scans, sequence) = recent else { return nil }
        let words = terms.words.map(QueryWord.init)
        guard let scan = scans.narrowest(holdingMatchesOf: words, at: sequence),
            scan.rows.count > min(scan.leading.count, SearchTuning.leadingMatches),
            let changed = try changedRows(since: scan.sequence)
        else { return nil }
        var judge = RowJudge(words: words, wanted: offset + limit, recordingUpTo: nil)
        guard let (ids, seen) = try find(scan, changed, &judge) else { return nil }
        return (ids, seen, strategy)
    }

    /// Whether the query narrows a kept scan of at most `count` rows: judging them all, and
    /// counting, is then as quick as any way to the page alone.
    package func narrowsAKeptScan(ofAtMost count: Int, _ terms: SearchTerms) -> Bool {
        guard !terms.isEmpty, !terms.hasNoSearchableWords, let (scans, sequence) = recent else { return false }
        return scans.narrowest(holdingMatchesOf: terms.words.map(QueryWord.init), at: sequence).map {
            $0.rows.count <= count
        } ?? false
    }

    /// Judges every row from the copy of the table (`BooksCopy`), reading from the table only
    /// what is not copied yet (and copying it). `.booksCopy` when the copy was whole already,
    /// `.booksTable` when the table was read; nil when there is no copy to be had.
    private func copiedRows(into judge: inout RowJudge, scans: RecentScans, sequence: Int) throws -> SearchStrategy? {
        var changed: ScannedRows?
        if let copy = scans.copy, copy.sequence <= sequence { changed = try changedRows(since: copy.sequence) }
        if changed == nil {
            // None yet, or too far behind to catch up: a new one, read from the start.
            scans.copy = BooksCopy(sequence: sequence, memory: scans.memory)
            changed = ScannedRows()
        }
        guard let copy = scans.copy, let changed else { return nil }
        // Rows changed since the copy began are judged as they are now, never from the copy.
        let changedIDs = Set(changed.ids)
        judge.copy = copy
        if let letter = judge.oneLetter {
            try copy.forEach(matchingLetter: letter) { id, place, rank, keyPrefix, texts in
                if changedIDs.isEmpty || !changedIDs.contains(id) {
                    judge.offer(id: id, copiedAt: place, rank: rank, keyPrefix: keyPrefix, texts: texts)
                }
            }
        } else {
            try copy.forEach(admitting: TokenStarts(requiredByAll: judge.words)) {
                id, place, key, title, author, other in
                if changedIDs.isEmpty || !changedIDs.contains(id) {
                    judge.offer(id: id, key: key, title: title, author: author, other: other, copiedAt: place)
                }
            }
        }
        // Of the rest, those the copy holds are judged now; a whole copy holds every row (added
        // ones too, though not in it), an unfinished one reads those after it from the table.
        let copiedUpTo = copy.isComplete ? Int.max : copy.lastID ?? Int.min
        try changed.forEach { id, key, title, author, other, _ in
            if id <= copiedUpTo { judge.offer(id: id, key: key, title: title, author: author, other: other) }
        }
        if copy.isComplete { return .booksCopy }
        // The rest of the table, in id order, copied as it is read: a scan cancelled by the
        // next key leaves what it read for the next one.
        try source.cancellable {
            var copying = true
            try source.everyBook(after: copiedUpTo, holding: []) { book in
                let (id, key, title, author, other) = (
                    book.id, book.titleKey, book.titleTerms, book.authorTerms, book.otherTerms
                )
                let place = copying ? copy.append(id: id, key: key, title: title, author: author, other: other) : nil
                if copying && place == nil {
                    // The disk is full: search on without a copy.
                    scans.copy = nil
                    copying = false
                }
                judge.offer(id: id, key: key, title: title, author: author, other: other, copiedAt: place)
            }
            if copying { copy.complete() }
        }
        return .booksTable
    }

    /// A scan takes a while (a third of a second at a million books): a search replaced by
    /// the next key stops at once instead of keeping the connection from the next search.
    private func cancellableScan(_ words: [QueryWord], into judge: inout RowJudge) throws {
        try source.cancellable { try scanTable(words, into: &judge) }
    }

    /// The scope's rows changed since `sequence`, or nil when there are too many, or when a book
    /// was removed since: what was read then would still offer it (a new read forgets it).
    private func changedRows(since sequence: Int) throws -> ScannedRows? {
        var removed = false
        try source.removals(since: sequence, limit: 1) { _ in removed = true }
        guard !removed else { return nil }
        var rows = ScannedRows()
        var tooMany = false
        try source.changes(since: sequence, limit: SearchTuning.keptScanChangedRows + 1) { book in
            guard rows.count < SearchTuning.keptScanChangedRows else {
                tooMany = true
                return
            }
            rows.append(
                id: book.id, key: book.titleKey, title: book.titleTerms, author: book.authorTerms,
                other: book.otherTerms)
        }
        return tooMany ? nil : rows
    }

    /// Reads every book in the source's order, narrowed by the source to those holding each
    /// word's longest token.
    private func scanTable(_ words: [QueryWord], into judge: inout RowJudge) throws {
        try source.everyBook(after: nil, holding: words.map { Array($0.longestToken) }) { book in
            judge.offer(
                id: book.id, key: book.titleKey, title: book.titleTerms, author: book.authorTerms,
                other: book.otherTerms)
        }
    }
}
