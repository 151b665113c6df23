import CSQLite
import Foundation

/// The naive SQL way to answer a search, straight through the SQLite C API: an FTS5 index over
/// the catalog's folded text columns, `count(*)` of the matches, and the page ordered by folded
/// title. It skips the rank tiers (so it does less than the store must) and serves as the
/// "what SQLite itself costs" reference.
final class RawSQLiteSearch {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw BenchError("cannot open \(path) with the raw C API")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        statements.values.forEach { sqlite3_finalize($0) }
        sqlite3_close(handle)
    }

    /// Creates the benchmark's FTS5 table over the catalog's derived columns, once per file.
    /// The `ascii` tokenizer splits only at ASCII separators, so each stored token (already
    /// folded and space-separated) is exactly one FTS token.
    func prepareIndex() throws -> Bool {
        let exists = try scalar("SELECT count(*) FROM sqlite_master WHERE name = 'bench_fts'", []) > 0
        if exists { return false }
        try execute(
            """
            CREATE VIRTUAL TABLE bench_fts USING fts5(title_terms, author_terms, content='books', content_rowid='id',
                                                      tokenize='ascii', prefix='1 2');
            INSERT INTO bench_fts(bench_fts) VALUES ('rebuild');
            """)
        return true
    }

    /// Whether the catalog's books have records (a bench catalog from before books had them has none).
    func hasBookRecords() throws -> Bool {
        try scalar("SELECT EXISTS (SELECT 1 FROM books WHERE publisher <> '')", []) > 0
    }

    /// The number of matches and the ids of one page. `match` is nil for the empty query.
    func search(match: String?, scope: String, limit: Int, offset: Int) throws -> (total: Int, ids: [Int]) {
        if let match {
            let total = try scalar("SELECT count(*) FROM bench_fts WHERE bench_fts MATCH ?1", [match])
            let ids = try column(
                """
                SELECT b.id FROM bench_fts CROSS JOIN books b ON b.id = bench_fts.rowid
                WHERE bench_fts MATCH ?1 AND b.scope = ?2 ORDER BY b.title_key, b.id LIMIT ?3 OFFSET ?4
                """, [match, scope, limit, offset])
            return (total, ids)
        }
        let total = try scalar("SELECT count(*) FROM books WHERE scope = ?1", [scope])
        let ids = try column(
            "SELECT id FROM books WHERE scope = ?1 ORDER BY title_key, id LIMIT ?2 OFFSET ?3",
            [scope, limit, offset])
        return (total, ids)
    }

    /// The FTS5 expression for folded query words: each word a quoted phrase whose last token
    /// is a prefix, all words required. Quotes inside are doubled; the string is bound.
    static func match(words: [[String]]) -> String? {
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
            .joined(separator: " AND ")
    }

    /// Every title, one per line, for peers that read text (fzf).
    func writeTitles(to url: URL) throws {
        var text = ""
        try rows("SELECT title FROM books ORDER BY id", []) { statement in
            text += String(cString: sqlite3_column_text(statement, 0)) + "\n"
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Gives every `step`-th book a new revision in one commit, as another program's bulk edit
    /// would (titles unchanged, so searches still find the same books); answers how many.
    func touchBooks(every step: Int) throws -> Int {
        try execute(
            """
            UPDATE books SET revision = revision + 1, change_seq = (SELECT max(change_seq) FROM books) + 1
            WHERE id % \(max(1, step)) = 0
            """)
        return Int(sqlite3_changes(handle))
    }

    private func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error() }
        statements[sql] = statement
        return statement
    }

    private func rows(_ sql: String, _ values: [Any], _ row: (OpaquePointer) -> Void) throws {
        let statement = try statement(sql)
        defer { sqlite3_reset(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            if let number = value as? Int {
                sqlite3_bind_int64(statement, index, sqlite3_int64(number))
            } else if let text = value as? String {
                sqlite3_bind_text(statement, index, text, Int32(text.utf8.count), shim_sqlite_transient())
            }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: row(statement)
            case SQLITE_DONE: return
            default: throw error()
            }
        }
    }

    private func scalar(_ sql: String, _ values: [Any]) throws -> Int {
        var result = 0
        try rows(sql, values) { result = Int(sqlite3_column_int64($0, 0)) }
        return result
    }

    private func column(_ sql: String, _ values: [Any]) throws -> [Int] {
        var result: [Int] = []
        try rows(sql, values) { result.append(Int(sqlite3_column_int64($0, 0))) }
        return result
    }

    private func error() -> BenchError { BenchError("SQLite: " + String(cString: sqlite3_errmsg(handle))) }
}
