import BookCatalog
import CSQLite
import Foundation

/// A Calibre library's books, read from its `metadata.db` for `bookshelf import --from
/// calibre`. The file is opened read-only and queried through its tables (never its views,
/// which call functions only Calibre defines), so the library is never written, not even its
/// modification time.
public enum CalibreLibrary {
    /// What the library held: the books to store, the books that cannot be stored (with
    /// Calibre's id for each) and what was left out of the books kept.
    public struct Result: Sendable {
        public let books: [NewBook]
        public let problems: [Problem]
        public let fieldsMapped: Int
        /// A line each kind of thing left out, with how many, in the order first met.
        public let skipped: [(reason: String, count: Int)]
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The book's id in Calibre.
        public let book: Int
        public let reason: String

        public var description: String { "Calibre book \(book): \(reason)" }
    }

    /// Calibre's pubdate for "unknown" (its UNDEFINED_DATE).
    static let unknownDatePrefix = "0101-01-01"

    /// Why a library could not be read, in words a user can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads the library at `path`: its folder, or the `metadata.db` file itself.
    public static func read(path: String) throws(Failure) -> Result {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        let file = exists && isFolder.boolValue ? (path as NSString).appendingPathComponent("metadata.db") : path
        guard FileManager.default.fileExists(atPath: file) else {
            throw Failure(description: "no Calibre library at \(path): there is no \(file)")
        }
        do {
            let connection = try open(file)
            // Calibre may be saving while the library is read: wait for it a little, as a reader.
            connection.setBusyTimeout(milliseconds: 5_000)
            try connection.execute("PRAGMA query_only = ON")
            let tables = try connection.query(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('books', 'authors', 'books_authors_link')"
            ) { $0.text(0) }
            guard tables.count == 3 else {
                throw Failure(description: "\(file) is not a Calibre library's metadata.db (it has no books table)")
            }
            return CalibreMapping.map(try CalibreRows(connection: connection).read())
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot read the Calibre library \(file): \(error)")
        }
    }

    /// Read-only, and the file taken as it is when its folder cannot hold SQLite's side files.
    private static func open(_ file: String) throws(SQLiteError) -> Connection {
        do {
            return try Connection(path: file, flags: SQLITE_OPEN_READONLY)
        } catch  where error.primary == SQLITE_CANTOPEN {
            return try Connection(
                path: ReadOnlyCatalog.immutableURI(file), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
        }
    }
}

/// One Calibre book as its tables hold it, before Bookshelf's rules.
struct CalibreRow {
    let id: Int
    var title: String
    var authors: [String] = []
    var identifiers: [(type: String, value: String)] = []
    var pubdate: String?
    var publisher: String?
    var series: String?
    var seriesIndex: Double?
    var tags: [String] = []
    var comments: String?
    var hasRating = false
    var languages = 0
}

/// The queries, one per table, joined in memory by Calibre's book id.
struct CalibreRows {
    let connection: Connection

    func read() throws -> [CalibreRow] {
        var rows: [Int: CalibreRow] = [:]
        var order: [Int] = []
        for (id, title, pubdate, index) in try connection.query(
            "SELECT id, title, pubdate, series_index FROM books ORDER BY id",
            row: { ($0.int(0), $0.text(1), $0.isNull(2) ? nil : $0.text(2), $0.isNull(3) ? nil : $0.double(3)) })
        {
            var row = CalibreRow(id: id, title: title)
            row.pubdate = pubdate
            row.seriesIndex = index
            rows[id] = row
            order.append(id)
        }
        for (book, name) in try pairs(
            "SELECT l.book, a.name FROM books_authors_link l JOIN authors a ON a.id = l.author ORDER BY l.id")
        {
            rows[book]?.authors.append(name)
        }
        for (book, type, value) in try connection.query(
            "SELECT book, type, val FROM identifiers ORDER BY id", row: { ($0.int(0), $0.text(1), $0.text(2)) })
        {
            rows[book]?.identifiers.append((type, value))
        }
        for (book, name) in try pairs(
            "SELECT l.book, p.name FROM books_publishers_link l JOIN publishers p ON p.id = l.publisher ORDER BY l.id")
        where rows[book]?.publisher == nil {
            rows[book]?.publisher = name
        }
        for (book, name) in try pairs(
            "SELECT l.book, s.name FROM books_series_link l JOIN series s ON s.id = l.series ORDER BY l.id")
        where rows[book]?.series == nil {
            rows[book]?.series = name
        }
        for (book, name) in try pairs(
            "SELECT l.book, t.name FROM books_tags_link l JOIN tags t ON t.id = l.tag ORDER BY l.id")
        {
            rows[book]?.tags.append(name)
        }
        for (book, text) in try pairs("SELECT book, text FROM comments ORDER BY id") {
            rows[book]?.comments = text
        }
        for (book, _) in try pairs(
            "SELECT l.book, '' FROM books_ratings_link l JOIN ratings r ON r.id = l.rating WHERE r.rating > 0")
        {
            rows[book]?.hasRating = true
        }
        for (book, _) in try pairs("SELECT book, '' FROM books_languages_link") {
            rows[book]?.languages += 1
        }
        return order.compactMap { rows[$0] }
    }

    private func pairs(_ sql: String) throws -> [(Int, String)] {
        try connection.query(sql) { ($0.int(0), $0.text(1)) }
    }
}

extension Statement {
    fileprivate func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
}
