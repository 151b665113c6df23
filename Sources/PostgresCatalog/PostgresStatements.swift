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

    /// One page and the exact number of matches, from one snapshot. The first row always
    /// exists and carries the total; its book columns are NULL when the page is empty.
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
        let words = (0..<wordCount).map { $0 + 3 }
        let inText = words.map { #"search_words LIKE $\#($0) ESCAPE '\'"# }.joined(separator: " AND ")
        let inTitle = words.map { #"title_words LIKE $\#($0) ESCAPE '\'"# }.joined(separator: " AND ")
        let atStart = #"title_words LIKE $\#(wordCount + 3) ESCAPE '\'"#
        return """
            WITH matches AS MATERIALIZED (
                SELECT id, title, revision, author, title_sort,
                    CASE WHEN \(inTitle) THEN CASE WHEN \(atStart) THEN 0 ELSE 1 END ELSE 2 END AS rank
                FROM bookshelf.books
                WHERE \(inText))
            SELECT t.total, p.id, p.title, p.revision, p.author
            FROM (SELECT count(*) AS total FROM matches) AS t
            LEFT JOIN LATERAL (
                SELECT * FROM matches ORDER BY rank, title_sort, id LIMIT $1 OFFSET $2) AS p ON true
            ORDER BY p.rank, p.title_sort, p.id
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
