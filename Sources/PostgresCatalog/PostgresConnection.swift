import BookCatalog
import CLibPQ
import Foundation
import Locking
#if canImport(Glibc)
    import Glibc
#endif

/// An error the server reported for one statement; the connection is still usable.
struct PostgresServerError: Error, Sendable, CustomStringConvertible {
    let sqlState: String
    let message: String
    let constraint: String?

    var description: String { message }

    static let insufficientPrivilege = "42501"
    static let checkViolation = "23514"
    static let uniqueViolation = "23505"
    static let numericOutOfRange = "22003"
    static let queryCanceled = "57014"
    static let undefinedColumn = "42703"
    static let undefinedTable = "42P01"

    /// Why a session cannot use a catalog that lacks a column this Bookshelf reads: its schema
    /// is older (an administrator has not run setup since upgrading).
    static let olderSchema = "this catalog's schema is older than this Bookshelf (run bookshelf setup to migrate it)"
}

/// Why a statement produced no answer.
enum PostgresCallFailure: Error {
    /// Nothing reached the server: no connection, or the send itself was refused.
    case notSent(String)
    /// The statement was sent, then the connection died or the deadline passed before the
    /// answer came. A write may or may not have committed.
    case lostAfterSending(String)
    /// The server answered with an error.
    case server(PostgresServerError)
}

/// The rows of one answer, copied out of libpq (text format; NULL is nil).
struct PostgresRows: Sendable {
    let rows: [[String?]]

    var isEmpty: Bool { rows.isEmpty }
}

/// One notification received on a LISTENed channel.
struct PostgresNotification: Sendable {
    let channel: String
    let senderPID: Int32
    let payload: String
}

/// One libpq connection. Not thread-safe, like libpq itself: its owner calls it from one
/// serial queue only (see `PostgresWorker`). Calls may block that queue, never the caller's
/// actor, and each statement waits on the socket with a deadline so a lost server never hangs.
final class PostgresConnection {
    private let handle: OpaquePointer
    private let deadlineSlack: Duration = .seconds(5)
    let statementTimeout: Duration
    /// Whether the server said it was a standby when last asked for its log position
    /// (`walPosition()`, standby reads only).
    var answeredAsStandby = false

    /// Connects (blocking up to the connector's connect timeout). The password is used for
    /// this handshake only and is not kept.
    init(_ connector: PostgresConnector, password: String?, purpose: PostgresConnectionPurpose = .writes) throws {
        if let reason = bookshelf_libpq_unavailable() {
            throw BookFailure.storeUnavailable(String(cString: reason))
        }
        let pairs = connector.parameters(password: password, purpose: purpose)
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            // Overwrite the password copy before freeing it.
            values.forEach { value in
                if let value { memset(value, 0, strlen(value)) }
                free(value)
            }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectdbParams(keywordPointers, valuePointers, 1) else {
            throw BookFailure.storeUnavailable("out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let needsPassword = PQconnectionNeedsPassword(connection) == 1
            // The server asked for the password it was given and refused it.
            let refusedGivenPassword = !(password ?? "").isEmpty && PQconnectionUsedPassword(connection) == 1
            let message = PostgresConnection.errorMessage(of: connection)
            PQfinish(connection)
            if needsPassword && (password ?? "").isEmpty { throw PostgresConnectFailure.passwordRequired }
            if refusedGivenPassword { throw PostgresConnectFailure.passwordRejected(message) }
            if let refusal = PostgresRefusal.connectFailure(message, connector: connector, password: password) {
                throw BookFailure.storeRefused(refusal)
            }
            throw BookFailure.storeUnavailable(message)
        }
        // Server notices (NOTICE, WARNING) are not the user's business; libpq would print them to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        statementTimeout = connector.statementTimeout
    }

    deinit { PQfinish(handle) }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    var backendPID: Int32 { PQbackendPID(handle) }

    /// What asks the server to cancel this connection's statement in flight, from another
    /// thread, until it is closed.
    func canceller() -> PostgresStatementCanceller { PostgresStatementCanceller(PQgetCancel(handle)) }

    /// The host (or socket directory) and port libpq settled on, of the several a string may
    /// name: said in traces, never used to connect.
    var server: String {
        let host = PQhost(handle).map { String(cString: $0) } ?? ""
        let port = PQport(handle).map { String(cString: $0) } ?? ""
        return port.isEmpty ? host : host + ":" + port
    }

    /// Switches to non-blocking sends, so a full socket buffer cannot stall a statement past
    /// its deadline.
    func useNonBlockingSends() { PQsetnonblocking(handle, 1) }

    /// Reads whatever the server already sent (notifications, or the error a server sends
    /// when it shuts down) without waiting. False if the connection turned out to be dead.
    @discardableResult
    func absorbPendingInput() -> Bool {
        // Until the socket has nothing more: a server that ends a session first sends its
        // error message and then closes, and libpq sees the close only on a later read.
        while !isBroken, wait(for: Int16(POLLIN), until: .now) == .ready {
            if PQconsumeInput(handle) == 0 { return false }
        }
        return !isBroken
    }

    /// Notifications received so far, oldest first.
    func takeNotifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let notice = PQnotifies(handle) {
            received.append(
                PostgresNotification(
                    channel: String(cString: notice.pointee.relname),
                    senderPID: notice.pointee.be_pid,
                    payload: notice.pointee.extra.map { String(cString: $0) } ?? ""))
            PQfreemem(notice)
        }
        return received
    }

