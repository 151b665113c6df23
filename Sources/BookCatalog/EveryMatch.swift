extension BookRepository {
    /// Every book `query` matches, in the search's order, each once, as read: all pages, not
    /// only those a list has loaded. What a bulk edit takes, in the app (marking every match)
    /// and on the command line (`edit --search`). More than `limit` books is `tooManyMatches`.
    public func everyMatch(of query: String, pageSize: Int = 1_000, limit: Int = BulkEdit.maximumBooks)
        async throws -> [BookRecord]
    {
        let pageSize = max(1, pageSize)
        var books: [BookRecord] = [], seen = Set<Int>()
        var next: SearchCursor?
        while true {
            try Task.checkCancellation()
            let page = try await search(SearchQuery(text: query, limit: pageSize, offset: books.count, after: next))
            for record in page.records where seen.insert(record.id).inserted { books.append(record) }
            guard books.count <= limit else { throw TooManyMatches(limit: limit) }
            guard page.records.count == pageSize else { return books }
            next = page.next
        }
    }
}

/// A query matches more books than one batch takes.
public struct TooManyMatches: Error, Sendable, Equatable, CustomStringConvertible {
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public var description: String { "the search matches more than \(limit) books, more than one batch takes" }
}
