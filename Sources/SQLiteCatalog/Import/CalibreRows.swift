import CSQLite

/// A text value as Calibre's file holds it: UTF-8 text, or bytes that are not (SQLite stores
/// what it is given). Never decoded with U+FFFD in place of the bad bytes: such a value is
/// left out and counted, or refuses its book, as the import's summary says.
enum CalibreText: Equatable {
    case text(String)
    case notUTF8

    var text: String? {
        if case let .text(text) = self { return text }
        return nil
    }
}

/// One Calibre book as its tables hold it, before Bookshelf's rules.
struct CalibreRow {
    let id: Int
    var title: CalibreText
    /// Calibre's `uuid` for the book: the id a second import finds it by.
    var uuid: CalibreText?
    /// How many rows of the books table have this id: more than one in a damaged library.
    var rowsWithItsId = 1
    var authors: [CalibreText] = []
    var identifiers: [(type: CalibreText, value: CalibreText)] = []
    var pubdate: CalibreText?
    var publisher: CalibreText?
    var series: CalibreText?
    var seriesIndex: Double?
    var tags: [CalibreText] = []
    var comments: CalibreText?
    var hasRating = false
    var languages = 0
}

/// The queries, one per table (with its link table), joined in memory by Calibre's book id.
struct CalibreRows {
    let reader: CalibreReader
    /// One book's rows only (a library opened in place reads a book at a time), or every book's.
    var book: Int? = nil
    /// Or these books' rows only (a page of search results), read in one pass of each query.
    var books: [Int]? = nil

    /// `clause` ("WHERE l.book = ?1") when one book is read, and its argument; with `books`,
    /// the clause's "= ?1" becomes a membership in the bound list (`json_each`, SQLite's own).
    private func only(_ clause: String) -> (String, [SQLValue]) {
        if let books {
            let list = "[" + books.map(String.init).joined(separator: ",") + "]"
            return (
                " " + clause.replacingOccurrences(of: "= ?1", with: "IN (SELECT value FROM json_each(?1))"),
                [.text(list)]
            )
        }
        guard let book else { return ("", []) }
        return (" " + clause, [.int(book)])
    }

    func read() throws(CalibreLibrary.Failure) -> [CalibreRow] {
        var rows: [Int: CalibreRow] = [:]
        var order: [Int] = []
        let (booksWhere, booksArguments) = only("WHERE id = ?1")
        for (id, title, pubdate, index, uuid) in try reader.rows(
            of: "its books table",
            "SELECT id, title, pubdate, series_index, uuid FROM books\(booksWhere) ORDER BY id", booksArguments,
            row: {
                (
                    $0.int(0), $0.calibreText(1), $0.optionalText(2), $0.isNull(3) ? nil : $0.double(3),
                    $0.optionalText(4)
                )
            })
        {
            // Two rows with one id: which links are whose cannot be told.
            guard rows[id] == nil else {
                rows[id]?.rowsWithItsId += 1
                continue
            }
            var row = CalibreRow(id: id, title: title)
            row.pubdate = pubdate
            row.seriesIndex = index
            row.uuid = uuid
            rows[id] = row
            order.append(id)
        }
        let (linkWhere, _) = only("WHERE l.book = ?1")
        let (bookWhere, bookArguments) = only("WHERE book = ?1")
        let (linkAnd, _) = only("AND l.book = ?1")
        // A link repeated (the same author five times) counts once.
        for (book, name) in try pairs(
            "its books_authors_link and authors tables",
            "SELECT l.book, a.name FROM books_authors_link l JOIN authors a ON a.id = l.author\(linkWhere) ORDER BY l.id"
        )
        where rows[book]?.authors.contains(name) == false {
            rows[book]?.authors.append(name)
        }
        for (book, type, value) in try reader.rows(
            of: "its identifiers table", "SELECT book, type, val FROM identifiers\(bookWhere) ORDER BY id",
            bookArguments,
            row: { ($0.int(0), $0.calibreText(1), $0.calibreText(2)) })
        {
            rows[book]?.identifiers.append((type, value))
        }
        for (book, name) in try pairs(
            "its books_publishers_link and publishers tables",
            "SELECT l.book, p.name FROM books_publishers_link l JOIN publishers p ON p.id = l.publisher\(linkWhere) ORDER BY l.id"
        )
        where rows[book]?.publisher == nil {
            rows[book]?.publisher = name
        }
        for (book, name) in try pairs(
            "its books_series_link and series tables",
            "SELECT l.book, s.name FROM books_series_link l JOIN series s ON s.id = l.series\(linkWhere) ORDER BY l.id")
        where rows[book]?.series == nil {
            rows[book]?.series = name
        }
        for (book, name) in try pairs(
            "its books_tags_link and tags tables",
            "SELECT l.book, t.name FROM books_tags_link l JOIN tags t ON t.id = l.tag\(linkWhere) ORDER BY l.id")
        where rows[book]?.tags.contains(name) == false {
            rows[book]?.tags.append(name)
        }
        for (book, text) in try pairs("its comments table", "SELECT book, text FROM comments\(bookWhere) ORDER BY id") {
            rows[book]?.comments = text
        }
        for (book, _) in try pairs(
            "its books_ratings_link and ratings tables",
            "SELECT l.book, '' FROM books_ratings_link l JOIN ratings r ON r.id = l.rating WHERE r.rating > 0\(linkAnd)"
        ) {
            rows[book]?.hasRating = true
        }
        for (book, _) in try pairs(
            "its books_languages_link table", "SELECT book, '' FROM books_languages_link\(bookWhere)")
        {
            rows[book]?.languages += 1
        }
        return order.compactMap { rows[$0] }
    }

    private func pairs(_ tables: String, _ sql: String) throws(CalibreLibrary.Failure) -> [(Int, CalibreText)] {
        try reader.rows(of: tables, sql, only("").1) { ($0.int(0), $0.calibreText(1)) }
    }
}

extension Statement {
    fileprivate func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column's text, checked to be UTF-8 (a NULL is empty text).
    fileprivate func calibreText(_ column: Int32) -> CalibreText {
        String(validating: bytes(column), as: UTF8.self).map(CalibreText.text) ?? .notUTF8
    }

    fileprivate func optionalText(_ column: Int32) -> CalibreText? {
        isNull(column) ? nil : calibreText(column)
    }
}