    /// `text` quoted as an SQL identifier by libpq, for the few statements (LISTEN, CREATE
    /// ROLE) that cannot take a bound parameter.
    func quotedIdentifier(_ text: String) throws -> String {
        guard let quoted = PQescapeIdentifier(handle, text, text.utf8.count) else {
            throw BookFailure.storeUnavailable(PostgresConnection.errorMessage(of: handle))
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// `text` quoted as an SQL string literal by libpq (for DDL that cannot take parameters).
    func quotedLiteral(_ text: String) throws -> String {
        guard let quoted = PQescapeLiteral(handle, text, text.utf8.count) else {
            throw BookFailure.storeUnavailable(PostgresConnection.errorMessage(of: handle))
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// The password hashed by libpq for `ALTER ROLE ... PASSWORD`, so the clear text never
    /// reaches the server or its logs.
    func encryptedPassword(_ password: String, user: String) throws -> String {
        guard let hashed = PQencryptPasswordConn(handle, password, user, nil) else {
            throw BookFailure.storeUnavailable(PostgresConnection.errorMessage(of: handle))
        }
        defer { PQfreemem(hashed) }
        return String(cString: hashed)
    }

    // MARK: Statements

    /// Runs one parameterised statement (values bound in text format, never spliced into the
    /// SQL) and returns its rows.
    func execute(_ sql: String, _ parameters: [String?] = []) -> Result<PostgresRows, PostgresCallFailure> {
        guard !isBroken else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        let sent = PQsendQueryParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        guard sent == 1 else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        return collect(deadline: .now + statementTimeout + deadlineSlack)
    }

    /// Parses and analyses `sql` once as the connection's unnamed statement, for
    /// `executePrepared` to run many times: the server then neither parses it again for each
    /// run nor, after a few runs, plans it again (it keeps a generic plan when that costs no
    /// more). The statement lasts until the next `execute` or `prepare`, which replace it,
    /// so a caller prepares again after any other statement. Being unnamed, it never outlives
    /// its use on a server connection that a pooler (PgBouncer) hands on to someone else.
    /// The server infers each parameter's type from the statement, as for `execute`.
    func prepare(_ sql: String) -> Result<PostgresRows, PostgresCallFailure> {
        guard !isBroken else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        guard PQsendPrepare(handle, "", sql, 0, nil) == 1 else {
            return .failure(.notSent(PostgresConnection.errorMessage(of: handle)))
        }
        return collect(deadline: .now + statementTimeout + deadlineSlack)
    }

    /// Runs the statement `prepare` parsed last, with these values (bound in text format).
    func executePrepared(_ parameters: [String?]) -> Result<PostgresRows, PostgresCallFailure> {
        guard !isBroken else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        let sent = PQsendQueryPrepared(handle, "", Int32(parameters.count), pointers, nil, nil, 0)
        guard sent == 1 else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        return collect(deadline: .now + statementTimeout + deadlineSlack)
    }

    /// Runs constant SQL text that may hold several statements (migrations). Takes no values:
    /// anything that varies goes through `execute` with parameters.
    func executeScript(_ sql: StaticString) -> Result<PostgresRows, PostgresCallFailure> {
        guard !isBroken else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        let sent = sql.withUTF8Buffer { buffer in
            String(decoding: buffer, as: UTF8.self).withCString { PQsendQuery(handle, $0) }
        }
        guard sent == 1 else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        return collect(deadline: .now + statementTimeout + deadlineSlack)
    }

    /// Runs DDL built from constant text and libpq-quoted names (see `quotedIdentifier`), or a
    /// migration file embedded in the program (`PostgresSchema`); no other text may reach it.
    func executeQuoted(_ sql: String) -> Result<PostgresRows, PostgresCallFailure> {
        guard !isBroken else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        guard PQsendQuery(handle, sql) == 1 else {
            return .failure(.notSent(PostgresConnection.errorMessage(of: handle)))
        }
        return collect(deadline: .now + statementTimeout + deadlineSlack)
    }

    /// Streams rows into `COPY ... FROM STDIN` (text format). `lines` yields each row already
    /// escaped by `PostgresCopyText`.
    func copyIn(_ sql: StaticString, lines: some Sequence<String>) -> Result<PostgresRows, PostgresCallFailure> {
        let started = sql.withUTF8Buffer { buffer in
            String(decoding: buffer, as: UTF8.self).withCString { PQsendQuery(handle, $0) }
        }
        guard started == 1 else { return .failure(.notSent(PostgresConnection.errorMessage(of: handle))) }
        guard let result = PQgetResult(handle) else { return .failure(.lostAfterSending("no answer to COPY")) }
        let status = PQresultStatus(result)
        if status != PGRES_COPY_IN {
            let failure = serverError(result)
            PQclear(result)
            _ = collect(deadline: .now + statementTimeout)
            return .failure(.server(failure))
        }
        PQclear(result)
        var chunk = ""
        chunk.reserveCapacity(1 << 20)
        for line in lines {
            chunk += line
            if chunk.utf8.count >= 1 << 20 {
                guard putCopyData(chunk) else { return .failure(.lostAfterSending(errorMessage)) }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        guard putCopyData(chunk), PQputCopyEnd(handle, nil) == 1 else {
            return .failure(.lostAfterSending(errorMessage))
        }
        return collect(deadline: .now + .seconds(3600))
    }

    private func putCopyData(_ text: String) -> Bool {
        guard !text.isEmpty else { return true }
        var text = text
        return text.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) == 1 }
        }
    }

    var errorMessage: String { PostgresConnection.errorMessage(of: handle) }

    /// Waits for every result of the statement just sent. A server error is returned only if
    /// the connection survived it (a terminated backend answers with an error and then closes:
    /// that is a lost connection, not an answer).
    private func collect(deadline: ContinuousClock.Instant) -> Result<PostgresRows, PostgresCallFailure> {
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { break }
            if flushed < 0 { return .failure(.lostAfterSending(errorMessage)) }
            switch wait(for: Int16(POLLIN | POLLOUT), until: deadline) {
            case .ready: if PQconsumeInput(handle) == 0 { return .failure(.lostAfterSending(errorMessage)) }
            case .timedOut: return abandon()
            case .failed: return .failure(.lostAfterSending(errorMessage))
            }
        }
        var rows: [[String?]] = []
        var failure: PostgresServerError?
        while true {
            while PQisBusy(handle) == 1 {
                switch wait(for: Int16(POLLIN), until: deadline) {
                case .ready: if PQconsumeInput(handle) == 0 { return .failure(.lostAfterSending(errorMessage)) }
                case .timedOut: return abandon()
                case .failed: return .failure(.lostAfterSending(errorMessage))
                }
            }
            guard let result = PQgetResult(handle) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE: rows += copyRows(result)
            case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY: break
            default: failure = failure ?? serverError(result)
            }
        }
        if isBroken { return .failure(.lostAfterSending(failure?.message ?? errorMessage)) }
        if let failure { return .failure(.server(failure)) }
        return .success(PostgresRows(rows: rows))
    }

    /// Gives up on a statement whose answer is overdue: asks the server to cancel it and
    /// treats the connection as lost (its pending answer can no longer be matched to a caller).
    private func abandon() -> Result<PostgresRows, PostgresCallFailure> {
        if let cancel = PQgetCancel(handle) {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &buffer, Int32(buffer.count))
            PQfreeCancel(cancel)
        }
        // Closing the socket marks the connection broken; the owner reconnects next time.
        shutdown(PQsocket(handle), Int32(SHUT_RDWR))
        _ = PQconsumeInput(handle)
        return .failure(.lostAfterSending("the server did not answer in time"))
    }

