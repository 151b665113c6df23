import CSQLite
import SearchEngine

/// The catalog's tables, created and upgraded by steps keyed by `PRAGMA user_version`.
enum Schema {
    /// The newest schema this program knows. A file with a higher version is refused untouched.
    static var currentVersion: Int { migrations.count }

    /// One upgrade step: SQL, or Swift where the step needs `SearchTerms` (which SQL lacks).
    enum Step: Sendable {
        case sql(String)
        case swift(@Sendable (Connection) throws -> Void)
    }

    /// The books in result order within a scope. A large import drops it and creates it again
    /// afterwards (`SQLiteCatalog.insertBooks`), with this same statement.
    static let titleIndex = "CREATE INDEX books_by_scope_title ON books(scope, title_key, id)"

    /// Step `n` (1-based) upgrades a file from version n-1 to n.
    static let migrations: [Step] = [
        .sql(
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
            \(titleIndex);
            CREATE INDEX books_by_change ON books(change_seq);
            CREATE TABLE committed_saves(
                operation TEXT PRIMARY KEY NOT NULL,
                book_id INTEGER NOT NULL REFERENCES books(id),
                revision INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """),
        // 2: the search index as built by some connection, so the next one loads it instead of
        // rebuilding it. Derived data only: deleting these rows loses nothing.
        .sql(
            """
            CREATE TABLE search_snapshots(
                scope TEXT PRIMARY KEY NOT NULL,
                format INTEGER NOT NULL,       -- SearchIndexSnapshot.format; others are ignored
                change_seq INTEGER NOT NULL,   -- the snapshot reflects the rows up to this
                book_count INTEGER NOT NULL,
                header BLOB NOT NULL           -- sizes, widths and checksums of the parts
            ) STRICT;
            CREATE TABLE search_snapshot_parts(
                id INTEGER PRIMARY KEY,
                scope TEXT NOT NULL REFERENCES search_snapshots(scope) ON DELETE CASCADE,
                part INTEGER NOT NULL,
                data BLOB NOT NULL,
                UNIQUE (scope, part)
            ) STRICT;
            """),
        // 3: symbols and emoji became search tokens: derive every row's terms again, and drop
        // the stored indexes, which were built from the old terms.
        .swift(rederiveSearchText),
        // 4: every committed revision of every book (`BookRevision`). Books already in the
        // catalog start their history at their current revision, by no account.
        .sql(
            """
            CREATE TABLE book_revisions(
                book_id INTEGER NOT NULL REFERENCES books(id),
                revision INTEGER NOT NULL,
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                account TEXT,                  -- NULL: imported, or from before history was kept
                saved_at INTEGER NOT NULL,     -- milliseconds since 1970
                operation TEXT,                -- the save's operation id; NULL when no save made it
                PRIMARY KEY (book_id, revision)
            ) STRICT, WITHOUT ROWID;
            INSERT INTO book_revisions(book_id, revision, title, author, account, saved_at, operation)
                SELECT id, revision, title, author, NULL, \(RevisionLog.nowMilliseconds), NULL FROM books;
            """),
        // 5: letters that do not decompose ("ø", "ł", "æ", "ß") fold as transliterated: derive
        // every row's title key and terms again, and drop the stored indexes.
        .swift(rederiveSearchText),
        // 6: the details of a book (`BookDetails`, encoded as `StoredDetails` says), in the books
        // and in every revision. Books and revisions already there have none.
        .sql(detailColumns(of: "books") + detailColumns(of: "book_revisions")),
        // 7: a query word matches the series, the publisher and the tags too (`BookText.otherTerms`).
        // SQLite adds a column with a constant default without rewriting a row; only the rows
        // with details are derived, and the stored indexes, built without these terms, dropped.
        // The partial index finds the books of an ISBN query and holds only books with an ISBN.
        .swift(addOtherTerms),
        // 8: batches (issue 61): a number for the saves of one bulk edit or undo, recorded on
        // each revision they made, in the scope of the account that began it, so that an
        // account sees and undoes the batches of its own scope only, as it sees its books.
        .sql(
            """
            CREATE TABLE batches(
                id INTEGER PRIMARY KEY,
                scope TEXT NOT NULL,
                account TEXT NOT NULL,
                started_at INTEGER NOT NULL,   -- milliseconds since 1970
                undoes INTEGER REFERENCES batches(id)
            ) STRICT;
            ALTER TABLE book_revisions ADD COLUMN batch INTEGER REFERENCES batches(id);
            CREATE INDEX book_revisions_by_batch ON book_revisions(batch) WHERE batch IS NOT NULL;
            """),
        // 9: where each imported book came from and the values that import brought
        // (`SQLiteReimport`), so that a second import of the same source updates it (issue 60).
        // A row per book and source; a source's id names one book of a scope.
        .sql(
            """
            CREATE TABLE import_provenance(
                book_id INTEGER NOT NULL REFERENCES books(id),
                source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 40),
                scope TEXT NOT NULL,
                source_id TEXT CHECK (source_id IS NULL OR length(CAST(source_id AS BLOB)) BETWEEN 1 AND 200),
                import_stamp INTEGER NOT NULL,  -- the import that last brought the book
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                isbn TEXT,
                year INTEGER,
                publisher TEXT NOT NULL,
                series TEXT NOT NULL,
                series_index_thousandths INTEGER,
                tags TEXT NOT NULL,
                notes TEXT NOT NULL,
                PRIMARY KEY (book_id, source)
            ) STRICT, WITHOUT ROWID;
            CREATE UNIQUE INDEX import_provenance_by_source_id
                ON import_provenance(scope, source, source_id) WHERE source_id IS NOT NULL;
            CREATE INDEX import_provenance_by_stamp ON import_provenance(scope, source, import_stamp);
            """),
        // 10: books an import deleted because they were gone from its source (`import
        // --remove-missing`, issue 60). The book's row stays as its tombstone, moved to the
        // empty scope, which no account has (an account's scope is non-empty): so no account
        // reads it, its id is never given to another book, and its revisions keep their book.
        // This table says whose it was, when and by which source's import it went, and, by its
        // change_seq, which books a search index must drop when it catches up.
        .sql(
            """
            CREATE TABLE deleted_books(
                book_id INTEGER PRIMARY KEY NOT NULL REFERENCES books(id),
                scope TEXT NOT NULL,
                revision INTEGER NOT NULL,     -- the book's last revision, the last of its history
                deleted_at INTEGER NOT NULL,   -- milliseconds since 1970
                source TEXT NOT NULL,
                change_seq INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX deleted_books_by_change ON deleted_books(change_seq);
            """),
    ]

    /// The details' columns added to `table`, with the checks SQLite can make on each write
    /// cheaply: the form of an ISBN-13 and its check digit, ranges, sizes in bytes (four for
    /// each character allowed, as `BookValidation` bounds text) and C0 and C1 control
    /// characters. A year's upper bound moves with the calendar, which a CHECK may not read,
    /// and the other rules (lengths in characters, the folded set of tags, the rest of the
    /// characters refused) are the program's.
    ///
    /// The checks are one constraint, `details_rules`, on the last column added: SQLite reads
    /// every existing row once for each column added with a CHECK (14 passes over ten million
    /// books and their revisions would take minutes), and a column's CHECK may name the others.
    private static func detailColumns(of table: String) -> String {
        let isbnSum = (1...12).map { "substr(isbn, \($0), 1)" + ($0.isMultiple(of: 2) ? " * 3" : "") }
            .joined(separator: " + ")
        return """
            ALTER TABLE \(table) ADD COLUMN isbn TEXT;
            ALTER TABLE \(table) ADD COLUMN year INTEGER;
            ALTER TABLE \(table) ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
            ALTER TABLE \(table) ADD COLUMN series TEXT NOT NULL DEFAULT '';
            ALTER TABLE \(table) ADD COLUMN series_index_thousandths INTEGER;
            ALTER TABLE \(table) ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
            ALTER TABLE \(table) ADD COLUMN notes TEXT NOT NULL DEFAULT '' CONSTRAINT details_rules CHECK (
                (isbn IS NULL OR (
                    length(isbn) = 13 AND isbn NOT GLOB '*[^0-9]*' AND substr(isbn, 1, 3) IN ('978', '979')
                    AND (10 - (\(isbnSum)) % 10) % 10 = CAST(substr(isbn, 13, 1) AS INTEGER)))
                AND (year IS NULL OR year BETWEEN -3000 AND 9999)
                AND length(CAST(publisher AS BLOB)) <= 800 AND \(controlFree("publisher"))
                AND length(CAST(series AS BLOB)) <= 800 AND \(controlFree("series"))
                AND (series_index_thousandths IS NULL OR series_index_thousandths BETWEEN 0 AND 99999999)
                AND json_valid(tags) AND json_type(tags) = 'array' AND json_array_length(tags) <= 50
                AND length(CAST(notes AS BLOB)) <= 80000 AND \(controlFree("notes", keepingLineBreaks: true)));

            """
    }

    /// True when `column` holds no C0 or C1 control character, nor DEL (but "\n" with
    /// `keepingLineBreaks`).
    private static func controlFree(_ column: String, keepingLineBreaks: Bool = false) -> String {
        let c0 =
            keepingLineBreaks
            ? "char(1) || '-' || char(9) || char(11) || '-' || char(31)" : "char(1) || '-' || char(31)"
        return "\(column) NOT GLOB '*[' || \(c0) || char(127) || '-' || char(159) || ']*'"
    }

    private static func rederiveSearchText(_ connection: Connection) throws {
        let rows = try connection.query("SELECT id, title, author, title_key, title_terms, author_terms FROM books") {
            row in
            (
                id: row.int(0), title: row.text(1), author: row.text(2), titleKey: row.text(3), titleTerms: row.text(4),
                authorTerms: row.text(5)
            )
        }
        for row in rows {
            let text = BookText(title: row.title, author: row.author)
            guard
                text.titleKey != row.titleKey || text.titleTerms != row.titleTerms
                    || text.authorTerms != row.authorTerms
            else {
                continue
            }
            try connection.run(
                "UPDATE books SET title_key = ?2, title_terms = ?3, author_terms = ?4 WHERE id = ?1",
                [.int(row.id), .text(text.titleKey), .text(text.titleTerms), .text(text.authorTerms)])
        }
        try connection.execute("DELETE FROM search_snapshot_parts; DELETE FROM search_snapshots;")
    }

    private static func addOtherTerms(_ connection: Connection) throws {
        try connection.execute(
            """
            ALTER TABLE books ADD COLUMN other_terms TEXT NOT NULL DEFAULT '';
            CREATE INDEX books_by_isbn ON books(scope, isbn) WHERE isbn IS NOT NULL;
            """)
        let rows = try connection.query(
            "SELECT id, \(StoredDetails.columns) FROM books WHERE publisher <> '' OR series <> '' OR tags <> '[]'"
        ) { row in (id: row.int(0), details: StoredDetails.read(row, from: 1)) }
        for row in rows {
            try connection.run(
                "UPDATE books SET other_terms = ?2 WHERE id = ?1",
                [.int(row.id), .text(BookText.otherTerms(row.details))])
        }
        try connection.execute("DELETE FROM search_snapshot_parts; DELETE FROM search_snapshots;")
    }

    /// Brings the file up to `currentVersion` in one write transaction. Re-reads the version
    /// under the lock, because another process may have migrated meanwhile. `found` is the
    /// version the caller read on this connection just before: a current file (every open but
    /// the first after an upgrade) then costs no statement here.
    static func migrate(_ connection: Connection, found: Int? = nil) throws {
        // A current file needs no write lock: opening must not wait for another writer.
        guard try found ?? version(of: connection) < currentVersion else { return }
        try connection.transaction(immediate: true) {
            let found = try version(of: connection)
            guard found < currentVersion else { return }
            // Another process set a version no Bookshelf writes while this one waited for the lock.
            guard found >= 0 else {
                throw SQLiteCatalogError.failed("the catalog's schema version \(found) is not one Bookshelf writes")
            }
            for step in found..<currentVersion {
                switch migrations[step] {
                case .sql(let sql): try connection.execute(sql)
                case .swift(let body): try body(connection)
                }
            }
            try connection.execute("PRAGMA user_version = \(currentVersion)")
        }
    }

    static func version(of connection: Connection) throws -> Int {
        try connection.queryFirst("PRAGMA user_version") { $0.int(0) } ?? 0
    }
}
