import BookCatalog
import SearchEngine

/// A re-import's reads and writes (`ReimportTransaction`) on one connection inside the
/// import's write transaction: books found by the origin an earlier import remembered in
/// `import_provenance`, or by ISBN; saves as compare-and-set; the provenance of every book
/// this import brought, stamped with this import so that the books it did not bring are found
/// by one query at the end, whatever the file's size.
struct SQLiteReimport: ReimportTransaction {
    let connection: Connection
    let scope: String
    /// This import's stamp: greater than every earlier one.
    let stamp: Int
    /// The change sequence number of this import's writes: it is one commit.
    let sequence: Int

    init(connection: Connection, scope: String) throws {
        self.connection = connection
        self.scope = scope
        stamp =
            try connection.queryFirst("SELECT coalesce(max(import_stamp), 0) + 1 FROM import_provenance") {
                $0.int(0)
            } ?? 1
        sequence = try connection.queryFirst("SELECT coalesce(max(change_seq), 0) + 1 FROM books") { $0.int(0) } ?? 1
    }

    /// `BookRow.columns` of the books table aliased `b`.
    private static let bookColumns =
        "b.id, b.title, b.author, b.revision, "
        + "b.isbn, b.year, b.publisher, b.series, b.series_index_thousandths, b.tags, b.notes"

    /// The provenance's values, read as the books' columns are.
    private static let baseColumns =
        "p.title, p.author, p.isbn, p.year, p.publisher, p.series, "
        + "p.series_index_thousandths, p.tags, p.notes"

    private static func base(_ row: Statement, from first: Int32) -> NewBook? {
        guard !row.isNull(first) else { return nil }
        return NewBook(
            title: row.text(first), author: row.text(first + 1), details: StoredDetails.read(row, from: first + 2))
    }

    mutating func book(remembered origin: BookOrigin) throws -> ReimportMatch? {
        let found = try connection.queryFirst(
            """
            SELECT \(Self.bookColumns),
                p.import_stamp, \(Self.baseColumns)
            FROM import_provenance p JOIN books b ON b.id = p.book_id
            WHERE p.scope = ?1 AND p.source = ?2 AND p.source_id = ?3 AND b.scope = ?1
            """,
            [.text(scope), .text(origin.source.rawValue), .text(origin.id)]
        ) { row in
            (BookRow.record(row), row.int(BookRow.count), Self.base(row, from: BookRow.count + 1))
        }
        guard let (current, stamp, base) = found else { return nil }
        if stamp == self.stamp { throw Reimport.Failure.repeatedSourceID(origin.id) }
        return ReimportMatch(current: current, base: base)
    }

    mutating func book(isbn: String, source: ImportSourceKind) throws -> ReimportMatch? {
        try connection.queryFirst(
            """
            SELECT \(Self.bookColumns),
                \(Self.baseColumns)
            FROM books b LEFT JOIN import_provenance p ON p.book_id = b.id AND p.source = ?3
            WHERE b.scope = ?1 AND b.isbn = ?2
              AND p.source_id IS NULL AND (p.import_stamp IS NULL OR p.import_stamp < ?4)
              AND NOT EXISTS (
                  SELECT 1 FROM import_provenance q WHERE q.book_id = b.id AND q.import_stamp = ?4)
            ORDER BY b.id LIMIT 1
            """,
            [.text(scope), .text(isbn), .text(source.rawValue), .int(stamp)]
        ) { row in
            ReimportMatch(current: BookRow.record(row), base: Self.base(row, from: BookRow.count))
        }
    }

    mutating func add(_ book: NewBook) throws -> Int {
        let text = BookText(title: book.title, author: book.author, details: book.details)
        let id = try connection.queryFirst(
            """
            INSERT INTO books(
                scope, title, author, revision, title_key, title_terms, author_terms, change_seq,
                \(StoredDetails.columns), other_terms)
            VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            RETURNING id
            """,
            [
                .text(scope), .text(book.title), .text(book.author),
                .text(text.titleKey), .text(text.titleTerms), .text(text.authorTerms), .int(sequence),
            ] + StoredDetails.values(of: book.details) + [.text(text.otherTerms)]
        ) { $0.int(0) }
        guard let id else { throw CatalogDamage("an inserted book returned no id") }
        try RevisionLog.recordImportedRevision(of: id, on: connection)
        return id
    }

    mutating func save(_ values: NewBook, id: Int, expectedRevision: Int) throws -> Bool {
        let text = BookText(title: values.title, author: values.author, details: values.details)
        let changed = try connection.run(
            """
            UPDATE books SET
                title = ?1, author = ?2, title_key = ?3, title_terms = ?4, author_terms = ?5,
                isbn = ?9, year = ?10, publisher = ?11, series = ?12, series_index_thousandths = ?13,
                tags = ?14, notes = ?15, other_terms = ?16,
                revision = revision + 1, change_seq = ?8
            WHERE id = ?6 AND revision = ?7 AND scope = ?17
            """,
            [
                .text(values.title), .text(values.author), .text(text.titleKey), .text(text.titleTerms),
                .text(text.authorTerms), .int(id), .int(expectedRevision), .int(sequence),
            ] + StoredDetails.values(of: values.details) + [.text(text.otherTerms), .text(scope)])
        guard changed == 1 else { return false }
        try RevisionLog.recordImportedRevision(of: id, on: connection)
        return true
    }

    mutating func remember(book id: Int, source: ImportSourceKind, sourceID: String?, values: NewBook) throws {
        try ImportProvenanceRow.remember(
            book: id, source: source, scope: scope, sourceID: sourceID, stamp: stamp, values: values, on: connection)
    }