    private enum WaitOutcome { case ready, timedOut, failed }

    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> WaitOutcome {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return .failed }
        while true {
            let remaining = deadline - .now
            let milliseconds = max(
                0,
                Int32(
                    clamping: remaining.components.seconds * 1000
                        + remaining.components.attoseconds / 1_000_000_000_000_000))
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let answer = poll(&descriptor, 1, milliseconds)
            if answer > 0 { return .ready }
            if answer == 0 { return .timedOut }
            if errno != EINTR { return .failed }
        }
    }

    private func copyRows(_ result: OpaquePointer) -> [[String?]] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        return (0..<rowCount).map { row in
            (0..<columnCount).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    private func serverError(_ result: OpaquePointer) -> PostgresServerError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        // Field codes from postgres_ext.h: 'C' SQLSTATE, 'M' primary message, 'n' constraint.
        return PostgresServerError(
            sqlState: field("C") ?? "XX000",
            message: field("M") ?? PostgresConnection.errorMessage(of: handle),
            constraint: field("n"))
    }

    static func errorMessage(of connection: OpaquePointer) -> String {
        let text = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "the connection to the server was lost" : trimmed
    }
}

/// Asks the server to cancel a connection's statement in flight: `PQcancel` is made to be
/// called from a thread other than the connection's. A cancel that reaches the server after
/// the statement has answered finds the connection waiting for its next statement, and the
/// server drops it (it ignores a cancel while it reads a command). The statement's owner
/// closes the canceller once the answer is in: `close` waits for a cancel on its way, so that
/// none can reach the statement sent after it.
final class PostgresStatementCanceller: Sendable {
    /// The libpq cancel object (`PGcancel *`), nil once closed; its lock is held while a cancel
    /// is sent.
    private let cancelObject: Locked<OpaquePointer?>

    init(_ cancelObject: OpaquePointer?) { self.cancelObject = Locked(cancelObject) }

    deinit { close() }

    /// Sends the cancel request (it connects to the server anew: some milliseconds).
    func cancel() {
        cancelObject.withLock { object in
            guard let object else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(object, &buffer, Int32(buffer.count))
        }
    }

    func close() {
        cancelObject.withLock { object in
            if let object { PQfreeCancel(object) }
            object = nil
        }
    }
}
