import BookCatalog
import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Which server answered a read, and whether it was meant for a standby that had not caught up.
public struct PostgresReadRoute: Sendable, Equatable, CustomStringConvertible {
    /// The host (or socket directory) and port, as libpq settled on them.
    public let server: String
    public let servedByStandby: Bool
    /// The read was meant for a standby, which was behind the session's floor past the wait,
    /// unreachable, or failed: the primary answered it.
    public let fellBack: Bool

    public var description: String {
        servedByStandby ? "standby \(server)" : fellBack ? "primary \(server) (fell back)" : "primary \(server)"
    }
}

/// What the floor rule needs of a connection: which server it reached and where that
/// server's log stands.
protocol ReplicaConnection: AnyObject {
    var isBroken: Bool { get }
    /// The host and port, for traces.
    var server: String { get }
    /// A standby's last replayed position; a primary's last inserted one.
    func walPosition() throws -> WALPosition
    /// Whether the server was a standby when last asked for its position: with no standby up,
    /// libpq settles a standby connection on the primary.
    var answeredAsStandby: Bool { get }
    /// False when the connection turned out to be dead while idle.
    func absorbPendingInput() -> Bool
}

/// A session's reads served by a standby, never older than what the session has seen.
/// Touched only on the session's worker (the serial queue is the lock), like the session; the
/// floor it shares with the connector's other sessions has a lock of its own.
///
/// The floor is the highest log position the sessions have seen: the primary's after each
/// save commits and after each change check, the server's after each read. A read goes to the
/// standby only once the standby has replayed the floor, waiting up to `wait`; otherwise the
/// primary serves it. So a lagging standby costs latency, never an answer older than one
/// already shown or missing the user's own save, whichever standby libpq reaches.
final class StandbyReads<Connection: ReplicaConnection> {
    private let wait: Duration
    private let connect: (_ password: String?) throws -> Connection
    private var connection: Connection? {
        didSet { if connection !== oldValue { replayedHere = .start } }
    }
    /// The highest position the standby connection in use has reported. A standby's replay
    /// only moves forward, so while this meets the floor a read needs no check of its own
    /// (two round trips, not three). Another connection may reach another standby: it starts over.
    private var replayedHere = WALPosition.start
    /// When connecting to a standby last failed: not tried again for a while, so an
    /// unreachable standby does not add a connect timeout to every read.
    private var failedAt: ContinuousClock.Instant?
    private let retryAfter: Duration = .seconds(10)
    /// Shared with the other sessions of the same connector.
    let floor: WALFloor
    /// The last read's route, read from any thread (traces), hence the lock.
    let lastRoute = Locked<PostgresReadRoute?>(nil)
    /// Told of every read's route, on the worker.
    private let onRoute: (@Sendable (PostgresReadRoute) -> Void)?

    /// Connects to a standby at once when a password was typed for the sign-in (it is not
    /// kept, so a later connect relies on libpq's own sources); otherwise at the first read,
    /// so a session that never reads (an account switcher's probe) never opens one.
    init(
        wait: Duration, floor: WALFloor = WALFloor(), password: String?,
        onRoute: (@Sendable (PostgresReadRoute) -> Void)? = nil,
        connect: @escaping (_ password: String?) throws -> Connection
    ) {
        self.wait = wait
        self.floor = floor
        self.connect = connect
        self.onRoute = onRoute
        if let password, !password.isEmpty {
            connection = try? connect(password)
            if connection == nil { failedAt = .now }
        }
    }

    /// `body`'s answer from a standby that has replayed the floor, or nil when the primary
    /// must serve the read (through `readOnPrimary`).
    func readOnStandby<T>(_ body: (Connection) throws -> T) -> StandbyAnswer<T>? {
        guard let required = floor.required, let standby = liveStandby(), hasReplayed(required, standby)
        else { return nil }
        do {
            let value = try body(standby)
            // After the answer: the read may have seen more than the check before it allowed.
            let after = try standby.walPosition()
            replayedHere = max(replayedHere, after)
            floor.raise(to: after)
            record(
                PostgresReadRoute(server: standby.server, servedByStandby: standby.answeredAsStandby, fellBack: false))
            return StandbyAnswer(value: value)
        } catch {
            // A standby cancels reads that conflict with replay, and may go away: a read is
            // safe to send again, and the primary is never behind.
            if standby.isBroken { connection = nil }
            return nil
        }
    }

    /// A read meant for a standby, served by the primary: later reads must not go back
    /// before what it may have seen.
    func readOnPrimary<T>(_ primary: Connection, _ body: (Connection) throws -> T) throws -> T {
        let value = try body(primary)
        learnPrimaryPosition(primary)
        record(PostgresReadRoute(server: primary.server, servedByStandby: false, fellBack: true))
        return value
    }

    /// After the session's own save committed, or a change check read the primary: later
    /// reads must see at least what the primary holds now.
    func learnPrimaryPosition(_ primary: Connection) {
        let ticket = floor.ticket()
        floor.learnPrimary(try? primary.walPosition(), ticket: ticket)
    }

    private func record(_ route: PostgresReadRoute) {
        lastRoute.withLock { $0 = route }
        onRoute?(route)
    }

    private func liveStandby() -> Connection? {
        if let connection, connection.absorbPendingInput() { return connection }
        connection = nil
        if let failedAt, ContinuousClock.now - failedAt < retryAfter { return nil }
        connection = try? connect(nil)
        failedAt = connection == nil ? .now : nil
        return connection
    }

    /// Whether the standby replays `required` within `wait`, asking every 2 ms. A broken
    /// connection or an unreadable position counts as not.
    private func hasReplayed(_ required: WALPosition, _ standby: Connection) -> Bool {
        if replayedHere >= required { return true }
        let deadline = ContinuousClock.now + wait
        while true {
            guard let replayed = try? standby.walPosition() else {
                if standby.isBroken { connection = nil }
                return false
            }
            replayedHere = max(replayedHere, replayed)
            if replayed >= required { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(2000)
        }
    }
}

extension StandbyReads<PostgresConnection> {
    /// Standby reads of `connector`'s hosts, each connection with the session's settings.
    convenience init(connector: PostgresConnector, password: String?) {
        self.init(
            wait: connector.standbyWait, floor: connector.floor, password: password, onRoute: connector.onReadRoute
        ) { password in
            let fresh = try PostgresConnection(connector, password: password, purpose: .standbyReads)
            fresh.useNonBlockingSends()
            _ = try PostgresSession.read(
                fresh.execute(PostgresStatements.sessionTimeout, [String(connector.statementTimeout.milliseconds)]))
            return fresh
        }
    }
}

extension PostgresConnection: ReplicaConnection {
    /// The server's position: a standby's last replayed; a primary's last inserted, not
    /// `pg_current_wal_lsn()`, which is the last written: with `synchronous_commit = off`
    /// a commit is acknowledged before its record is written, and the floor must include it.
    static let walPositionStatement = """
        SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text,
            pg_is_in_recovery()
        """

    func walPosition() throws -> WALPosition {
        let rows = try PostgresSession.read(execute(Self.walPositionStatement))
        guard let row = rows.rows.first, row.count == 2, let text = row[0], let position = WALPosition(text),
            let recovery = row[1], recovery == "t" || recovery == "f"
        else { throw BookFailure.invalidResponse }
        answeredAsStandby = recovery == "t"
        return position
    }
}

/// An answer a standby gave (a type of its own, as the answer may itself be optional).
struct StandbyAnswer<T> {
    let value: T
}

extension Duration {
    /// Whole milliseconds, as PostgreSQL's timeouts take them.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
