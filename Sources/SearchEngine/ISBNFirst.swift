import BookCatalog

/// A query that is an ISBN (`SearchTerms.isbn`) lists the books with that ISBN first, at rank
/// −1, then the books its text matches, each once. Done here, around whatever answers the
/// text, so every strategy, source and index state gives it alike without knowing of it.
///
/// ISBN queries are rare and their text matches few books, so the text's page is asked from
/// the top (`[0, offset + limit)`) and the page cut from the books of the ISBN followed by it.
package enum ISBNFirst {
    /// The answer to `query` when `terms` is an ISBN, from `text`, which answers the text alone
    /// for a query (nil when it declines: then this declines too), in the caller's read
    /// transaction; `text`'s own answer otherwise.
    package static func answer(
        _ terms: SearchTerms, _ query: SearchQuery, source: any SearchSource,
        text: (SearchQuery) throws -> StrategyAnswer?
    ) throws -> StrategyAnswer? {
        guard let isbn = terms.isbn else { return try text(query) }
        // Read in no order, then put in result order here: a source asked for them in order may
        // read every book to spare itself the sort (`SQLiteSearchSource.booksOfTheISBN`).
        var judge = RowJudge(words: terms.words.map(QueryWord.init), wanted: 0, recordingUpTo: nil)
        var found: [(id: Int, titleKey: [UInt8], matchesText: Bool)] = []
        try source.books(withISBN: isbn) { book in
            found.append(
                (
                    id: book.id, titleKey: Array(book.titleKey),
                    matchesText: judge.rank(title: book.titleTerms, author: book.authorTerms, other: book.otherTerms)
                        != nil
                ))
        }
        let books = found.sorted {
            $0.titleKey == $1.titleKey ? $0.id < $1.id : $0.titleKey.lexicographicallyPrecedes($1.titleKey)
        }
        let wanted = query.offset + query.limit
        guard
            let found = try text(
                SearchQuery(text: query.text, limit: wanted, offset: 0, countLater: query.countLater))
        else { return nil }
        let isbnIDs = Set(books.map(\.id))
        let ids = books.map(\.id) + found.ids.filter { !isbnIDs.contains($0) }
        // The text's total counts the books of the ISBN it also matches: once is enough.
        let both = books.count { $0.matchesText }
        let countLimit = SearchIndex.countLimit(offset: query.offset, limit: query.limit)
        let total: Int
        if found.strategy.countFollows {
            // The matches seen so far: those of the ISBN are all seen, and the text's seen may
            // not hold them; never more than there are.
            total = max(books.count, found.total - both + books.count)
        } else {
            // A text total at the limit stands for at least that many: so does this one.
            total = found.total >= countLimit ? countLimit : min(found.total - both + books.count, countLimit)
        }
        return StrategyAnswer(
            ids: Array(ids.dropFirst(query.offset).prefix(query.limit)), total: total, strategy: found.strategy)
    }
}
