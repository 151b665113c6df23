import BookCatalog
import Foundation

/// One account's session on a PostgreSQL catalog: one connection, signed in as the
/// account's login role, so the database itself decides which books it sees and whether it
/// may save (row-level security and grants; see `PostgresSchema`).
///
/// Every call runs on the session's own serial worker, never on the caller's actor. A lost
/// server is `storeUnavailable`; the next call reconnects. A save whose connection dies
/// after sending is `outcomeUnknown`, and `committedRevision(of:)` settles it exactly
/// because each save records its operation id in the same statement.
public actor PostgresRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote,
    AccountAwareRemote,
    ReauthenticatingRemote, HistoryKeepingRemote, DeletionRecordingRemote, BatchRecordingRemote
{
    /// The account as the session last found it: an administrator's change of its role or
    /// scope shows here once a change check has reported it.
    public nonisolated var account: Account { session.account }
    nonisolated let worker: PostgresWorker
    nonisolated let session: PostgresSession
    /// The change check's own connection and worker: it never waits behind reads.
    private nonisolated let changeWorker: PostgresWorker
    private nonisolated let changeWatch: PostgresChangeWatch

    private init(
        session: PostgresSession, worker: PostgresWorker, changeWatch: PostgresChangeWatch,
        changeWorker: PostgresWorker
    ) {
        self.session = session
        self.worker = worker
        self.changeWatch = changeWatch
        self.changeWorker = changeWorker
    }

    /// Signs in. `password` (from a prompt) is used for this handshake only and not kept;
    /// reconnects rely on libpq's own sources (PGPASSFILE, PGPASSWORD, the connection string),
    /// and when those have none every call fails with `PasswordNeededAgain` until
    /// `reauthenticate(password:)`.
    /// Throws `PostgresConnectFailure.passwordRequired` when the server wants one,
    /// `PostgresConnectFailure.noAccount` for a role without an account, and
    /// `BookFailure.storeUnavailable` when the server cannot be reached.
    public static func connect(_ connector: PostgresConnector, password: String? = nil) async throws -> PostgresRemote {
        let worker = PostgresWorker(label: "bookshelf.postgres.session")
        let session = try await worker.perform { try PostgresSession(connector: connector, password: password) }
        let changeWorker = PostgresWorker(label: "bookshelf.postgres.changes")
        let changeWatch = try await changeWorker.perform {
            PostgresChangeWatch(session: session, password: password)
        }
        return PostgresRemote(
            session: session, worker: worker, changeWatch: changeWatch, changeWorker: changeWorker)
    }

    /// Reconnects this session with a password the user typed again (not kept). A wrong
    /// password is `BookFailure.notAllowed`; an unreachable server `storeUnavailable`.
    public func reauthenticate(password: String) async throws {
        let session = self.session
        try await worker.perform {
            do {
                _ = try session.reconnect(password: password)
            } catch PostgresConnectFailure.passwordRequired, PostgresConnectFailure.passwordRejected {
                throw BookFailure.notAllowed
            }
        }
        let changeWatch = self.changeWatch
        try await changeWorker.perform {
            do {
                try changeWatch.reconnect(password: password)
            } catch PostgresConnectFailure.passwordRequired, PostgresConnectFailure.passwordRejected {
                throw BookFailure.notAllowed
            }
        }
    }

    public func load(id: Int) async throws -> BookRecord {
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute(PostgresStatements.load, [String(id)]))
            }
            guard let row = rows.rows.first else { throw BookFailure.missing }
            return try PostgresRemote.record(row)
        }
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        try await save(request, batch: nil)
    }

    public func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        try await save(request, batch: batch)
    }

    /// The save statement's parameters for `request` (validated here: the database checks
    /// again) in `batch`.
    static func saveParameters(_ request: SaveRequest, batch: BatchID?) throws -> [String?] {
        let title = try BookValidation.title(request.title)
        let author = try request.author.map { raw throws(BookFailure) in try BookValidation.author(raw) }
        let details = try request.details.map { raw throws(BookFailure) in try raw.validated() }
        return [
            String(request.id), String(request.expectedRevision), title, author, request.operation.uuidString,
            details == nil ? "false" : "true",
        ]
            + (details.map(PostgresDetailsColumns.parameters)
                ?? Array(repeating: nil, count: PostgresDetailsColumns.count))
            + [batch.map { String($0.number) }]
    }

    private func save(_ request: SaveRequest, batch: BatchID?) async throws -> BookRecord {
        let parameters = try Self.saveParameters(request, batch: batch)
        let session = self.session
        return try await worker.perform { try PostgresRemote.saveAlone(request, parameters: parameters, on: session) }
    }

    /// One save in a transaction of its own (its statement's), on the worker: the saved
    /// record, or why not.
    static func saveAlone(_ request: SaveRequest, parameters: [String?], on session: PostgresSession) throws
        -> BookRecord
    {
        let connection = try session.live()
        // Its own saves are not news to this session (see `PostgresChangeWatch.changes`): the
        // transaction is named in the same turn as the commit.
        let answer = session.ownWrites.withLock { ownWrites in
            let answer = connection.execute(PostgresStatements.save, parameters)
            if case let .success(rows) = answer, let row = rows.rows.first,
                row.count > PostgresStatements.recordWidth,
                let transaction = row[PostgresStatements.recordWidth]
            {
                ownWrites.insert(transaction)
            }
            return answer
        }
        switch answer {
        case let .success(rows):
            if let row = rows.rows.first {
                let saved = try PostgresRemote.record(row)
                // Read-your-writes: no later read may be served by a standby without it.
                session.standbyReads?.learnPrimaryPosition(connection)
                return saved
            }
            throw try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: false)
        case let .failure(.server(error)):
            throw try PostgresRemote.failure(of: request, error, on: session)
        case let .failure(unanswered):
            throw session.unansweredWrite(unanswered)
        }
    }

    /// Why the server refused a save, in the app's words.
    static func failure(of request: SaveRequest, _ error: PostgresServerError, on session: PostgresSession)
        throws -> BookFailure
    {
        switch error.sqlState {
        case PostgresServerError.insufficientPrivilege:
            return try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: true)
        case PostgresServerError.checkViolation:
            if let field = PostgresDetailsColumns.field(guardedBy: error.constraint) {
                // The app checked first: the catalog's rule is stricter than this build's.
                return BookFailure.invalidField(field, reason: "the catalog refused the value")
            }
            return error.constraint == "books_author_valid" ? BookFailure.invalidAuthor : BookFailure.invalidTitle
        case PostgresServerError.numericOutOfRange:
            return BookFailure.revisionExhausted
        case PostgresServerError.uniqueViolation:
            // This operation id already committed once; the book has moved on since.
            return try PostgresRemote.whyNotSaved(request, on: session, refusedByGrant: false)
        case PostgresServerError.queryCanceled:
            return BookFailure.storeUnavailable("the save took too long and was cancelled; nothing was changed")
        case PostgresServerError.undefinedColumn:
            return BookFailure.storeUnavailable(PostgresServerError.olderSchema)
        default:
            return BookFailure.storeUnavailable(error.message)
        }
    }

    // MARK: BatchRecordingRemote

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        let session = self.session
        return try await worker.perform {
            try session.readingWhatLaterReadsMustSee { connection in
                try PostgresRemote.insertBatch(start, on: connection)
            }
        }
    }

    /// A new batch, refused to a reader (no grant, no policy) and for an undo of a batch this
    /// account cannot see.
    static func insertBatch(_ start: BatchStart, on connection: PostgresConnection) throws -> BatchID {
        if let undone = start.undoes {
            let visible = try PostgresSession.read(
                connection.execute(PostgresStatements.batchVisible, [String(undone.number)]))
            guard !visible.rows.isEmpty else { throw BookFailure.missing }
        }
        switch connection.execute(PostgresStatements.beginBatch, [start.undoes.map { String($0.number) }]) {
        case let .success(rows):
            guard let text = rows.rows.first?[0], let number = Int(text) else { throw BookFailure.notAllowed }
            return BatchID(number)
        case let .failure(.server(error)) where error.sqlState == PostgresServerError.insufficientPrivilege:
            throw BookFailure.notAllowed
        case let .failure(.server(error)) where error.sqlState == PostgresServerError.undefinedTable:
            throw BookFailure.storeUnavailable(PostgresServerError.olderSchema)
        case let .failure(failure):
            _ = try PostgresSession.read(.failure(failure))
            throw BookFailure.invalidResponse
        }
    }

    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        let session = self.session
        return try await worker.perform {
            try session.readingWhatLaterReadsMustSee { connection in
                let visible = try PostgresSession.read(
                    connection.execute(PostgresStatements.batchVisible, [String(batch.number)]))
                guard !visible.rows.isEmpty else { throw BookFailure.missing }
                let rows = try PostgresSession.read(
                    connection.execute(PostgresStatements.batchRevisions, [String(batch.number)]))
                let width = PostgresStatements.recordWidth
                return try rows.rows.map { row in
                    guard row.count == 2 * width else { throw BookFailure.invalidResponse }
                    // The revision before is NULL where the history has none (LEFT JOIN).
                    return BatchRevision(
                        before: row[width] == nil ? nil : try PostgresRemote.record(Array(row[width...])),
                        after: try PostgresRemote.record(Array(row[..<width])))
                }
            }
        }
    }

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        // Nothing can match; without words the SQL below would list every book.
        guard !SearchTerms(query.text).hasNoSearchableWords else {
            return SearchPage(records: [], totalCount: .exact(0), source: .noSearchableWords)
        }
        let (sql, parameters, skip) = PostgresStatements.searchParameters(query)
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute(sql, parameters))
            }
            guard let first = rows.rows.first else {
                return SearchPage(records: [], totalCount: .exact(0), source: .searchFunction)
            }
            guard let countedText = first[0], let counted = Int(countedText), let estimated = first[1] else {
                throw BookFailure.invalidResponse
            }
            // Each row: total, whether estimated, rank, title sort key, then the record.
            let found = rows.rows.filter { $0.count > 4 && $0[4] != nil }.dropFirst(skip)
            let shown = Array(found.prefix(query.limit))
            let records = try shown.map { try PostgresRemote.record(Array($0[4...])) }
            let hasMore = found.count > shown.count
            var next: SearchCursor?
            if hasMore, let last = shown.last {
                guard let rankText = last[2], let rank = Int(rankText), let titleSort = last[3] else {
                    throw BookFailure.invalidResponse
                }
                next = PostgresSearchCursor(rank: rank, titleSort: titleSort, id: records[records.count - 1].id).cursor
            }
            let total =
                estimated == "t"
                ? TotalCount(estimate: counted, offset: query.offset, shown: records.count, hasMore: hasMore)
                : TotalCount(counted: counted, offset: query.offset, shown: records.count, hasMore: hasMore)
            return SearchPage(records: records, totalCount: total, next: next, source: .searchFunction)
        }
    }

    /// How many books this account sees, counted exactly (once per session, for a header:
    /// searches give only an estimate past `SearchPage.exactCountLimit`). Row-level security
    /// applies; on a million books it takes tens of milliseconds.
    public func bookCount() async throws -> Int {
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute("SELECT count(*) FROM bookshelf.books"))
            }
            guard let text = rows.rows.first?[0], let count = Int(text) else { throw BookFailure.invalidResponse }
            return count
        }
    }

    /// The accounts someone could sign in as on this server, by name (for an account
    /// switcher). Which of them this database knows is settled when signing in.
    public func accountNames() async throws -> [String] {
        let session = self.session
        return try await worker.perform {
            let rows = try session.reading { try PostgresSession.read($0.execute(PostgresStatements.accountNames)) }
            return rows.rows.compactMap { $0[0] }
        }
    }

    /// Each account's role in this catalog, by name (for an account switcher): its scope is
    /// for the account alone to read.
    public func accountRoles() async throws -> [String: AccountRole] {
        let session = self.session
        return try await worker.perform {
            let rows = try session.reading { try PostgresSession.read($0.execute(PostgresStatements.accountRoles)) }
            var roles: [String: AccountRole] = [:]
            for row in rows.rows {
                guard let name = row[0], let role = row[1].flatMap(AccountRole.init(rawValue:)) else { continue }
                if roles[name] == nil { roles[name] = role }
            }
            return roles
        }
    }

    /// Which server answered the last read of books, when reads are served by a standby.
    public nonisolated var lastReadRoute: PostgresReadRoute? {
        session.standbyReads?.lastRoute.withLock { $0 }
    }

    public func checkForChanges() async throws -> ChangeNotice? {
        let changeWatch = self.changeWatch
        return try await changeWorker.perform { try changeWatch.changes() }
    }

    public func committedRevision(of operation: UUID) async throws -> Int? {
        let session = self.session
        return try await worker.perform {
            let rows = try session.readingWhatLaterReadsMustSee {
                try PostgresSession.read($0.execute(PostgresStatements.committedRevision, [operation.uuidString]))
            }
            guard let row = rows.rows.first else { return nil }
            guard let text = row[0], let revision = Int(text) else { throw BookFailure.invalidResponse }
            return revision
        }
    }

    public func history(of id: Int) async throws -> [BookRevision] {
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute(PostgresStatements.history, [String(id)]))
            }
            guard !rows.rows.isEmpty else {
                // Every visible book has a history; none means the book is not visible.
                throw BookFailure.missing
            }
            return try rows.rows.map { row in
                // The record, then its account, time and operation.
                let width = PostgresStatements.recordWidth
                guard row.count == width + 4, let millisecondsText = row[width + 1],
                    let milliseconds = Double(millisecondsText)
                else {
                    throw BookFailure.invalidResponse
                }
                return BookRevision(
                    record: try PostgresRemote.record(Array(row[..<width])), account: row[width],
                    savedAt: Date(timeIntervalSince1970: milliseconds / 1000),
                    operation: row[width + 2].flatMap(UUID.init(uuidString:)),
                    batch: row[width + 3].flatMap { Int($0) }.map(BatchID.init))
            }
        }
    }

    public func deletion(of id: Int) async throws -> BookDeletion? {
        let session = self.session
        let note = ReadRouteNote.current
        return try await performRead { abandoned in
            let rows = try session.readingBooks(noting: note, abandoned: abandoned) {
                try PostgresSession.read($0.execute(PostgresStatements.deletion, [String(id)]))
            }
            guard let row = rows.rows.first else { return nil }
            guard row.count == 3, let revisionText = row[0], let revision = Int(revisionText),
                let millisecondsText = row[1], let milliseconds = Double(millisecondsText),
                let sourceText = row[2], let source = ImportSourceKind(rawValue: sourceText)
            else { throw BookFailure.invalidResponse }
            return BookDeletion(
                bookID: id, revision: revision, deletedAt: Date(timeIntervalSince1970: milliseconds / 1000),
                source: source)
        }
    }

    /// A read of books on the worker. The caller's cancellation (a newer search superseded
    /// it) reaches the read as an abandonment: it stops waiting for a standby at once.
    func performRead<T: Sendable>(_ work: @escaping @Sendable (ReadAbandonment) throws -> T) async throws
        -> T
    {
        let abandonment = ReadAbandonment()
        let worker = self.worker
        return try await withTaskCancellationHandler {
            try await worker.perform { try work(abandonment) }
        } onCancel: {
            abandonment.abandon()
        }
    }

    // MARK: Rules

    /// No row changed: the book is gone or invisible (missing), someone saved first
    /// (conflict), or the database refused this account (notAllowed).
    static func whyNotSaved(_ request: SaveRequest, on session: PostgresSession, refusedByGrant: Bool) throws
        -> BookFailure
    {
        let rows = try session.readingWhatLaterReadsMustSee {
            try PostgresSession.read($0.execute(PostgresStatements.currentRevision, [String(request.id)]))
        }
        guard let text = rows.rows.first?[0] else { return .missing }
        guard let actual = Int(text) else { return .invalidResponse }
        if refusedByGrant { return .notAllowed }
        return actual == request.expectedRevision
            ? .notAllowed : .conflict(expected: request.expectedRevision, actual: actual)
    }

    /// A record from the columns `PostgresStatements.recordColumns` lists (any after them are
    /// the statement's own).
    static func record(_ row: [String?]) throws -> BookRecord {
        guard row.count >= PostgresStatements.recordWidth, let idText = row[0], let id = Int(idText),
            let title = row[1], let revisionText = row[2], let revision = Int(revisionText), let author = row[3]
        else { throw BookFailure.invalidResponse }
        let details = try PostgresDetailsColumns.details(row[4..<PostgresStatements.recordWidth])
        return BookRecord(id: id, title: title, revision: revision, author: author, details: details)
    }
}

