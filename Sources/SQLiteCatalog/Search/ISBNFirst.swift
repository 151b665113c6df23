import BookCatalog

/// A query that is an ISBN (`SearchTerms.isbn`) lists the books with that ISBN first, at rank
/// −1, then the books its text matches, each once. Done here, around whatever answers the
/// text, so every strategy, source and index state gives it alike without knowing of it.
///
/// ISBN queries are rare and their text matches few books, so the text's page is asked from
/// the top (`[0, offset + limit)`) and the page cut from the books of the ISBN followed by it.
enum ISBNFirst {
    /// The books of scope ?1 with ISBN ?2, in no order (see `answer`).
    static let booksOfTheISBN =
        "SELECT id, title_key, title_terms, author_terms, other_terms FROM books WHERE scope = ?1 AND isbn = ?2"

    /// The answer to `query` when `terms` is an ISBN, from `text`, which answers the text alone
    /// for a query (nil when it declines: then this declines too), in the caller's read
    /// transaction; `text`'s own answer otherwise.
    static func answer(
        _ terms: SearchTerms, _ query: SearchQuery, connection: Connection, scope: String,
        text: (SearchQuery) throws -> StrategyAnswer?
    ) throws -> StrategyAnswer? {
        guard let isbn = terms.isbn else { return try text(query) }
        // Read through `books_by_isbn`, then put in result order here: with an ORDER BY, SQLite
        // walks `books_by_scope_title` to spare itself the sort, reading every book of the scope
        // (3 s per ISBN query at a million books) to find the one or two with this ISBN.
        var judge = RowJudge(words: terms.words.map(QueryWord.init), wanted: 0, recordingUpTo: nil)
        let books = try connection.query(booksOfTheISBN, [.text(scope), .text(isbn)]) { row in
            (
                id: row.int(0), titleKey: Array(row.bytes(1)),
                matchesText: judge.rank(title: row.bytes(2), author: row.bytes(3), other: row.bytes(4)) != nil
            )
        }
        .sorted { $0.titleKey == $1.titleKey ? $0.id < $1.id : $0.titleKey.lexicographicallyPrecedes($1.titleKey) }
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
        if found.source.countFollows {
            // The matches seen so far: those of the ISBN are all seen, and the text's seen may
            // not hold them; never more than there are.
            total = max(books.count, found.total - both + books.count)
        } else {
            // A text total at the limit stands for at least that many: so does this one.
            total = found.total >= countLimit ? countLimit : min(found.total - both + books.count, countLimit)
        }
        return StrategyAnswer(
            ids: Array(ids.dropFirst(query.offset).prefix(query.limit)), total: total, source: found.source)
    }
}
