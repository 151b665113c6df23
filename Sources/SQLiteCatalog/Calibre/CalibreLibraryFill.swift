import BookCatalog
import CSQLite

/// Fills a library that calibre made empty (`calibredb list` on a new folder) with many books
/// at once, for the benchmark: in one transaction, each book written as a save writes it
/// (`CalibreBookWrite`, with calibre's functions registered for its triggers), so that the
/// library is calibre's own in every row. No book gets a folder or files: calibre's check
/// finds nothing missing for a book without formats or a cover.
public enum CalibreLibraryFill {
    /// Adds `books` to the library at `path` (its folder or `metadata.db`); answers how many.
    public static func fill(_ path: String, with books: some Sequence<NewBook>) throws -> Int {
        let file = try CalibreLibraryFile.locate(path)
        let database = try CalibreDatabase.openInPlace(file, writable: true)
        try CalibreFunctions.register(on: database.connection)
        let stamp = CalibreTimestamp.text(CalibreTimestamp.now())
        return try database.connection.transaction(immediate: true) {
            let first =
                (try database.connection.queryFirst("SELECT coalesce(max(id), 0) FROM books") { $0.int(0) } ?? 0) + 1
            var id = first
            for book in books {
                let reader = CalibreReader(
                    database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: 1 << 30))
                _ = try database.connection.run(
                    """
                    INSERT INTO books (id, title, timestamp, pubdate, series_index, author_sort, path, has_cover, last_modified)
                    VALUES (?1, ?2, ?3, '0101-01-01 00:00:00+00:00', 1.0, '', ?4, 0, ?3)
                    """, [.int(id), .text(book.title), .text(stamp), .text("bench/\(id)")])
                let empty = BookRecord(id: id, title: book.title, revision: 0, author: "", details: .empty)
                _ = try CalibreBookWrite(reader: reader, book: id).write(
                    SaveRequest(
                        id: id, title: book.title, author: book.author, details: book.details, expectedRevision: 0),
                    over: empty)
                id += 1
            }
            return id - first
        }
    }
}
