import BookCatalog

/// A re-import's reads and writes (`ReimportTransaction`) on the owner's connection inside
/// one transaction: books found by the origin an earlier import remembered in
/// `bookshelf.import_provenance` (migration 018), or by ISBN; saves as compare-and-set, whose
/// revisions the history trigger records; the provenance of every book this import brought,
/// stamped with this import so that the books it did not bring are found by one query.
struct PostgresReimport: ReimportTransaction {
    let connection: PostgresConnection
    let scope: String
    /// This import's stamp: greater than every earlier one (imports take one lock, below).
    let stamp: Int

    init(connection: PostgresConnection, scope: String) throws {
        self.connection = connection
        self.scope = scope
        // The lock every import takes: two at once would stamp alike and add a book twice.
        try run(connection.execute("SELECT pg_advisory_xact_lock(hashtext('bookshelf.books'))"))
        let rows = try run(
            connection.execute("SELECT (coalesce(max(import_stamp), 0) + 1)::text FROM bookshelf.import_provenance"))
        guard let text = rows.rows.first?[0], let stamp = Int(text) else { throw BookFailure.invalidResponse }
        self.stamp = stamp
    }

    /// The provenance's values, as text in the order `base` reads them.
    private static let baseColumns =
        "p.title, p.author, p.isbn, p.year::text, p.publisher, p.series, p.series_index::text, array_to_json(p.tags)::text, p.notes"
    private static let baseWidth = 9

    private static func base(_ row: [String?], from first: Int) throws -> NewBook? {
        guard row.count >= first + baseWidth else { throw BookFailure.invalidResponse }
        guard let title = row[first], let author = row[first + 1] else { return nil }
        let details = try PostgresDetailsColumns.details(row[(first + 2)..<(first + baseWidth)])
        return NewBook(title: title, author: author, details: details)
    }

    mutating func book(remembered origin: BookOrigin) throws -> ReimportMatch? {
        let rows = try run(
            connection.execute(
                """
                SELECT \(PostgresStatements.recordColumns("b.")), p.import_stamp::text, \(Self.baseColumns)
                FROM bookshelf.import_provenance p JOIN bookshelf.books b ON b.id = p.book_id
                WHERE p.scope = $1 AND p.source = $2 AND p.source_id = $3 AND b.scope = $1
                """, [scope, origin.source.rawValue, origin.id]))
        guard let row = rows.rows.first else { return nil }
        let width = PostgresStatements.recordWidth
        guard row.count > width, let stampText = row[width], let stamp = Int(stampText) else {
            throw BookFailure.invalidResponse
        }
        if stamp == self.stamp { throw Reimport.Failure.repeatedSourceID(origin.id) }
        return ReimportMatch(current: try PostgresRemote.record(row), base: try Self.base(row, from: width + 1))
    }

    mutating func book(isbn: String, source: ImportSourceKind) throws -> ReimportMatch? {
        let rows = try run(
            connection.execute(
                """
                SELECT \(PostgresStatements.recordColumns("b.")), \(Self.baseColumns)
                FROM bookshelf.books b LEFT JOIN bookshelf.import_provenance p ON p.book_id = b.id AND p.source = $3
                WHERE b.scope = $1 AND b.isbn = $2
                  AND p.source_id IS NULL AND (p.import_stamp IS NULL OR p.import_stamp < $4::bigint)
                  AND NOT EXISTS (
                      SELECT 1 FROM bookshelf.import_provenance q WHERE q.book_id = b.id AND q.import_stamp = $4::bigint)
                ORDER BY b.id LIMIT 1
                """, [scope, isbn, source.rawValue, String(stamp)]))
        guard let row = rows.rows.first else { return nil }
        return ReimportMatch(
            current: try PostgresRemote.record(row), base: try Self.base(row, from: PostgresStatements.recordWidth))
    }

    mutating func add(_ book: NewBook) throws -> Int {
        let rows = try run(
            connection.execute(
                """
                INSERT INTO bookshelf.books (scope, title, author, title_sort, title_words, author_words,
                    isbn, year, publisher, series, series_index, tags, notes)
                SELECT $1, $2, $3, t.sort_key, t.words, (bookshelf.index_text($3)).words,
                    $4, $5::integer, $6, $7, $8::numeric, ARRAY(SELECT json_array_elements_text($9::json)), $10
                FROM bookshelf.index_text($2) t
                RETURNING id::text
                """, [scope, book.title, book.author] + PostgresDetailsColumns.parameters(book.details)))
        guard let text = rows.rows.first?[0], let id = Int(text) else { throw BookFailure.invalidResponse }
        return id
    }

    mutating func save(_ values: NewBook, id: Int, expectedRevision: Int) throws -> Bool {
        // The database derives the search columns (books_derive) and records the revision.
        let rows = try run(
            connection.execute(
                """
                UPDATE bookshelf.books
                SET title = $3, author = $4, revision = revision + 1,
                    isbn = $5, year = $6::integer, publisher = $7, series = $8, series_index = $9::numeric,
                    tags = ARRAY(SELECT json_array_elements_text($10::json)), notes = $11
                WHERE id = $1::bigint AND revision = $2::bigint AND scope = $12
                RETURNING id::text
                """,
                [String(id), String(expectedRevision), values.title, values.author]
                    + PostgresDetailsColumns.parameters(values.details) + [scope]))
        return rows.rows.count == 1
    }

