import BookCatalog
import Foundation

/// The `book_revisions` table: every committed revision of every book, written in the
/// transaction that commits it, so the log and the books never disagree.
enum RevisionLog {
    /// Now, in milliseconds since 1970, computed by SQLite inside the writing statement.
    static let nowMilliseconds = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"

    /// Records a save's new revision: the book's row as the save left it, every field as stored.
    /// Runs inside the save's transaction.
    static func recordSave(
        of id: Int, account: String, operation: UUID, batch: BatchID? = nil, on connection: Connection
    ) throws {
        try connection.run(
            """
            INSERT INTO book_revisions(book_id, revision, title, author, account, saved_at, operation, batch, \(StoredDetails.columns))
            SELECT id, revision, title, author, ?2, \(nowMilliseconds), ?3, ?4, \(StoredDetails.columns) FROM books WHERE id = ?1
            """,
            [.int(id), .text(account), .text(operation.uuidString), batch.map { .int($0.number) } ?? .null])
    }

    /// Starts the history of the books an import inserted (the rows of change `sequence`).
    static func recordImport(sequence: Int, on connection: Connection) throws {
        try connection.run(
            """
            INSERT INTO book_revisions(book_id, revision, title, author, account, saved_at, operation, \(StoredDetails.columns))
            SELECT id, revision, title, author, NULL, \(nowMilliseconds), NULL, \(StoredDetails.columns)
            FROM books WHERE change_seq = ?1
            """,
            [.int(sequence)])
    }

    /// Records the revision a re-import wrote of one book (added or updated), by no account.
    static func recordImportedRevision(of id: Int, on connection: Connection) throws {
        try connection.run(
            """
            INSERT INTO book_revisions(book_id, revision, title, author, account, saved_at, operation, \(StoredDetails.columns))
            SELECT id, revision, title, author, NULL, \(nowMilliseconds), NULL, \(StoredDetails.columns) FROM books WHERE id = ?1
            """,
            [.int(id)])
    }

    /// The book's revisions, newest first, if the book is in `scope` or was until an import
    /// deleted it (its history stays); nil when it is not.
    static func history(of id: Int, scope: String, on connection: Connection) throws -> [BookRevision]? {
        try connection.transaction(immediate: false) {
            let visible =
                try connection.queryFirst(
                    """
                    SELECT 1 FROM books WHERE id = ?1 AND scope = ?2
                    UNION ALL SELECT 1 FROM deleted_books WHERE book_id = ?1 AND scope = ?2
                    """, [.int(id), .text(scope)]
                ) { _ in true } ?? false
            guard visible else { return nil }
            return try connection.query(
                """
                SELECT book_id, title, author, revision, \(StoredDetails.columns), account, saved_at, operation, batch
                FROM book_revisions WHERE book_id = ?1 ORDER BY revision DESC
                """,
                [.int(id)]
            ) { row in
                let after = BookRow.count
                return BookRevision(
                    record: BookRow.record(row),
                    account: row.isNull(after) ? nil : row.text(after),
                    savedAt: Date(timeIntervalSince1970: Double(row.int(after + 1)) / 1000),
                    operation: row.isNull(after + 2) ? nil : UUID(uuidString: row.text(after + 2)),
                    batch: row.isNull(after + 3) ? nil : BatchID(row.int(after + 3)))
            }
        }
    }

    /// The deletion of book `id` by an import, if the book was in `scope` until then.
    static func deletion(of id: Int, scope: String, on connection: Connection) throws -> BookDeletion? {
        try connection.queryFirst(
            "SELECT revision, deleted_at, source FROM deleted_books WHERE book_id = ?1 AND scope = ?2",
            [.int(id), .text(scope)]
        ) { row in
            // A source this program does not know (a newer one's) is the catalog's damage.
            ImportSourceKind(rawValue: row.text(2)).map { source in
                BookDeletion(
                    bookID: id, revision: row.int(0), deletedAt: Date(timeIntervalSince1970: Double(row.int(1)) / 1000),
                    source: source)
            }
        } ?? nil
    }

    /// The revisions `batch` made of the books of `scope`, each with the revision before it
    /// (nil where the history has none: a change another program made); nil when the batch is
    /// not of `scope`.
    static func revisions(ofBatch batch: BatchID, scope: String, on connection: Connection) throws
        -> [BatchRevision]?
    {
        try connection.transaction(immediate: false) {
            let visible =
                try connection.queryFirst(
                    "SELECT 1 FROM batches WHERE id = ?1 AND scope = ?2", [.int(batch.number), .text(scope)]
                ) { _ in true } ?? false
            guard visible else { return nil }
            let columns = { (alias: String) in
                "\(alias).book_id, \(alias).title, \(alias).author, \(alias).revision, "
                    + StoredDetails.columns.split(separator: ",").map {
                        "\(alias).\($0.trimmingCharacters(in: .whitespaces))"
                    }
                    .joined(separator: ", ")
            }
            return try connection.query(
                """
                SELECT \(columns("made")), \(columns("before"))
                FROM book_revisions AS made
                LEFT JOIN book_revisions AS before ON before.book_id = made.book_id AND before.revision = made.revision - 1
                JOIN books ON books.id = made.book_id AND books.scope = ?2
                WHERE made.batch = ?1
                ORDER BY made.book_id, made.revision
                """,
                [.int(batch.number), .text(scope)]
            ) { row in
                BatchRevision(
                    before: row.isNull(BookRow.count) ? nil : BookRow.record(row, from: BookRow.count),
                    after: BookRow.record(row))
            }
        }
    }
}
