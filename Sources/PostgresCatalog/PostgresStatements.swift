import BookCatalog

/// The SQL the remote sends. Every value is a bound parameter ($n); the text here is
/// constant except for the number of query words, which only repeats constant fragments.
enum PostgresStatements {
    /// A session's settings: $1 the statement timeout in milliseconds, and no JIT. The catalog's
    /// statements are short; when one's estimated cost passed `jit_above_cost` (an undo's read
    /// of a batch of 15,000 revisions) the server compiled it first, some 200 to 500 ms, longer
    /// than it then ran (`log_min_duration_statement = 0` beside `bookshelf-bench bulk --postgres`).
    static let sessionSettings =
        "SELECT set_config('statement_timeout', $1, false), set_config('jit', 'off', false)"

    /// The login role's account, or a row of NULLs (with the role name) when it has none.
    static let account = """
        SELECT u.role_name, a.role, a.scope, 'bookshelf_changed'
        FROM (SELECT current_user::text AS role_name) AS u
        LEFT JOIN bookshelf.accounts AS a ON a.name = u.role_name
        """

    /// Who may sign in to Bookshelf: the accounts this role may read (its own, under
    /// row-level security) and every login role in this catalog's groups (`bookshelf.groups`:
    /// an account of another catalog on the server is not in them).
    static let accountNames = """
        SELECT name FROM bookshelf.accounts
        UNION
        SELECT r.rolname::text FROM pg_catalog.pg_roles AS r
        JOIN pg_catalog.pg_auth_members AS m ON m.member = r.oid
        JOIN pg_catalog.pg_roles AS g ON g.oid = m.roleid
        WHERE g.rolname IN (SELECT name FROM bookshelf.groups)
            AND r.rolcanlogin AND NOT r.rolsuper AND NOT r.rolbypassrls
        ORDER BY 1
        """

    /// Each login role's role in this catalog, as its group says: any role may read group
    /// memberships, while `bookshelf.accounts` shows an account its own row only. A role in
    /// both groups acts as an editor; the first row of each name says so.
    static let accountRoles = """
        SELECT r.rolname::text, bg.role FROM pg_catalog.pg_roles AS r
        JOIN pg_catalog.pg_auth_members AS m ON m.member = r.oid
        JOIN pg_catalog.pg_roles AS g ON g.oid = m.roleid
        JOIN bookshelf.groups AS bg ON bg.name = g.rolname
        WHERE r.rolcanlogin
        ORDER BY 1, 2
        """

    /// The columns of a `BookRecord`, in the order `PostgresRemote.record` reads them: id,
    /// title, revision, author, then the details (`PostgresDetailsColumns`). `alias` qualifies
    /// each ("r." or ""); `id` names the book's id column.
    static func recordColumns(_ alias: String = "", id: String = "id") -> String {
        "\(alias)\(id), \(alias)title, \(alias)revision, \(alias)author, "
            + PostgresDetailsColumns.selected(from: alias)
    }

    /// How many columns `recordColumns` lists.
    static let recordWidth = 4 + PostgresDetailsColumns.count

    static let load = "SELECT \(recordColumns()) FROM bookshelf.books WHERE id = $1"

    /// The books of the ids in $1 (a bigint[]), in no order; row-level security leaves out
    /// those this account does not see.
    static let loadMany = "SELECT \(recordColumns()) FROM bookshelf.books WHERE id = ANY($1::bigint[])"

    static let currentRevision = "SELECT revision FROM bookshelf.books WHERE id = $1"

    /// Compare-and-set and the operation record in one statement, hence one transaction:
    /// either both happen or neither. $1 id, $2 expected revision, $3 title, $4 author or
    /// NULL to keep it, $5 operation, $6 whether the details are written (false keeps them
    /// all), $7-$13 the details (`PostgresDetailsColumns.parameters`; NULL for none), $14 the
    /// batch it belongs to or NULL (`saves_into_own_batch` refuses another account's). The
    /// database derives the search columns (books_derive). The record comes back with the
    /// transaction that wrote it.
    static let save = """
        WITH saved AS (
            UPDATE bookshelf.books
            SET title = $3, author = coalesce($4, author), revision = revision + 1,
                isbn = CASE WHEN $6::boolean THEN $7 ELSE isbn END,
                year = CASE WHEN $6 THEN $8::integer ELSE year END,
                publisher = CASE WHEN $6 THEN $9 ELSE publisher END,
                series = CASE WHEN $6 THEN $10 ELSE series END,
                series_index = CASE WHEN $6 THEN $11::numeric ELSE series_index END,
                tags = CASE WHEN $6 THEN ARRAY(SELECT json_array_elements_text($12::json)) ELSE tags END,
                notes = CASE WHEN $6 THEN $13 ELSE notes END
            WHERE id = $1 AND revision = $2
            RETURNING \(recordColumns())),
        recorded AS (
            INSERT INTO bookshelf.saves (operation, book_id, revision, batch)
            SELECT $5::uuid, id, revision, $14::bigint FROM saved)
        SELECT saved.*, pg_current_xact_id()::text FROM saved
        """