    mutating func remember(book id: Int, source: ImportSourceKind, sourceID: String?, values: NewBook) throws {
        try run(
            connection.execute(
                """
                INSERT INTO bookshelf.import_provenance (book_id, source, scope, source_id, import_stamp,
                    title, author, isbn, year, publisher, series, series_index, tags, notes)
                VALUES ($1::bigint, $2, $3, $4, $5::bigint, $6, $7, $8, $9::integer, $10, $11, $12::numeric,
                    ARRAY(SELECT json_array_elements_text($13::json)), $14)
                ON CONFLICT (book_id, source) DO UPDATE SET
                    source_id = excluded.source_id, import_stamp = excluded.import_stamp,
                    title = excluded.title, author = excluded.author, isbn = excluded.isbn, year = excluded.year,
                    publisher = excluded.publisher, series = excluded.series, series_index = excluded.series_index,
                    tags = excluded.tags, notes = excluded.notes
                """,
                [String(id), source.rawValue, scope, sourceID, String(stamp), values.title, values.author]
                    + PostgresDetailsColumns.parameters(values.details)))
    }

    mutating func forgotten(source: ImportSourceKind, limit: Int) throws -> (books: [BookRecord], count: Int) {
        let filter = """
            FROM bookshelf.import_provenance p JOIN bookshelf.books b ON b.id = p.book_id
            WHERE p.scope = $1 AND p.source = $2 AND p.import_stamp < $3::bigint
            """
        let arguments: [String?] = [scope, source.rawValue, String(stamp)]
        let counted = try run(connection.execute("SELECT count(*)::text \(filter)", arguments))
        guard let text = counted.rows.first?[0], let count = Int(text) else { throw BookFailure.invalidResponse }
        let rows = try run(
            connection.execute(
                "SELECT \(PostgresStatements.recordColumns("b.")) \(filter) ORDER BY b.id LIMIT $4::integer",
                arguments + [String(limit)]))
        return (try rows.rows.map(PostgresRemote.record), count)
    }
}

extension PostgresReimport {
    mutating func deleteForgotten(source: ImportSourceKind) throws -> Int {
        // Each book is recorded as deleted (migration 019) with the scope it had; its
        // provenance goes (a deleted book is no source's: were it in a later export again, it
        // is added anew), then its row; its revisions stay for its history. The statement
        // trigger on the books tells every open program.
        try run(
            connection.execute(
                """
                INSERT INTO bookshelf.deleted_books (book_id, scope, revision, source, import_stamp)
                SELECT b.id, b.scope, b.revision, p.source, $3::bigint
                FROM bookshelf.import_provenance p JOIN bookshelf.books b ON b.id = p.book_id
                WHERE p.scope = $1 AND p.source = $2 AND p.import_stamp < $3::bigint AND b.scope = $1
                """, [scope, source.rawValue, String(stamp)]))
        let thisImports = "SELECT book_id FROM bookshelf.deleted_books WHERE import_stamp = $2::bigint"
        try run(
            connection.execute(
                "DELETE FROM bookshelf.import_provenance WHERE book_id IN (\(thisImports)) AND scope = $1",
                [scope, String(stamp)]))
        let rows = try run(
            connection.execute(
                """
                WITH deleted AS (
                    DELETE FROM bookshelf.books WHERE id IN (\(thisImports)) AND scope = $1 RETURNING id
                )
                SELECT count(*)::text FROM deleted
                """, [scope, String(stamp)]))
        guard let text = rows.rows.first?[0], let count = Int(text) else { throw BookFailure.invalidResponse }
        return count
    }
}

extension PostgresSetup {
    /// Runs a re-import of `books` into `scope` (`Reimport.run`) in one transaction, as the
    /// database owner, committed only if `commitIf` says so after the last book and the plan
    /// is no dry run. A dry run's report is what the import would do; nothing is written.
    public func reimport(
        _ books: some Sequence<SourcedBook> & Sendable, scope: String, plan: ReimportPlan,
        commitIf: @escaping @Sendable () -> Bool = { true }
    ) async throws -> ReimportReport {
        guard PostgresSetup.isValidScope(scope) else { throw PostgresSetupFailure.invalidScope(scope) }
        return try await withConnection { connection in
            do {
                return try connection.inTransaction { connection in
                    var transaction = try PostgresReimport(connection: connection, scope: scope)
                    let report = try Reimport.run(books, plan: plan, in: &transaction)
                    guard commitIf() else { throw PostgresSetupFailure.importWithdrawn }
                    if plan.dryRun { throw DryRun(report: report) }
                    return report
                }
            } catch let dryRun as DryRun {
                return dryRun.report
            }
        }
    }

    /// Carries a dry run's report out of the transaction it rolls back.
    private struct DryRun: Error {
        let report: ReimportReport
    }
}
