import CSQLite
import SearchEngine

/// The search engine's source (`SearchSource`) over an SQLite catalog's `books` table: one
/// scope's books, read on one connection, with the derived columns the store keeps for search
/// (`title_key`, `title_terms`, `author_terms`, `other_terms`: `BookText`'s forms) and `change_seq`
/// as the change marker. The stored index's record is the scope's row of `search_snapshots`, and
/// its file lies beside the catalog. Query text only ever reaches SQL as bound values.
final class SQLiteSearchSource: SearchSource {
    let connection: Connection
    let scope: String
    let catalogPath: String

    init(connection: Connection, scope: String, catalogPath: String) {
        self.connection = connection
        self.scope = scope
        self.catalogPath = catalogPath
    }

    /// The columns every read of books gives, in `SourceBook`'s order.
    private static let bookColumns = "id, title_key, title_terms, author_terms, other_terms"

    private static func book(_ row: Statement) -> SourceBook {
        SourceBook(
            id: row.int(0), titleKey: row.bytes(1), titleTerms: row.bytes(2), authorTerms: row.bytes(3),
            otherTerms: row.bytes(4))
    }

    /// Steps `statement`, bound to `values`, handing each row to `visit` while it says go on.
    private func each(_ sql: String, _ values: [SQLValue], _ visit: (Statement) throws -> Bool) throws {
        let statement = try connection.statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {
            guard try visit(statement) else { return }
        }
    }