    /// `save` for many books in one statement: $1 a JSON array holding, for each book, the
    /// array of `save`'s fourteen values in its order (strings, or null for NULL). Each book
    /// keeps its own compare-and-set (a book whose revision moved gets no row back) and its own
    /// operation record. The rows come back in no order, each record followed by the
    /// transaction that wrote it. The ids must differ: the join updates a book once.
    ///
    /// One statement, not one a book, because each statement costs the server about as much
    /// again as the book it saves: its start and end over the table's twelve indexes and
    /// triggers (`docs/performance-log.md`, 2026-12-07 night; bench: `bulk --postgres`).
    static let saveChunk = """
        WITH wanted AS (
            SELECT (v->>0)::bigint AS id, (v->>1)::bigint AS expected, v->>2 AS title, v->>3 AS author,
                (v->>4)::uuid AS operation, (v->>5)::boolean AS whole, v->>6 AS isbn, (v->>7)::integer AS year,
                v->>8 AS publisher, v->>9 AS series, (v->>10)::numeric AS series_index, v->>11 AS tags,
                v->>12 AS notes, (v->>13)::bigint AS batch
            FROM json_array_elements($1::json) AS v),
        saved AS (
            UPDATE bookshelf.books AS b
            SET title = w.title, author = coalesce(w.author, b.author), revision = b.revision + 1,
                isbn = CASE WHEN w.whole THEN w.isbn ELSE b.isbn END,
                year = CASE WHEN w.whole THEN w.year ELSE b.year END,
                publisher = CASE WHEN w.whole THEN w.publisher ELSE b.publisher END,
                series = CASE WHEN w.whole THEN w.series ELSE b.series END,
                series_index = CASE WHEN w.whole THEN w.series_index ELSE b.series_index END,
                tags = CASE WHEN w.whole THEN ARRAY(SELECT json_array_elements_text(w.tags::json)) ELSE b.tags END,
                notes = CASE WHEN w.whole THEN w.notes ELSE b.notes END
            FROM wanted AS w
            WHERE b.id = w.id AND b.revision = w.expected
            RETURNING \(recordColumns("b.")), pg_current_xact_id()::text AS transaction, w.operation, w.batch),
        recorded AS (
            INSERT INTO bookshelf.saves (operation, book_id, revision, batch)
            SELECT operation, id, revision, batch FROM saved)
        SELECT * FROM saved
        """

    /// A new batch of the signed-in account, in its scope; $1 the batch it undoes, or NULL.
    /// Row-level security lets only an editor insert it (`batches_begun_by_self`).
    static let beginBatch = """
        INSERT INTO bookshelf.batches (scope, undoes)
        SELECT a.scope, $1::bigint FROM bookshelf.accounts AS a WHERE a.name = current_user
        RETURNING id
        """

    /// The batch $1, if this account may see it (its scope).
    static let batchVisible = "SELECT 1 FROM bookshelf.batches WHERE id = $1::bigint"

    /// The revisions batch $1 made, each with the revision before it (NULLs where the history
    /// has none), of the books this account sees (row-level security on the revisions).
    static let batchRevisions = """
        SELECT \(recordColumns("r.", id: "book_id")), \(recordColumns("p.", id: "book_id"))
        FROM bookshelf.saves AS s
        JOIN bookshelf.book_revisions AS r ON r.book_id = s.book_id AND r.revision = s.revision
        LEFT JOIN bookshelf.book_revisions AS p ON p.book_id = s.book_id AND p.revision = s.revision - 1
        WHERE s.batch = $1::bigint
        ORDER BY s.book_id, s.revision
        """

    /// The snapshot that later change checks compare against.
    static let snapshot = "SELECT pg_current_snapshot()::text"

    /// Books this role may read that changed since snapshot $1 (rows written by transactions
    /// that snapshot did not see), with the transaction that wrote each, the snapshot this
    /// answer reflects, and the account's role and scope as they are now (an administrator may
    /// have changed them; NULLs when the account is gone). Row-level security decides which
    /// books count.
    static let changesSince = """
        SELECT pg_current_snapshot()::text, b.id, b.changed_in::text, a.role, a.scope
        FROM (SELECT 1) AS one
        LEFT JOIN bookshelf.accounts AS a ON a.name = current_user
        LEFT JOIN bookshelf.books AS b
            ON b.changed_in >= pg_snapshot_xmin($1::pg_snapshot)
            AND NOT pg_visible_in_snapshot(b.changed_in, $1::pg_snapshot)
        """

