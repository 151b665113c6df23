import BookCatalog
import Foundation
import Locking

/// One account's connection and what survives reconnecting it. Touched only on its
/// worker's serial queue (hence `@unchecked Sendable`): that queue is the lock. The change
/// check has a connection and a worker of its own (`PostgresChangeWatch`), so that it never
/// waits behind reads; what the two share (the account, the session's own writes, the floor)
/// is behind locks.
///
/// A dead connection is dropped and replaced on the next call.
final class PostgresSession: @unchecked Sendable {
    let connector: PostgresConnector
    /// The account as the last sign-in or change check found it. An administrator may change
    /// its role or scope while the session is open; read from any thread (the remote's
    /// `account`), hence the lock.
    private let knownAccount: Locked<Account>
    var account: Account { knownAccount.withLock { $0 } }
    let channel: String
    private var connection: PostgresConnection?
    /// The snapshot taken at sign-in: the change check's first comparison, wherever its own
    /// connection is opened later.
    let signInSnapshot: String
    /// Transactions of this session's own saves not yet passed by a change check. The lock is
    /// also the turn a save's statement and a change check take one at a time: a check that
    /// saw a save's commit must also know its transaction, or it would report the session's own
    /// save as another's change.
    let ownWrites = Locked<Set<String>>([])
    /// Present when reads are served by a standby (`--reads standby`).
    let standbyReads: StandbyReads<PostgresConnection>?

    /// Signs in (blocking; call on the worker). The password serves this handshake only.
    init(connector: PostgresConnector, password: String?) throws {
        self.connector = connector
        let connection = try PostgresConnection(connector, password: password)
        let (account, channel, snapshot) = try PostgresSession.prepare(connection, connector: connector)
        self.knownAccount = Locked(account)
        self.channel = channel
        self.signInSnapshot = snapshot
        self.connection = connection
        standbyReads = connector.reads == .standby ? StandbyReads(connector: connector, password: password) : nil
    }

    /// A live connection, reconnecting if the last one died. Throws `storeUnavailable` when
    /// the server cannot be reached.
    func live() throws -> PostgresConnection {
        if let connection, connection.absorbPendingInput() { return connection }
        connection = nil
        do {
            return try reconnect(password: nil)
        } catch PostgresConnectFailure.passwordRequired {
            throw PasswordNeededAgain(account: account.name)
        }
    }

    /// Signs in again as the same account; `password` (typed by the user) serves this
    /// handshake only and is not kept.
    func reconnect(password: String?) throws -> PostgresConnection {
        let fresh = try PostgresConnection(connector, password: password)
        try confirmSameAccount(on: fresh)
        connection = fresh
        return fresh
    }

    /// Prepares a new connection of this session (its own or the change check's) and checks it
    /// still signs in as the account the session began as. Returns the snapshot it took.
    @discardableResult
    func confirmSameAccount(on fresh: PostgresConnection, listening: Bool = false) throws -> String {
        let (again, channel, snapshot) = try PostgresSession.prepare(fresh, connector: connector, listening: listening)
        // The role and scope may have changed meanwhile: the next change check tells.
        guard again.name == account.name, channel == self.channel else {
            throw BookFailure.storeUnavailable("this account was changed on the server; sign in again")
        }
        return snapshot
    }

    /// Forgets a connection that died, so the next call reconnects.
    func dropIfBroken() {
        if connection?.isBroken == true { connection = nil }
    }

    /// The account's role and scope as the database says now; the new account when an
    /// administrator changed either since the last look. A removed account (NULLs) is left
    /// to the requests it will make fail.
    func learnAccount(role roleText: String?, scope: String?) throws -> Account? {
        guard let roleText, let scope else { return nil }
        guard let role = AccountRole(rawValue: roleText) else { throw BookFailure.invalidResponse }
        return knownAccount.withLock { known in
            let now = Account(name: known.name, role: role, scope: scope)
            guard now != known else { return nil }
            known = now
            return now
        }
    }

    /// Session settings, the account behind the login role, LISTEN (on the change check's
    /// connection) and a snapshot: done on every (re)connect, LISTEN before anything is read so
    /// no later commit goes unnoticed.
    static func prepare(_ connection: PostgresConnection, connector: PostgresConnector, listening: Bool = false)
        throws -> (
            Account, String, String
        )
    {
        connection.useNonBlockingSends()
        let milliseconds =
            connector.statementTimeout.components.seconds * 1000
            + connector.statementTimeout.components.attoseconds / 1_000_000_000_000_000
        _ = try PostgresSession.read(connection.execute(PostgresStatements.sessionSettings, [String(milliseconds)]))
        let answer = connection.execute(PostgresStatements.account)
        if case let .failure(.server(error)) = answer, error.sqlState == PostgresServerError.insufficientPrivilege {
            // Not in this catalog's groups: never made an account here, or removed.
            let user = try PostgresSession.read(connection.execute("SELECT current_user::text"))
            throw PostgresConnectFailure.noAccount(role: user.rows.first?[0] ?? "")
        }
        let rows = try PostgresSession.read(answer)
        guard let row = rows.rows.first, let roleName = row[0] else { throw BookFailure.invalidResponse }
        guard let roleText = row[1], let scope = row[2], let channel = row[3] else {
            throw PostgresConnectFailure.noAccount(role: roleName)
        }
        guard let role = AccountRole(rawValue: roleText) else { throw BookFailure.invalidResponse }
        if listening {
            _ = try PostgresSession.read(connection.executeQuoted("LISTEN " + connection.quotedIdentifier(channel)))
        }
        let snapshot = try PostgresSession.read(connection.execute(PostgresStatements.snapshot))
        guard let text = snapshot.rows.first?[0] else { throw BookFailure.invalidResponse }
        return (Account(name: roleName, role: role, scope: scope), channel, text)
    }

    /// The rows of a read, or the failure as the app understands it.
    static func read(_ result: Result<PostgresRows, PostgresCallFailure>) throws -> PostgresRows {
        switch result {
        case let .success(rows): return rows
        case let .failure(.notSent(message)), let .failure(.lostAfterSending(message)):
            throw BookFailure.storeUnavailable(message)
        case let .failure(.server(error)):
            if error.sqlState == PostgresServerError.queryCanceled {
                throw BookFailure.storeUnavailable("the server took too long to answer")
            }
            if error.sqlState == PostgresServerError.insufficientPrivilege {
                // Reads are filtered by row-level security, never refused: a refusal means the
                // signed-in role lost its group, as when its account is removed or its role dropped.
                throw BookFailure.storeUnavailable(
                    "this account no longer exists in the catalog (removed, or its role dropped); sign in as another")
            }
            // 42883: a search function of an older schema takes fewer arguments.
            if error.sqlState == PostgresServerError.undefinedColumn || error.sqlState == "42883" {
                throw BookFailure.storeUnavailable(PostgresServerError.olderSchema)
            }
            if error.sqlState == "42P01" || error.sqlState == "3F000" {
                throw BookFailure.storeUnavailable("this database has no Bookshelf catalog yet (run bookshelf setup)")
            }
            throw BookFailure.storeUnavailable(error.message)
        }
    }
}
