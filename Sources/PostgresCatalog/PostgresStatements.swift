import BookCatalog

/// The SQL the remote sends. Every value is a bound parameter ($n); the text here is
/// constant except for the number of query words, which only repeats constant fragments.
enum PostgresStatements {
    static let sessionTimeout = "SELECT set_config('statement_timeout', $1, false)"

    /// The login role's account, or a row of NULLs (with the role name) when it has none.
    static let account = """
        SELECT u.role_name, a.role, a.scope, 'bookshelf_' || md5(a.scope)
        FROM (SELECT current_user::text AS role_name) AS u
        LEFT JOIN bookshelf.accounts AS a ON a.name = u.role_name
        """

    /// Who may sign in to Bookshelf: the accounts this role may read (its own, under
    /// row-level security) and every login role in a Bookshelf group (roles belong to the
    /// whole server, so a role made an account in another database shows up too).
    static let accountNames = """
        SELECT name FROM bookshelf.accounts
        UNION
        SELECT r.rolname::text FROM pg_catalog.pg_roles AS r
        JOIN pg_catalog.pg_auth_members AS m ON m.member = r.oid
        JOIN pg_catalog.pg_roles AS g ON g.oid = m.roleid
        WHERE g.rolname IN ('bookshelf_reader', 'bookshelf_editor')
            AND r.rolcanlogin AND NOT r.rolsuper AND NOT r.rolbypassrls
        ORDER BY 1
        """

    static let load = "SELECT id, title, revision, author FROM bookshelf.books WHERE id = $1"

    static let currentRevision = "SELECT revision FROM bookshelf.books WHERE id = $1"

    /// Compare-and-set and the operation record in one statement, hence one transaction:
    /// either both happen or neither. $1 id, $2 expected revision, $3 title, $4 author or
    /// NULL to keep it, $5 title sort key, $6 title words, $7 author words or NULL, $8 operation.
    static let save = """
        WITH saved AS (
            UPDATE bookshelf.books
            SET title = $3, author = coalesce($4, author), revision = revision + 1,
                title_sort = $5, title_words = $6, author_words = coalesce($7, author_words)
            WHERE id = $1 AND revision = $2
            RETURNING id, title, revision, author),
        recorded AS (
            INSERT INTO bookshelf.saves (operation, book_id, revision)
            SELECT $8::uuid, id, revision FROM saved)
        SELECT id, title, revision, author FROM saved
        """

    static let committedRevision = "SELECT revision FROM bookshelf.saves WHERE operation = $1::uuid"

    /// One page and the exact number of matches, from one snapshot. The first row carries
    /// the total (and NULL book columns when the page is empty); no row at all means the
    /// signed-in role has no account, hence no books.
    /// $1 limit, $2 offset, then one LIKE pattern per query word, then the first word
    /// anchored at the start of the title.
    static func search(wordCount: Int) -> String {
        guard wordCount > 0 else {
            return """
                SELECT t.total, p.id, p.title, p.revision, p.author
                FROM (SELECT count(*) AS total FROM bookshelf.books) AS t
                LEFT JOIN LATERAL (
                    SELECT id, title, revision, author, title_sort FROM bookshelf.books
                    ORDER BY title_sort, id LIMIT $1 OFFSET $2) AS p ON true
                ORDER BY p.title_sort, p.id
                """
        }
        // Word searches go through bookshelf.search_books, which can use the trigram index
        // (see PostgresSchema for why row-level security alone cannot).
        let patterns = (0..<wordCount).map { "$\($0 + 3)" }.joined(separator: ", ")
        return """
            SELECT total, id, title, revision, author
            FROM bookshelf.search_books(ARRAY[\(patterns)]::text[], $\(wordCount + 3), $1, $2)
            """
    }

    static func searchParameters(_ query: SearchQuery) -> (sql: String, parameters: [String?]) {
        let pattern = SearchPattern(SearchTerms(query.text))
        var parameters: [String?] = [String(query.limit), String(query.offset)]
        parameters += pattern.words
        if let start = pattern.firstWordAtStart { parameters.append(start) }
        return (search(wordCount: pattern.words.count), parameters)
    }
}