    mutating func forgotten(source: ImportSourceKind, limit: Int) throws -> (books: [BookRecord], count: Int) {
        let arguments: [SQLValue] = [.text(scope), .text(source.rawValue), .int(stamp)]
        let filter = """
            FROM import_provenance p JOIN books b ON b.id = p.book_id
            WHERE p.scope = ?1 AND p.source = ?2 AND p.import_stamp < ?3
            """
        let count = try connection.queryFirst("SELECT count(*) \(filter)", arguments) { $0.int(0) } ?? 0
        let books = try connection.query(
            """
            SELECT \(Self.bookColumns)
            \(filter) ORDER BY b.id LIMIT ?4
            """, arguments + [.int(limit)], row: BookRow.record)
        return (books, count)
    }
}

extension SQLiteReimport {
    /// The tombstone scope of a deleted book's row (schema step 10): no account's.
    static let deletedScope = ""

    mutating func deleteForgotten(source: ImportSourceKind) throws -> Int {
        // Recorded first, with the scope the books had; then the rows leave every scope in
        // one statement, their change_seq this import's, which tells open programs.
        try connection.run(
            """
            INSERT INTO deleted_books(book_id, scope, revision, deleted_at, source, change_seq)
            SELECT b.id, b.scope, b.revision, \(RevisionLog.nowMilliseconds), p.source, ?4
            FROM import_provenance p JOIN books b ON b.id = p.book_id
            WHERE p.scope = ?1 AND p.source = ?2 AND p.import_stamp < ?3 AND b.scope = ?1
            """,
            [.text(scope), .text(source.rawValue), .int(stamp), .int(sequence)])
        let deleted = try connection.run(
            """
            UPDATE books SET scope = ?1, change_seq = ?2
            WHERE id IN (SELECT book_id FROM deleted_books WHERE change_seq = ?2)
            """,
            [.text(Self.deletedScope), .int(sequence)])
        // A deleted book is no source's any more: were it in a later export again, it is added anew.
        try connection.run(
            "DELETE FROM import_provenance WHERE book_id IN (SELECT book_id FROM deleted_books WHERE change_seq = ?1)",
            [.int(sequence)])
        // A search index drops them when it catches up: `SQLiteSearchSource.removals` reads
        // deleted_books by this change_seq.
        return deleted
    }
}

extension SQLiteCatalog {
    /// Runs a re-import of `books` into `scope` (`Reimport.run`) in one write transaction,
    /// committed only if `commitIf` says so after the last book and the plan is no dry run.
    /// A dry run's report is what the import would do; nothing is written.
    public func reimport(
        _ books: some Sequence<SourcedBook>, scope: String, plan: ReimportPlan, commitIf: () -> Bool = { true }
    ) throws(SQLiteCatalogError) -> ReimportReport {
        guard !scope.isEmpty, !BookValidation.hasControlCharacters(scope) else {
            throw .invalidAccount("the scope must be non-empty text without control characters")
        }
        do {
            return try withWriteConnection { connection in
                try connection.transaction(immediate: true) {
                    var transaction = try SQLiteReimport(connection: connection, scope: scope)
                    let report = try Reimport.run(books, plan: plan, in: &transaction)
                    guard commitIf() else { throw SQLiteCatalogError.importWithdrawn }
                    if plan.dryRun { throw DryRun(report: report) }
                    return report
                }
            }
        } catch let dryRun as DryRun {
            return dryRun.report
        } catch let failure as Reimport.Failure {
            if case let .invalidBook(index, reason) = failure { throw .invalidBook(index: index, reason: reason) }
            throw .failed(failure.description)
        } catch let error as SQLiteCatalogError {
            throw error
        } catch {
            throw SQLiteCatalogError(error, path: path)
        }
    }

    /// Carries a dry run's report out of the transaction it rolls back.
    private struct DryRun: Error {
        let report: ReimportReport
    }
}

/// One book's import provenance row, written where a catalog keeps it: in the catalog, under
/// the book's scope, or in a Calibre library's state file, which has one scope and no column
/// for it. The last import's values replace the row's, as the next import's base.
enum ImportProvenanceRow {
    static func remember(
        book: Int, source: ImportSourceKind, scope: String?, sourceID: String?, stamp: Int, values: NewBook,
        on connection: Connection
    ) throws {
        let scoped = scope != nil
        let columns =
            "book_id, source, " + (scoped ? "scope, " : "") + "source_id, import_stamp, title, author, "
            + StoredDetails.columns
        let keys: [SQLValue] =
            [.int(book), .text(source.rawValue)] + (scope.map { [SQLValue.text($0)] } ?? [])
            + [sourceID.map { .text($0) } ?? .null, .int(stamp), .text(values.title), .text(values.author)]
        let parameters = keys + StoredDetails.values(of: values.details)
        try connection.run(
            """
            INSERT INTO import_provenance(\(columns))
            VALUES (\((1...parameters.count).map { "?\($0)" }.joined(separator: ", ")))
            ON CONFLICT (book_id, source) DO UPDATE SET
                source_id = excluded.source_id, import_stamp = excluded.import_stamp,
                title = excluded.title, author = excluded.author, isbn = excluded.isbn, year = excluded.year,
                publisher = excluded.publisher, series = excluded.series,
                series_index_thousandths = excluded.series_index_thousandths, tags = excluded.tags,
                notes = excluded.notes
            """,
            parameters)
    }
}
