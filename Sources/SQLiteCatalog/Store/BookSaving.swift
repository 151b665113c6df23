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
        // The stored row first, in the same write transaction, so that only the columns whose
        // value changes are written: an unchanged field's index entries are not rewritten (each a
        // page of its own, written to the WAL and again at a checkpoint) and its search terms are
        // not worked out again. A bulk edit that adds a tag changes two columns of eleven.
        // Bench: `bookshelf-bench bulk --count 1000000`.
        let written = Self.columns(of: request)
        guard
            let changed = try connection.queryFirst(
                "SELECT revision, \(Self.writable.joined(separator: ", ")) FROM books WHERE id = ?1 AND scope = ?2",
                [.int(request.id), .text(account.scope)],
                row: { row in
                    (
                        revision: row.int(0),
                        columns: written.filter { column in
                            !row.holds(column.value, at: Int32(1 + Self.writable.firstIndex(of: column.name)!))
                        }
                    )
                }),
            changed.revision == request.expectedRevision
        else { return .failure(try explainRefusal(request)) }
        let assignments = changed.columns + Self.searchColumns(changing: Set(changed.columns.map(\.name)), of: request)
        let settings =
            assignments.enumerated().map { "\($1.name) = ?\($0 + 6)" }
            + (request.details == nil ? Self.detailsKept : [])
            + ["revision = revision + 1", "change_seq = (SELECT max(change_seq) FROM books) + 1"]
        // The compare-and-set: revision, scope and the account's role in one statement.
        let saved: (BookRecord, Int)?
        do {
            saved = try connection.queryFirst(
                """
                UPDATE books SET \(settings.joined(separator: ", "))
                WHERE id = ?1 AND revision = ?2 AND scope = ?3 AND revision < ?4
                  AND EXISTS (SELECT 1 FROM accounts WHERE name = ?5 AND role = 'editor' AND scope = ?3)
                RETURNING \(BookRow.columns), change_seq
                """,
                [
                    .int(request.id), .int(request.expectedRevision), .text(account.scope), .int(Int.max),
                    .text(account.name),
                ] + assignments.map(\.value),
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

    /// A column a save writes and the value it binds there.
    private typealias Assignment = (name: String, value: SQLValue)

    /// The columns of a book's fields a save may write, in the order it reads them.
    private static let writable = ["title", "author"] + StoredDetails.columnNames

    /// The fields `request` writes, as stored: title always, author unless it keeps the stored
    /// one, and every details column when it gives details.
    private static func columns(of request: SaveRequest) -> [Assignment] {
        [("title", .text(request.title))] + (request.author.map { [("author", .text($0))] } ?? [])
            + (request.details.map { Array(zip(StoredDetails.columnNames, StoredDetails.values(of: $0))) } ?? [])
    }

    /// The search columns worked out from the fields among `changed`.
    private static func searchColumns(changing changed: Set<String>, of request: SaveRequest) -> [Assignment] {
        var columns: [Assignment] = []
        if changed.contains("title") {
            columns.append(("title_key", .text(BookText.normalized(SearchTerms.fold(request.title)))))
            columns.append(("title_terms", .text(BookText.terms(request.title))))
        }
        if let author = request.author, changed.contains("author") {
            columns.append(("author_terms", .text(BookText.terms(author))))
        }
        if let details = request.details, !changed.isDisjoint(with: ["publisher", "series", "tags"]) {
            columns.append(("other_terms", .text(BookText.otherTerms(details))))
        }
        return columns
    }

    /// A save without details keeps every details column by writing it again, so that the
    /// catalog's checks read what it keeps: a value another program stored past them is refused
    /// here, naming its field, and never copied into the history.
    private static let detailsKept = StoredDetails.columnNames.map { "\($0) = \($0)" }

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
