import BookCatalog
import Foundation
import Locking

/// One account's connection and what survives reconnecting it. Touched only on its
/// worker's serial queue (hence `@unchecked Sendable`): that queue is the lock.
///
/// A dead connection is dropped and replaced on the next call; the next `changes()`
/// answers "everything may have changed", because the session cannot tell what it missed.
final class PostgresSession: @unchecked Sendable {
    let connector: PostgresConnector
    /// The account as the last sign-in or change check found it. An administrator may change
    /// its role or scope while the session is open; read from any thread (the remote's
    /// `account`), hence the lock.
    private let knownAccount: Locked<Account>
    var account: Account { knownAccount.withLock { $0 } }
    private let channel: String
    private var connection: PostgresConnection?
    private var reconnectedSinceLastCheck = false
    /// The snapshot the next `changes()` compares against (pg_snapshot text).
    private var snapshot: String
    private var ownWrites: Set<String> = []
    /// Present when reads are served by a standby (`--reads standby`).
    let standbyReads: StandbyReads<PostgresConnection>?

    /// Signs in (blocking; call on the worker). The password serves this handshake only.
    init(connector: PostgresConnector, password: String?) throws {
        self.connector = connector
        let connection = try PostgresConnection(connector, password: password)
        let (account, channel, snapshot) = try PostgresSession.prepare(connection, connector: connector)
        self.knownAccount = Locked(account)
        self.channel = channel
        self.snapshot = snapshot
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
        let (again, channel, snapshot) = try PostgresSession.prepare(fresh, connector: connector)
        // The role and scope may have changed meanwhile: the next `changes()` tells.
        guard again.name == account.name, channel == self.channel else {
            throw BookFailure.storeUnavailable("this account was changed on the server; sign in again")
        }
        connection = fresh
        self.snapshot = snapshot
        reconnectedSinceLastCheck = true
        return fresh
    }

    /// Forgets a connection that died, so the next call reconnects.
    func dropIfBroken() {
        if connection?.isBroken == true { connection = nil }
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
        let rows = try PostgresSession.read(connection.execute(PostgresStatements.changesSince, [snapshot]))
        dropIfBroken()
        _ = connection.takeNotifications()
        guard let first = rows.rows.first, let newSnapshot = first[0] else { throw BookFailure.invalidResponse }
        snapshot = newSnapshot
        // The refresh this check may start must see what it found, wherever it is served.
        standbyReads?.learnPrimaryPosition(connection)
        let scopeBefore = account.scope
        let changedAccount = try learnAccount(role: first[3], scope: first[4])
        if reconnectedSinceLastCheck {
            reconnectedSinceLastCheck = false
            ownWrites.removeAll()
            return ChangeNotice(bookIDs: nil, account: changedAccount)
        }
        var ids = Set<Int>()
        for row in rows.rows {
            guard let idText = row[1] else { continue }
            guard let id = Int(idText), let writer = row[2] else { throw BookFailure.invalidResponse }
            if !ownWrites.contains(writer) { ids.insert(id) }
        }
        ownWrites.removeAll()
        if let changedAccount {
            // Another scope is other books: everything shown may be wrong.
            return ChangeNotice(bookIDs: changedAccount.scope == scopeBefore ? ids : nil, account: changedAccount)
        }
        return ids.isEmpty ? nil : ChangeNotice(bookIDs: ids)
    }

    /// The account's role and scope as the database says now; the new account when an
    /// administrator changed either since the last look. A removed account (NULLs) is left
    /// to the requests it will make fail.
    private func learnAccount(role roleText: String?, scope: String?) throws -> Account? {
        guard let roleText, let scope else { return nil }
        guard let role = AccountRole(rawValue: roleText) else { throw BookFailure.invalidResponse }
        return knownAccount.withLock { known in
            let now = Account(name: known.name, role: role, scope: scope)
            guard now != known else { return nil }
            known = now
            return now
        }
    }

    /// A transaction of this session's own save, left out of the next `changes()`.
    func rememberOwnWrite(_ transaction: String) {
        ownWrites.insert(transaction)
    }

    /// Session settings, the account behind the login role, and LISTEN: done on every
    /// (re)connect, LISTEN before anything is read so no later commit goes unnoticed.
    private static func prepare(_ connection: PostgresConnection, connector: PostgresConnector) throws -> (
        Account, String, String
    ) {
        connection.useNonBlockingSends()
        let milliseconds =
            connector.statementTimeout.components.seconds * 1000
            + connector.statementTimeout.components.attoseconds / 1_000_000_000_000_000
        _ = try PostgresSession.read(connection.execute(PostgresStatements.sessionTimeout, [String(milliseconds)]))
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
        _ = try PostgresSession.read(connection.executeQuoted("LISTEN " + connection.quotedIdentifier(channel)))
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
