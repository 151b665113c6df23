import BookCatalog
import SearchEngine

/// What the search engine indexes of a Calibre library's books (`BookText`'s forms of each
/// book as Bookshelf maps it), read at once: calibre's tables hold none of these forms, so
/// a read of many books (an index build, a search while one is built) maps them all here,
/// and keeps them until the library changes. In id order, with the title order beside.
struct CalibreBookTexts {
    struct Book {
        let id: Int
        let titleKey: [UInt8]
        let titleTerms: [UInt8]
        let authorTerms: [UInt8]
        let otherTerms: [UInt8]

        init(_ record: BookRecord) {
            let text = BookText(title: record.title, author: record.author, details: record.details)
            id = record.id
            titleKey = Array(text.titleKey.utf8)
            titleTerms = Array(text.titleTerms.utf8)
            authorTerms = Array(text.authorTerms.utf8)
            otherTerms = Array(text.otherTerms.utf8)
        }

        /// The book as the engine reads it, valid during `body`.
        func withSourceBook<T>(_ body: (SourceBook) throws -> T) rethrows -> T {
            try titleKey.withUnsafeBufferPointer { key in
                try titleTerms.withUnsafeBufferPointer { title in
                    try authorTerms.withUnsafeBufferPointer { author in
                        try otherTerms.withUnsafeBufferPointer { other in
                            try body(
                                SourceBook(
                                    id: id, titleKey: key, titleTerms: title, authorTerms: author, otherTerms: other))
                        }
                    }
                }
            }
        }

        /// Result order among equals: title key bytes, then id (SQLite's `ORDER BY title_key, id`).
        func sortsBefore(_ other: Book) -> Bool {
            titleKey == other.titleKey ? id < other.id : titleKey.lexicographicallyPrecedes(other.titleKey)
        }
    }

    /// Ascending by id.
    let books: [Book]
    /// Places in `books`, in title order.
    let titleOrder: [Int]

    init(_ records: [BookRecord]) {
        books = records.map(Book.init).sorted { $0.id < $1.id }
        let books = books
        titleOrder = books.indices.sorted { books[$0].sortsBefore(books[$1]) }
    }

    var census: BookCensus {
        BookCensus(count: books.count, smallestID: books.first?.id ?? 0, largestID: books.last?.id ?? 0)
    }

    /// The first place in `titleOrder` whose key is not below `key`.
    func firstInTitleOrder(notBelow key: [UInt8]) -> Int {
        var (low, high) = (0, titleOrder.count)
        while low < high {
            let middle = (low + high) / 2
            if books[titleOrder[middle]].titleKey.lexicographicallyPrecedes(key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The book of `id`, if there is one.
    func book(_ id: Int) -> Book? {
        var (low, high) = (0, books.count)
        while low < high {
            let middle = (low + high) / 2
            if books[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < books.count && books[low].id == id ? books[low] : nil
    }
}
