import CSQLite

/// The catalog's tables, created and upgraded by steps keyed by `PRAGMA user_version`.
enum Schema {
    /// The newest schema this program knows. A file with a higher version is refused untouched.
    static var currentVersion: Int { migrations.count }

    /// Step `n` (1-based) upgrades a file from version n-1 to n.
    static let migrations: [String] = [
        """
        CREATE TABLE accounts(
            name TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('reader', 'editor')),
            scope TEXT NOT NULL
        ) STRICT;
        CREATE TABLE books(
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL,
            title TEXT NOT NULL CHECK (length(title) > 0),
            author TEXT NOT NULL DEFAULT '',
            revision INTEGER NOT NULL CHECK (revision > 0),
            -- Search support, derived from title and author by BookText on every write:
            title_key TEXT NOT NULL,      -- folded title, NFC: byte order is result order
            title_terms TEXT NOT NULL,    -- folded title tokens joined by spaces
            author_terms TEXT NOT NULL,   -- folded author tokens joined by spaces
            -- Moves up with every commit that touches the row, so a search index held in
            -- memory can catch up with other connections' writes incrementally.
            change_seq INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX books_by_scope_title ON books(scope, title_key, id);
        CREATE INDEX books_by_change ON books(change_seq);
        CREATE TABLE committed_saves(
            operation TEXT PRIMARY KEY NOT NULL,
            book_id INTEGER NOT NULL REFERENCES books(id),
            revision INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        """,
    ]

    /// Brings the file up to `currentVersion` in one write transaction. Re-reads the version
    /// under the lock, because another process may have migrated meanwhile.
    static func migrate(_ connection: Connection) throws {
        try connection.transaction(immediate: true) {
            let found = try version(of: connection)
            guard found < currentVersion else { return }
            for step in found..<currentVersion {
                try connection.execute(migrations[step])
            }
            try connection.execute("PRAGMA user_version = \(currentVersion)")
        }
    }

    static func version(of connection: Connection) throws -> Int {
        try connection.queryFirst("PRAGMA user_version") { $0.int(0) } ?? 0
    }
}
