import BookCatalog

/// A session's change check, on a connection to the primary of its own, run on a worker of its
/// own: it never waits behind the session's reads, so a read that waits for a lagging standby
/// (or a long search) cannot make a check late, and a late check means that the primary itself
/// did not answer. Touched only on its worker's serial queue (hence `@unchecked Sendable`).
///
/// The connection LISTENs on the catalog's channel (NOTIFY is not replicated: only the
/// primary's listeners hear it). It opens with the session, so that the first check compares
/// against the sign-in's snapshot on the same server; any later connection (after a restart or
/// a failover) cannot tell what it missed, and its first check says everything may have changed.
final class PostgresChangeWatch: @unchecked Sendable {
    private let session: PostgresSession
    private var connection: PostgresConnection?
    /// The snapshot the next check compares against (pg_snapshot text): the sign-in's until a
    /// check answers.
    private var snapshot: String
    /// The connection was replaced: the check cannot tell what it missed.
    private var reconnectedSinceLastCheck = false

    /// Connects at once (blocking; call on the worker); `password` (typed for the sign-in)
    /// serves this handshake only. When that fails, the first check connects and says
    /// everything may have changed.
    init(session: PostgresSession, password: String?) {
        self.session = session
        snapshot = session.signInSnapshot
        if let fresh = try? PostgresConnection(session.connector, password: password),
            (try? session.confirmSameAccount(on: fresh, listening: true)) != nil
        {
            connection = fresh
        } else {
            reconnectedSinceLastCheck = true
        }
    }

    /// Books changed by other sessions since the last call, or `.unspecified` once after a
    /// reconnect. Notifications carry nothing (any role may listen to the one channel), so
    /// every check asks the database which rows this role can read were written by
    /// transactions the previous snapshot did not see. That does not depend on when a
    /// notification arrives, so no commit is missed however the two race. The same statement
    /// reads the account's row: a role or scope an administrator changed comes back as the
    /// notice's `account` (a new scope with every book, for it is other books).
    func changes() throws -> ChangeNotice? {
        let connection = try live()
        let (rows, ownWrites) = try session.ownWrites.withLock { ownWrites in
            // In the save's turn: every save whose commit this statement can see has named its
            // transaction by now.
            let rows = try PostgresSession.read(connection.execute(PostgresStatements.changesSince, [snapshot]))
            let seen = ownWrites
            ownWrites.removeAll()
            return (rows, seen)
        }
        if connection.isBroken { self.connection = nil }
        _ = connection.takeNotifications()
        guard let first = rows.rows.first, let newSnapshot = first[0] else { throw BookFailure.invalidResponse }
        snapshot = newSnapshot
        // The refresh this check may start must see what it found, wherever it is served.
        if let standbyReads = session.standbyReads {
            standbyReads.learnPrimaryPosition(connection)
            standbyReads.changeCheckPassed()
        }
        let scopeBefore = session.account.scope
        let changedAccount = try session.learnAccount(role: first[3], scope: first[4])
        if reconnectedSinceLastCheck {
            reconnectedSinceLastCheck = false
            return ChangeNotice(bookIDs: nil, account: changedAccount, reconnected: true)
        }
        var ids = Set<Int>()
        for row in rows.rows {
            guard let idText = row[1] else { continue }
            guard let id = Int(idText), let writer = row[2] else { throw BookFailure.invalidResponse }
            if !ownWrites.contains(writer) { ids.insert(id) }
        }
        if let changedAccount {
            // Another scope is other books: everything shown may be wrong.
            return ChangeNotice(bookIDs: changedAccount.scope == scopeBefore ? ids : nil, account: changedAccount)
        }
        return ids.isEmpty ? nil : ChangeNotice(bookIDs: ids)
    }

    /// Signs the check's connection in again as the session's account; `password` (typed by
    /// the user) serves this handshake only.
    func reconnect(password: String?) throws {
        let fresh = try PostgresConnection(session.connector, password: password)
        let snapshot = try session.confirmSameAccount(on: fresh, listening: true)
        connection = fresh
        // Commits between the old connection's last check and this snapshot went unseen.
        self.snapshot = snapshot
        reconnectedSinceLastCheck = true
    }

    private func live() throws -> PostgresConnection {
        if let connection, connection.absorbPendingInput() { return connection }
        connection = nil
        do {
            try reconnect(password: nil)
        } catch PostgresConnectFailure.passwordRequired {
            throw PasswordNeededAgain(account: session.account.name)
        }
        guard let connection else { throw BookFailure.storeUnavailable("no connection") }
        return connection
    }
}
