import BookCatalog

/// A library's books as Bookshelf's records, mapped as `import --from calibre` maps them
/// (`CalibreMapping`), each with its `last_modified` as the revision (`CalibreTimestamp`). A
/// book that cannot be shown (a title that is not text or breaks a title's rule, authors
/// longer than an author may be, two books with one id) is left out, and kept with why, so
/// that `bookshelf check` can name it.
struct CalibreBooks {
    let records: [BookRecord]
    /// Books left out, each with why.
    let notShown: [CalibreBookNotShown]
    /// Each record's comments as the library holds them, by id: written back untouched when
    /// the notes are not edited.
    let comments: [Int: String]

    /// Every book, or one (`book`), or some (`books`).
    static func read(_ reader: CalibreReader, book: Int? = nil, books: [Int]? = nil) throws(CalibreLibrary.Failure)
        -> CalibreBooks
    {
        let rows = try CalibreRows(reader: reader, book: book, books: books).read()
        let (sql, arguments): (String, [SQLValue]) =
            if let books {
                (
                    "SELECT id, last_modified FROM books WHERE id IN (SELECT value FROM json_each(?1))",
                    [.text("[" + books.map(String.init).joined(separator: ",") + "]")]
                )
            } else if let book {
                ("SELECT id, last_modified FROM books WHERE id = ?1", [.int(book)])
            } else {
                ("SELECT id, last_modified FROM books", [])
            }
        let stamps = try reader.rows(of: "its books table", sql, arguments, row: { ($0.int(0), $0.text(1)) })
        let revisions = Dictionary(stamps.map { ($0.0, revision(of: $0.1)) }, uniquingKeysWith: { first, _ in first })
        var records: [BookRecord] = []
        var comments: [Int: String] = [:]
        var notShown: [CalibreBookNotShown] = []
        var skipped = SkipCounts()
        for var row in rows {
            // calibre keeps a comma of an author's name as "|" (db/write.py).
            row.authors = row.authors.map { name in
                if case let .text(text) = name { return .text(text.replacingOccurrences(of: "|", with: ",")) }
                return name
            }
            let named = CalibreMapping.named(row)
            guard case let .success((title, author)) = named else {
                if case let .failure(unstorable) = named {
                    notShown.append(CalibreBookNotShown(id: row.id, reason: unstorable.reason))
                }
                continue
            }
            let details = CalibreMapping.details(of: row, skipped: &skipped)
            records.append(
                BookRecord(id: row.id, title: title, revision: revisions[row.id] ?? 0, author: author, details: details)
            )
            if case let .text(text)? = row.comments { comments[row.id] = text }
        }
        return CalibreBooks(records: records, notShown: notShown, comments: comments)
    }

    /// The revision of a `last_modified` text: its microseconds, or 0 for a text calibre
    /// would not write (such a book's first save by Bookshelf gives it a real one).
    static func revision(of lastModified: String) -> Int {
        max(0, CalibreTimestamp.microseconds(lastModified) ?? 0)
    }
}

/// A book of the library that Bookshelf leaves out, and why (the rule its title or author
/// breaks): it is neither searched, nor exported, nor edited here, and calibre keeps it as it is.
public struct CalibreBookNotShown: Sendable, Equatable {
    public let id: Int
    public let reason: String
}