    func inOneRead<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction(immediate: false, body)
    }

    /// The title order is the (scope, title_key, id) index's.
    let titleOrderReadsEveryBook = false

    /// One read: in WAL mode a reader holds no writer off.
    func readingEveryBook<T>(_ body: () throws -> T) throws -> T {
        try inOneRead(body)
    }

    func latestChange() throws -> Int {
        try Self.latestChange(connection)
    }

    static func latestChange(_ connection: Connection) throws -> Int {
        try connection.queryFirst("SELECT coalesce(max(change_seq), 0) FROM books") { $0.int(0) } ?? 0
    }

    func census() throws -> BookCensus {
        try connection.queryFirst(
            "SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM books WHERE scope = ?1",
            [.text(scope)], row: { BookCensus(count: $0.int(0), smallestID: $0.int(1), largestID: $0.int(2)) })
            ?? BookCensus(count: 0, smallestID: 0, largestID: 0)
    }

    /// `NOT INDEXED`: the table in file order (sequential), not the scope index's title order (a
    /// random page read per row). `holding`: `instr` over the three terms columns, a superset.
    func everyBook(after: Int?, holding: [[UInt8]], _ visit: (SourceBook) throws -> Void) throws {
        var values: [SQLValue] = [.text(scope)]
        var sql = "SELECT \(Self.bookColumns) FROM books NOT INDEXED WHERE scope = ?1"
        if let after {
            values.append(.int(after))
            sql += " AND id > ?2"
        }
        for token in holding {
            values.append(.text(String(decoding: token, as: UTF8.self)))
            let n = values.count
            sql += " AND (instr(title_terms, ?\(n)) OR instr(author_terms, ?\(n)) OR instr(other_terms, ?\(n)))"
        }
        if after != nil { sql += " ORDER BY id" }
        try each(sql, values) { row in
            try visit(Self.book(row))
            return true
        }
    }

    func idsInTitleOrder(offset: Int, limit: Int?, _ visit: (Int) throws -> Void) throws {
        try each(
            "SELECT id FROM books WHERE scope = ?1 ORDER BY title_key, id LIMIT ?2 OFFSET ?3",
            [.text(scope), .int(limit ?? -1), .int(offset)]
        ) { row in
            try visit(row.int(0))
            return true
        }
    }

    func booksInTitleOrder(from: [UInt8], upTo: [UInt8], _ visit: (SourceBook) throws -> Bool) throws {
        try each(
            "SELECT \(Self.bookColumns) FROM books WHERE scope = ?1 AND title_key >= ?2 AND title_key < ?3 "
                + "ORDER BY title_key, id",
            [.text(scope), .text(String(decoding: from, as: UTF8.self)), .text(String(decoding: upTo, as: UTF8.self))]
        ) { try visit(Self.book($0)) }
    }

    /// `+scope` keeps SQLite from using the scope index, which would read the whole scope; the
    /// change_seq index reads only the changed rows.
    func changes(since marker: Int, limit: Int, _ visit: (SourceBook) throws -> Void) throws {
        try each(
            "SELECT \(Self.bookColumns) FROM books WHERE change_seq > ?1 AND +scope = ?2 LIMIT ?3",
            [.int(marker), .text(scope), .int(limit)]
        ) { row in
            try visit(Self.book(row))
            return true
        }
    }

    /// The books an import deleted from this scope (`import --remove-missing`, schema step 10):
    /// their rows left the scope with this change_seq, so `changes` no longer reads them.
    func removals(since marker: Int, limit: Int, _ visit: (Int) throws -> Void) throws {
        try each(
            "SELECT book_id FROM deleted_books WHERE change_seq > ?1 AND scope = ?2 LIMIT ?3",
            [.int(marker), .text(scope), .int(limit)]
        ) { row in
            try visit(row.int(0))
            return true
        }
    }

    func changeCount(since marker: Int, upTo limit: Int) throws -> Int {
        try connection.queryFirst(
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM books WHERE change_seq > ?1 AND +scope = ?2 LIMIT ?3))
                + (SELECT count(*) FROM (SELECT 1 FROM deleted_books WHERE change_seq > ?1 AND scope = ?2 LIMIT ?3))
            """,
            [.int(marker), .text(scope), .int(limit)]
        ) { min(limit, $0.int(0)) } ?? 0
    }

    /// Every scope's changes: the change_seq index answers alone, without reading a row.
    func changeCountAtLeast(since marker: Int, upTo limit: Int) throws -> Int {
        try connection.queryFirst(
            "SELECT count(*) FROM (SELECT 1 FROM books WHERE change_seq > ?1 LIMIT ?2)", [.int(marker), .int(limit)]
        ) { $0.int(0) } ?? 0
    }

    func bookCount(upTo limit: Int) throws -> Int {
        try connection.queryFirst(
            "SELECT count(*) FROM (SELECT 1 FROM books WHERE scope = ?1 LIMIT ?2)", [.text(scope), .int(limit)]
        ) { $0.int(0) } ?? 0
    }

    /// The books of scope ?1 with ISBN ?2, in no order: read through `books_by_isbn`. With an
    /// ORDER BY, SQLite walks `books_by_scope_title` to spare itself the sort, reading every book
    /// of the scope to find the one or two with this ISBN (`ISBNFirst` orders them).
    static let booksOfTheISBN = "SELECT \(bookColumns) FROM books WHERE scope = ?1 AND isbn = ?2"

    func books(withISBN isbn: String, _ visit: (SourceBook) throws -> Void) throws {
        try each(Self.booksOfTheISBN, [.text(scope), .text(isbn)]) { row in
            try visit(Self.book(row))
            return true
        }
    }

    func titleKey(of id: Int) throws -> [UInt8]? {
        try connection.queryFirst(
            "SELECT title_key FROM books WHERE id = ?1 AND scope = ?2", [.int(id), .text(scope)]
        ) { Array($0.bytes(0)) }
    }

    func cancellable<T>(_ body: () throws -> T) throws -> T {
        try connection.cancellable(body)
    }

    func pausing<T>(_ pause: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
        try connection.pausing(pause, body)
    }

    // MARK: The stored index

    var indexFilePath: String { SearchIndexSnapshot.path(catalogPath: catalogPath, scope: scope) }

    var indexFileTakesModeOf: String? { catalogPath }

    var scratchFolder: String? { folder(holding: catalogPath) }

    var canStoreIndex: Bool { !connection.isReadOnly }

    func storedIndexRecord(format: Int) throws -> StoredIndexRecord? {
        try connection.queryFirst(
            "SELECT change_seq, book_count, CAST(header AS TEXT) FROM search_snapshots WHERE scope = ?1 AND format = ?2",
            [.text(scope), .int(format)],
            row: { StoredIndexRecord(format: format, sequence: $0.int(0), count: $0.int(1), recorded: $0.text(2)) })
    }

    func recordStoredIndex(_ record: StoredIndexRecord, install: () throws -> Void) throws -> Bool {
        connection.setBusyTimeout(milliseconds: SQLiteTuning.snapshotStoreBusyMilliseconds)
        return try connection.transaction(immediate: true) {
            let stored = try connection.queryFirst(
                "SELECT change_seq FROM search_snapshots WHERE scope = ?1 AND format = ?2",
                [.text(scope), .int(record.format)]
            ) { $0.int(0) }
            if let stored, stored > record.sequence { return false }
            // In the write lock, so the row and the file change together.
            try install()
            // Format 1 kept the index's parts in the catalog: gone with the first file of a later one.
            try connection.run("DELETE FROM search_snapshot_parts WHERE scope = ?1", [.text(scope)])
            try connection.run(
                """
                INSERT INTO search_snapshots(scope, format, change_seq, book_count, header) VALUES (?1, ?2, ?3, ?4, CAST(?5 AS BLOB))
                ON CONFLICT(scope) DO UPDATE SET format = excluded.format, change_seq = excluded.change_seq,
                    book_count = excluded.book_count, header = excluded.header
                """,
                [.text(scope), .int(record.format), .int(record.sequence), .int(record.count), .text(record.recorded)])
            return true
        }
    }
}

/// Opens the catalog at `path` again for the engine's background work, as one scope's source.
struct SQLiteSearchSourceOpener: SearchSourceOpener {
    let path: String
    let busyTimeout: Duration
    let scope: String

    func openSource() throws -> any SearchSource {
        SQLiteSearchSource(
            connection: try CatalogConnection.open(path: path, create: false, busyTimeout: busyTimeout), scope: scope,
            catalogPath: path)
    }
}