extension PostgresSession {
    /// What a write whose statement got no answer (not a server's refusal) means: not sent,
    /// nothing was done (`storeUnavailable`); sent and then lost, it may have committed
    /// (`outcomeUnknown`). The dead connection is dropped, for the next call to reconnect.
    func unansweredWrite(_ failure: PostgresCallFailure) -> BookFailure {
        dropIfBroken()
        if case let .notSent(message) = failure { return .storeUnavailable(message) }
        return .outcomeUnknown
    }

    /// The rows of a statement inside a write transaction. A lost connection takes the
    /// transaction with it (`storeUnavailable`: nothing committed, as COMMIT was not sent); a
    /// refusal of the server ends it too. A caller that names a book's refusal looks first.
    @discardableResult
    func rowsInTransaction(_ answer: Result<PostgresRows, PostgresCallFailure>) throws -> PostgresRows {
        switch answer {
        case let .success(rows):
            return rows
        case let .failure(.notSent(message)), let .failure(.lostAfterSending(message)):
            dropIfBroken()
            throw BookFailure.storeUnavailable(message)
        case let .failure(.server(error)):
            throw BookFailure.storeUnavailable(error.message)
        }
    }

    /// Commits the write transaction open on `connection`. Its own saves are not news to this
    /// session (see `PostgresChangeWatch.changes`): `transaction` is named in the same turn as
    /// the commit, and only the commit takes the turn, so the change check is not kept waiting
    /// while the transaction's statements run. Throws as a lone save's answer would.
    func commitOwnWrite(_ transaction: String?, on connection: PostgresConnection) throws {
        let committed = ownWrites.withLock { ownWrites in
            if let transaction { ownWrites.insert(transaction) }
            return connection.execute("COMMIT")
        }
        switch committed {
        case .success:
            // Read-your-writes: no later read may be served by a standby without them.
            standbyReads?.learnPrimaryPosition(connection)
        case let .failure(.server(error)):
            // A refused COMMIT rolls the transaction back.
            throw BookFailure.storeUnavailable(error.message)
        case let .failure(unanswered):
            // Sent and then lost: nobody knows whether it committed.
            throw unansweredWrite(unanswered)
        }
    }

