import BookCatalog
import CSQLite
import SearchEngine

/// One save of one account's book: the compare-and-set and what it records (the committed
/// operation, the revision and its batch), in the caller's write transaction; and, when it
/// changes no row, why.
struct BookSaving {
    let connection: Connection
    let account: Account

    /// The saved record and the catalog's change marker it was given, or why the save was refused.
    func commit(_ request: SaveRequest, batch: BatchID?) throws -> Result<
        (record: BookRecord, sequence: Int), BookFailure
    > {
        let (title, author) = (request.title, request.author)
        let text = BookText(title: title, author: author ?? "", details: request.details ?? .empty)
        // The compare-and-set: revision, scope and the account's role in one statement.
        // Details are written all together (?11 true), or kept as they are.
        let saved: (BookRecord, Int)?
        do {
            saved = try connection.queryFirst(
                """
                UPDATE books SET
                    title = ?1, author = coalesce(?2, author),
                    title_key = ?3, title_terms = ?4, author_terms = coalesce(?5, author_terms),
                    isbn = iif(?11, ?12, isbn), year = iif(?11, ?13, year),
                    publisher = iif(?11, ?14, publisher), series = iif(?11, ?15, series),
                    series_index_thousandths = iif(?11, ?16, series_index_thousandths),
                    tags = iif(?11, ?17, tags), notes = iif(?11, ?18, notes),
                    other_terms = iif(?11, ?19, other_terms),
                    revision = revision + 1,
                    change_seq = (SELECT max(change_seq) FROM books) + 1
                WHERE id = ?6 AND revision = ?7 AND scope = ?8 AND revision < ?9
                  AND EXISTS (SELECT 1 FROM accounts WHERE name = ?10 AND role = 'editor' AND scope = ?8)
                RETURNING \(BookRow.columns), change_seq
                """,
                [
                    .text(title), author.map { .text($0) } ?? .null,
                    .text(text.titleKey), .text(text.titleTerms),
                    author == nil ? .null : .text(text.authorTerms),
                    .int(request.id), .int(request.expectedRevision), .text(account.scope), .int(Int.max),
                    .text(account.name), .int(request.details == nil ? 0 : 1),
                ]
                    + (request.details.map(StoredDetails.values)
                        ?? Array(repeating: .null, count: StoredDetails.count)) + [.text(text.otherTerms)],
                row: { (BookRow.record($0), $0.int(BookRow.count)) })
        } catch let error as SQLiteError where error.primary == SQLITE_CONSTRAINT && request.details == nil {
            // Details another program wrote past the file's checks, which keeping them
            // would write again: say which field, as a rule broken by a save would.
            guard let field = try firstFieldBreakingItsRule(id: request.id) else { throw error }
            return .failure(
                .invalidField(
                    field,
                    reason: "book \(request.id) holds a value another program stored that breaks this "
                        + "field's rule, and a save that keeps it cannot be made; save the book with this "
                        + "field given anew (an empty value clears it)"))
        }
        guard let (record, sequence) = saved else { return .failure(try explainRefusal(request)) }
        try connection.run(
            "INSERT INTO committed_saves(operation, book_id, revision) VALUES (?1, ?2, ?3)",
            [.text(request.operation.uuidString), .int(record.id), .int(record.revision)])
        try RevisionLog.recordSave(
            of: record.id, account: account.name, operation: request.operation, batch: batch, on: connection)
        return .success((record, sequence))
    }

    /// The first of a stored book's details columns holding what Bookshelf would not keep
    /// there (`StoredDetails` reads it in another form, or as empty), or nil.
    private func firstFieldBreakingItsRule(id: Int) throws -> BookField? {
        let fields: [BookField] = [.isbn, .year, .publisher, .series, .seriesIndex, .tags, .notes]
        let found = try connection.queryFirst(
            "SELECT \(StoredDetails.columns) FROM books WHERE id = ?1 AND scope = ?2", [.int(id), .text(account.scope)]
        ) { row -> BookField? in
            let kept = StoredDetails.values(of: StoredDetails.read(row, from: 0))
            for (index, value) in kept.enumerated() {
                let column = Int32(index)
                let stored = row.isNull(column) ? nil : row.text(column)
                let canonical: String? =
                    switch value {
                    case .null: nil
                    case let .int(number): String(number)
                    case let .text(text): text
                    case let .textBytes(bytes): String(decoding: bytes, as: UTF8.self)
                    }
                if stored != canonical { return fields[index] }
            }
            return nil
        }
        return found ?? nil
    }

    /// Why the compare-and-set changed no row, in the order the in-memory store checks.
    private func explainRefusal(_ request: SaveRequest) throws -> BookFailure {
        let stored = try connection.queryFirst(
            "SELECT revision FROM books WHERE id = ?1 AND scope = ?2", [.int(request.id), .text(account.scope)]
        ) { $0.int(0) }
        guard let revision = stored else { return .missing }
        guard try isEditor() else { return .notAllowed }
        guard revision == request.expectedRevision else {
            return .conflict(expected: request.expectedRevision, actual: revision)
        }
        return .revisionExhausted
    }

    /// Whether the account may save in its scope, as of the caller's transaction.
    func isEditor() throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 FROM accounts WHERE name = ?1 AND role = 'editor' AND scope = ?2",
            [.text(account.name), .text(account.scope)]
        ) { _ in true } ?? false
    }
}
