import BookCatalog

/// A new book in a library, made inside the caller's transaction as calibre's
/// `create_book_entry` makes one without files (db/cache.py): a books row (calibre's trigger
/// gives it its title sort and uuid), the folder calibre would name it by in `path`, then
/// every field written as a save writes it (`CalibreBookWrite`), and the book marked for
/// calibre's metadata backup. No folder is created: Bookshelf writes no file in the library,
/// and calibre makes the folder when it first writes one there (its backup of the book's
/// metadata, a format added); its check finds nothing missing for a book without files.
enum CalibreBookAdd {
    /// Adds `book` (validated) at `stamp` (its `last_modified` and date added); its id.
    static func add(_ book: NewBook, reader: CalibreReader, at stamp: Int) throws(CalibreLibrary.Failure) -> Int {
        let now = CalibreTimestamp.text(stamp)
        let made = try reader.rows(
            of: "its books table",
            """
            INSERT INTO books (title, timestamp, pubdate, series_index, author_sort, path, has_cover, last_modified)
            VALUES (?1, ?2, ?3, 1.0, '', '', 0, ?2) RETURNING id
            """, [.text(book.title), .text(now), .text(CalibreLibrary.unknownDatePrefix + " 00:00:00+00:00")]
        ) { $0.int(0) }
        guard let id = made.first else {
            throw CalibreLibrary.Failure(description: "calibre's books table took no new row")
        }
        _ = try reader.rows(
            of: "its books table", "UPDATE books SET path = ?1 WHERE id = ?2",
            [.text(path(id: id, title: book.title, author: book.author)), .int(id)]
        ) { _ in () }
        // Written over a book with no author at all, so that none is written as calibre's "Unknown".
        let blank = BookRecord(id: id, title: book.title, revision: 0, author: "\u{0}", details: .empty)
        let write = CalibreBookWrite(reader: reader, book: id)
        let others = try write.write(
            SaveRequest(id: id, title: book.title, author: book.author, details: book.details, expectedRevision: 0),
            over: blank)
        try write.touch(others.union([id]), at: stamp)
        return id
    }

    /// The folder calibre names a book's by (`construct_path_name`): its first author, then its
    /// title and id, each at most 100 characters less the id's room, in characters any file
    /// system takes. calibre transliterates what is not ASCII; here it is an underscore, which
    /// calibre replaces with its own name when it next renames the folder.
    static func path(id: Int, title: String, author: String) -> String {
        let suffix = " (\(id))"
        let limit = 100 - suffix.count / 2 - 2
        let first = CalibreBookWrite.authorNames(author).first ?? CalibreBookWrite.unknownAuthor
        var authorPart = safe(first, limit: limit)
        while authorPart.hasSuffix(" ") || authorPart.hasSuffix(".") { authorPart.removeLast() }
        var titlePart = safe(String(title.drop { $0 == " " }), limit: limit)
        while titlePart.hasSuffix(" ") { titlePart.removeLast() }
        return (authorPart.isEmpty ? CalibreBookWrite.unknownAuthor : authorPart) + "/"
            + (titlePart.isEmpty ? "Unknown" : titlePart) + suffix
    }

    private static func safe(_ text: String, limit: Int) -> String {
        var kept = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            let allowed =
                scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F
                && !"\\/:*?\"<>|".unicodeScalars.contains(scalar)
            kept.unicodeScalars.append(allowed ? scalar : "_")
        }
        return kept
    }
}
