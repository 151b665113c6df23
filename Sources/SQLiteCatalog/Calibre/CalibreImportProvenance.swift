import BookCatalog
import CSQLite

/// What Bookshelf remembers of the imports into a Calibre library (issue 60): for each book an
/// import brought, the source's kind, the source's id for it and the values that import
/// brought, so that the next import of that source updates the book instead of adding it
/// again. A table of Bookshelf's own file for the library in its state folder, beside its saves
/// and batches (`CalibreSaveLog.stateFile`): never a table or row in `metadata.db`, which is
/// calibre's alone. Books are calibre's ids: calibre never gives an id twice (its books table
/// is AUTOINCREMENT), so a row whose book calibre deleted names no other book.
final class CalibreImportProvenance {
    let connection: Connection

    init(file: String) throws {
        connection = try Connection(path: file, flags: SQLITE_OPEN_READWRITE)
        connection.setBusyTimeout(milliseconds: 10_000)
        try connection.execute("PRAGMA trusted_schema = OFF")
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS import_provenance(
                book_id INTEGER NOT NULL, source TEXT NOT NULL, source_id TEXT, import_stamp INTEGER NOT NULL,
                title TEXT NOT NULL, author TEXT NOT NULL, isbn TEXT, year INTEGER, publisher TEXT NOT NULL,
                series TEXT NOT NULL, series_index_thousandths INTEGER, tags TEXT NOT NULL, notes TEXT NOT NULL,
                PRIMARY KEY (book_id, source));
            CREATE UNIQUE INDEX IF NOT EXISTS import_provenance_by_source_id
                ON import_provenance(source, source_id) WHERE source_id IS NOT NULL;
            CREATE INDEX IF NOT EXISTS import_provenance_by_stamp ON import_provenance(source, import_stamp);
            """)
    }

    /// The stamp of a new import: greater than every earlier one. Read inside its transaction.
    func nextStamp() throws -> Int {
        try connection.queryFirst("SELECT coalesce(max(import_stamp), 0) + 1 FROM import_provenance") {
            $0.int(0)
        } ?? 1
    }

    /// One book as an import of a source remembers it.
    struct Remembered {
        let book: Int
        let sourceID: String?
        let stamp: Int
        let values: NewBook
    }

    private static let columns =
        "book_id, source_id, import_stamp, title, author, isbn, year, publisher, series, series_index_thousandths, tags, notes"

    private static func remembered(_ row: Statement) -> Remembered {
        Remembered(
            book: row.int(0), sourceID: row.isNull(1) ? nil : row.text(1), stamp: row.int(2),
            values: NewBook(title: row.text(3), author: row.text(4), details: StoredDetails.read(row, from: 5)))
    }

    /// The book an import of `source` remembers by the source's `id`.
    func book(source: ImportSourceKind, id: String) throws -> Remembered? {
        try connection.queryFirst(
            "SELECT \(Self.columns) FROM import_provenance WHERE source = ?1 AND source_id = ?2",
            [.text(source.rawValue), .text(id)], row: Self.remembered)
    }

    /// What the last import of `source` remembered of `book`.
    func base(of book: Int, source: ImportSourceKind) throws -> Remembered? {
        try connection.queryFirst(
            "SELECT \(Self.columns) FROM import_provenance WHERE book_id = ?1 AND source = ?2",
            [.int(book), .text(source.rawValue)], row: Self.remembered)
    }

    /// Whether the import of `stamp` has remembered `book` already, from any source.
    func remembers(_ book: Int, stamp: Int) throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 FROM import_provenance WHERE book_id = ?1 AND import_stamp = ?2", [.int(book), .int(stamp)]
        ) { _ in true } ?? false
    }

    /// Remembers that the import of `stamp` brought `values` for `book` from `source`. A row of
    /// another book with the same source id (a book calibre deleted, added again) is dropped.
    func remember(book: Int, source: ImportSourceKind, sourceID: String?, stamp: Int, values: NewBook) throws {
        if let sourceID {
            try connection.run(
                "DELETE FROM import_provenance WHERE source = ?1 AND source_id = ?2 AND book_id <> ?3",
                [.text(source.rawValue), .text(sourceID), .int(book)])
        }
        try ImportProvenanceRow.remember(
            book: book, source: source, scope: nil, sourceID: sourceID, stamp: stamp, values: values, on: connection)
    }

    /// The books an earlier import of `source` remembered and the import of `stamp` did not, in
    /// id order.
    func books(source: ImportSourceKind, before stamp: Int) throws -> [Int] {
        try connection.query(
            "SELECT book_id FROM import_provenance WHERE source = ?1 AND import_stamp < ?2 ORDER BY book_id",
            [.text(source.rawValue), .int(stamp)]
        ) { $0.int(0) }
    }

    /// Forgets `books` for every source: calibre has deleted them.
    func forget(_ books: [Int]) throws {
        for book in books { try connection.run("DELETE FROM import_provenance WHERE book_id = ?1", [.int(book)]) }
    }
}