    /// A book's revisions, newest first, with the account, time, operation id and batch of the
    /// save that made each (none for imported ones) after the record's columns. Row-level security
    /// shows only the account's own scope.
    static let history = """
        SELECT \(recordColumns("r.", id: "book_id")), r.account,
               (extract(epoch FROM r.saved_at) * 1000)::bigint, s.operation::text, s.batch::text
        FROM bookshelf.book_revisions AS r
        LEFT JOIN bookshelf.saves AS s ON s.book_id = r.book_id AND s.revision = r.revision
        WHERE r.book_id = $1
        ORDER BY r.revision DESC
        """

    /// The deletion of book $1 by an import (migration 019), if this account's scope had it.
    static let deletion = """
        SELECT revision::text, (extract(epoch FROM deleted_at) * 1000)::bigint::text, source
        FROM bookshelf.deleted_books WHERE book_id = $1::bigint
        """

    static let committedRevision = "SELECT revision FROM bookshelf.saves WHERE operation = $1::uuid"

    /// One page (plus one row, to tell whether more follow) and the number of matches, from
    /// one snapshot, through bookshelf.search_page (docs/design/postgres-search.md says how
    /// it stays fast). Every row carries the number, whether it is the planner's estimate, and
    /// the row's place (rank, title sort key) before the record's columns; an empty page is
    /// one row of NULL book columns; no row at all means the signed-in role
    /// has no account, hence no books.
    /// $1 first word anchored at the start of the title, $2 rows wanted, $3-$5 the cursor
    /// (rank, title sort key, id) or NULLs, $6 the counting limit, $7 the words as a
    /// tsquery of token prefixes, $8 the first query token as a LIKE prefix of the title sort
    /// key, $9 the canonical ISBN-13 the query is, or NULL, then one LIKE pattern per word.
    static func search(wordCount: Int) -> String {
        let patterns = (0..<wordCount).map { "$\($0 + firstPattern)" }.joined(separator: ", ")
        return """
            SELECT total, total_is_estimate, rank, title_sort, \(recordColumns())
            FROM bookshelf.search_page(ARRAY[\(patterns)]::text[], $1, $2, $3, $4, $5, $6, $7::tsquery, $8, $9)
            """
    }

    /// The parameter number of the first word's LIKE pattern in `search(wordCount:)`.
    static let firstPattern = 10

    /// The statement and values for `query`. Without a cursor the rows before `offset` are
    /// fetched and dropped by the caller (`rowsToSkip`): only a jump straight to a deep page
    /// pays that; paging on from a page passes its cursor.
    static func searchParameters(_ query: SearchQuery) -> (sql: String, parameters: [String?], rowsToSkip: Int) {
        let terms = SearchTerms(query.text)
        let pattern = SearchPattern(terms)
        let cursor = query.after.flatMap(PostgresSearchCursor.init)
        let skip = cursor == nil ? query.offset : 0
        var parameters: [String?] = [
            pattern.firstWordAtStart, String(skip + query.limit + 1),
            cursor.map { String($0.rank) }, cursor?.titleSort, cursor.map { String($0.id) },
            String(SearchPage.exactCountLimit), WordPrefixQuery(terms).text,
            terms.words.first?.first.map { SearchPattern.escaped($0) + "%" }, terms.isbn,
        ]
        parameters += pattern.words
        return (search(wordCount: pattern.words.count), parameters, skip)
    }
}

/// Where a page ended in bookshelf.search_page's order: rank, folded title, id.
struct PostgresSearchCursor: Equatable {
    static let store = "postgres"
    let rank: Int
    let titleSort: String
    let id: Int

    init(rank: Int, titleSort: String, id: Int) {
        self.rank = rank
        self.titleSort = titleSort
        self.id = id
    }

    /// Nil for another store's cursor or a malformed key (the caller then uses the offset).
    init?(_ cursor: SearchCursor) {
        guard cursor.store == Self.store else { return nil }
        let parts = cursor.key.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let rank = Int(parts[0]), let id = Int(parts[1]) else { return nil }
        self.init(rank: rank, titleSort: String(parts[2]), id: id)
    }

    var cursor: SearchCursor { SearchCursor(store: Self.store, key: "\(rank) \(id) \(titleSort)") }
}