    /// A read of books (a search, a page, a record, its history, the count), served by a
    /// standby when the connector says so and the standby has replayed what this session has
    /// seen; otherwise by the primary, as every other read is. `note` (the caller's
    /// `ReadRouteNote`, taken from its task before the hop to the worker) learns which server
    /// answered, when reads are meant for a standby: read here, on the worker, the route is
    /// this read's and no other call's.
    /// A read `abandoned` (its caller gave it up) before or while it waits for a standby throws
    /// `CancellationError`: its answer can never be shown.
    func readingBooks<T>(
        noting note: ReadRouteNote? = nil, abandoned: ReadAbandonment? = nil, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        guard let standbyReads else { return try reading(body) }
        let value: T
        if let answer = try standbyReads.readOnStandby(abandoned: abandoned, body) {
            value = answer.value
        } else {
            if abandoned?.isAbandoned == true { throw CancellationError() }
            value = try reading { try standbyReads.readOnPrimary($0, body) }
        }
        if let note, let route = standbyReads.lastRoute.withLock({ $0 }) {
            note.note(
                ReadRoute(server: route.server, servedByStandby: route.servedByStandby, fellBack: route.fellBack))
        }
        return value
    }

    /// A read on the primary whose answer the user acts on (the revision a conflict names, a
    /// save settled after its outcome was unknown): later reads, wherever served, must not be
    /// older than it.
    func readingWhatLaterReadsMustSee<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try reading { connection in
            let value = try body(connection)
            standbyReads?.learnPrimaryPosition(connection)
            return value
        }
    }

    /// Runs a read on a live connection; a connection that died during it is dropped. One
    /// that died while idle (a server restart, a terminated backend) is found dead only when
    /// used: a read is safe to send again, so it is, once, on a fresh connection.
    func reading<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try live()
        do {
            defer { dropIfBroken() }
            return try body(connection)
        } catch {
            guard connection.isBroken else { throw error }
            let fresh = try live()
            defer { dropIfBroken() }
            return try body(fresh)
        }
    }
}
