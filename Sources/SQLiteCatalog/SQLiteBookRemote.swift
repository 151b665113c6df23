import BookCatalog
import CSQLite
import Foundation

/// One account's view of an SQLite catalog, on a connection of its own.
///
/// The store enforces the account on every call: only books of the account's scope are
/// loaded, searched or saved, and a save checks in the same statement that the account is
/// (still) an editor. A save is one compare-and-set `UPDATE ... RETURNING`, committed with
/// its operation id in one transaction.
///
/// Threading: the connection is used only from this actor. SQLite calls block the actor's
/// thread (a local file; a write waits at most the busy timeout), never the main actor.
public actor SQLiteBookRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote, AccountAwareRemote {
    public nonisolated let account: Account
    private let connection: Connection
    private var index: SearchIndex?
    /// `PRAGMA data_version` at the last check; it moves only for other connections' commits.
    private var seenDataVersion: Int

    init(connection: sending Connection, account: Account) {
        self.connection = connection
        self.account = account
        self.seenDataVersion = (try? connection.queryFirst("PRAGMA data_version") { $0.int(0) }) ?? 0
    }

    // MARK: BookRemote

    public func load(id: Int) async throws -> BookRecord {
        let found = try mappingFailures {
            try connection.queryFirst(
                "SELECT id, title, author, revision FROM books WHERE id = ?1 AND scope = ?2",
                [.int(id), .text(account.scope)], row: Self.record)
        }
        guard let found else { throw BookFailure.missing }
        return found
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        let title = try BookValidation.title(request.title)
        let author = try request.author.map { raw throws(BookFailure) in try BookValidation.author(raw) }
        let text = BookText(title: title, author: author ?? "")
        let outcome: Result<BookRecord, BookFailure> = try mappingFailures {
            try connection.transaction(immediate: true) {
                // The compare-and-set: revision, scope and the account's role in one statement.
                let saved = try connection.queryFirst(
                    """
                    UPDATE books SET
                        title = ?1, author = coalesce(?2, author),
                        title_key = ?3, title_terms = ?4, author_terms = coalesce(?5, author_terms),
                        revision = revision + 1,
                        change_seq = (SELECT max(change_seq) FROM books) + 1
                    WHERE id = ?6 AND revision = ?7 AND scope = ?8 AND revision < ?9
                      AND EXISTS (SELECT 1 FROM accounts WHERE name = ?10 AND role = 'editor' AND scope = ?8)
                    RETURNING id, title, author, revision
                    """,
                    [.text(title), author.map { .text($0) } ?? .null,
                     .text(text.titleKey), .text(text.titleTerms), author == nil ? .null : .text(text.authorTerms),
                     .int(request.id), .int(request.expectedRevision), .text(account.scope), .int(Int.max),
                     .text(account.name)],
                    row: Self.record)
                if let saved {
                    try connection.run(
                        "INSERT INTO committed_saves(operation, book_id, revision) VALUES (?1, ?2, ?3)",
                        [.text(request.operation.uuidString), .int(saved.id), .int(saved.revision)])
                    return .success(saved)
                }
                return .failure(try explainRefusal(request))
            }
        }
        return try outcome.get()
    }

    /// Why the compare-and-set changed no row, in the order the in-memory store checks.
    private func explainRefusal(_ request: SaveRequest) throws -> BookFailure {
        let stored = try connection.queryFirst(
            "SELECT revision FROM books WHERE id = ?1 AND scope = ?2", [.int(request.id), .text(account.scope)]) { $0.int(0) }
        guard let revision = stored else { return .missing }
        let isEditor = try connection.queryFirst(
            "SELECT 1 FROM accounts WHERE name = ?1 AND role = 'editor' AND scope = ?2",
            [.text(account.name), .text(account.scope)]) { _ in true } ?? false
        guard isEditor else { return .notAllowed }
        guard revision == request.expectedRevision else { return .conflict(expected: request.expectedRevision, actual: revision) }
        return .revisionExhausted
    }

    // MARK: SearchableBookRemote

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        let terms = SearchTerms(query.text)
        return try mappingFailures {
            // One read transaction: the index catches up to, and the page rows are read from,
            // the same snapshot.
            try connection.transaction(immediate: false) {
                let sequence = try connection.queryFirst("SELECT coalesce(max(change_seq), 0) FROM books") { $0.int(0) } ?? 0
                let index = try currentIndex(sequence: sequence)
                let (ids, total) = index.search(terms, offset: query.offset, limit: query.limit)
                let records = try ids.map { id in
                    guard let record = try connection.queryFirst(
                        "SELECT id, title, author, revision FROM books WHERE id = ?1 AND scope = ?2",
                        [.int(id), .text(account.scope)], row: Self.record)
                    else { throw BookFailure.invalidResponse }
                    return record
                }
                return SearchPage(records: records, total: total)
            }
        }
    }

    private func currentIndex(sequence: Int) throws -> SearchIndex {
        if let index {
            try index.catchUp(connection: connection, scope: account.scope, sequence: sequence)
            if !index.needsRebuild { return index }
        }
        self.index = nil  // free the old one before building its replacement
        let fresh = try SearchIndex.build(connection: connection, scope: account.scope, sequence: sequence)
        self.index = fresh
        return fresh
    }

    // MARK: ChangeDetectingRemote

    public func checkForChanges() async throws -> ChangeNotice? {
        let version = try mappingFailures { try connection.queryFirst("PRAGMA data_version") { $0.int(0) } ?? 0 }
        defer { seenDataVersion = version }
        return version != seenDataVersion ? .unspecified : nil
    }

    // MARK: SaveOutcomeRecordingRemote

    public func committedRevision(of operation: UUID) async throws -> Int? {
        try mappingFailures {
            try connection.queryFirst(
                """
                SELECT committed_saves.revision FROM committed_saves JOIN books ON books.id = committed_saves.book_id
                WHERE committed_saves.operation = ?1 AND books.scope = ?2
                """,
                [.text(operation.uuidString), .text(account.scope)]) { $0.int(0) }
        }
    }

    private static func record(_ row: Statement) -> BookRecord {
        BookRecord(id: row.int(0), title: row.text(1), revision: row.int(3), author: row.text(2))
    }
}
