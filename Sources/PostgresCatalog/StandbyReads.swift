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
    /// The read waited for the standby to replay the session's floor (asked more than once)
    /// before it was answered: what "the wait is paid once" is checked by, not a wall clock.
    public let waitedForReplay: Bool

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
    /// Whether the server was a standby in step with a primary when last asked for its position:
    /// with no standby up, libpq settles a standby connection on the primary, and a standby that
    /// is not streaming, or has diverged from the primary's timeline, may hold what no primary has.
    var answeredAsStandby: Bool { get }
    /// False when the connection turned out to be dead while idle.
    func absorbPendingInput() -> Bool
}

/// A session's reads served by a standby, never older than what the session has seen.
/// Touched only on the session's worker (the serial queue is the lock), like the session; the
/// floor it shares with the connector's other sessions has a lock of its own, and so has the
/// word of the change check that the standby may be asked again (`standbyMayHaveCaughtUp`).
///
/// The floor is the highest log position the sessions have seen: the primary's after each
/// save commits and after each change check, the server's after each read. A read goes to the
/// standby only once the standby has replayed the floor, waiting up to `wait`; otherwise the
/// primary serves it. So a lagging standby costs latency, never an answer older than one
/// already shown or missing the user's own save, whichever standby libpq reaches.
///
/// That latency is paid once, not once per read: a read the caller has abandoned (a newer
/// search superseded it) stops waiting at once, the read after it waits only what is left of
/// the same `wait`, and after one read waited out `wait` the standby counts as behind. Reads
/// then go straight to the primary until a change check has passed and one position query (no
/// wait) shows that the standby has replayed the floor.
final class StandbyReads<Connection: ReplicaConnection> {
    private let wait: Duration
    private let connect: (_ password: String?) throws -> Connection
    private var connection: Connection? {
        didSet {
            if connection !== oldValue {
                replayedHere = .start
                waitingSince = nil
            }
        }
    }
    /// The highest position the standby connection in use has reported. A standby's replay
    /// only moves forward, so while this meets the floor a read needs no check of its own
    /// (two round trips, not three). Another connection may reach another standby: it starts over.
    private var replayedHere = WALPosition.start
    /// When no standby could be had (connecting failed, or libpq settled on a primary), and
    /// how often in a row: standbys are tried again after a delay that doubles, so neither a
    /// connect timeout nor a connection to the primary is paid on every read, and a standby
    /// that comes back serves reads again within `StandbyRetry.longest`.
    private var retry = StandbyRetry()
    private let now: () -> ContinuousClock.Instant
    /// A read waited out `wait` and the standby had not replayed the floor.
    private var behind = false
    /// When the wait began that reads given up mid-wait have left unfinished: someone typing on
    /// supersedes each search within a key's time, and were each newest read to wait `wait` anew,
    /// nothing would be shown until the typing stopped. The wait is one, from the first of them.
    private var waitingSince: ContinuousClock.Instant?
    /// Set by each change check: the next read may ask a standby that fell behind where it stands.
    let standbyMayHaveCaughtUp = Locked(false)
    /// Why the last read meant for a standby was served by the primary.
    private var lastMiss = StandbyMiss.notTried
    /// The read under way waited for replay; reset as each read begins.
    private var waitedForReplay = false
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
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now },
        connect: @escaping (_ password: String?) throws -> Connection
    ) {
        self.wait = wait
        self.floor = floor
        self.connect = connect
        self.onRoute = onRoute
        self.now = now
        if let password, !password.isEmpty {
            connection = standbyConnection { try connect(password) }
        }
    }

    /// `body`'s answer from a standby that has replayed the floor, or nil when the primary
    /// must serve the read (through `readOnPrimary`). Throws `CancellationError` when
    /// `abandoned` says the caller gave the read up: its answer can never be shown.
    func readOnStandby<T>(abandoned: ReadAbandonment? = nil, _ body: (Connection) throws -> T) throws
        -> StandbyAnswer<T>?
    {
        waitedForReplay = false
        if abandoned?.isAbandoned == true { throw CancellationError() }
        guard let required = floor.required else { return miss(.floorUnknown) }
        if behind, !standbyMayHaveCaughtUp.withLock({ $0 }) { return miss(.behind) }
        guard let standby = liveStandby() else { return nil }
        if behind {
            // One question, no wait: the change check said it may be worth asking.
            standbyMayHaveCaughtUp.withLock { $0 = false }
            guard hasReplayed(required, standby, within: .zero, abandoned: abandoned) == .replayed else {
                return miss(.behind)
            }
            behind = false
        } else {
            let since = waitingSince ?? now()
            waitingSince = nil
            switch hasReplayed(required, standby, within: wait - (now() - since), abandoned: abandoned) {
            case .replayed: break
            case .abandoned:
                waitingSince = since
                throw CancellationError()
            case .timedOut:
                behind = true
                standbyMayHaveCaughtUp.withLock { $0 = false }
                return miss(.behind)
            case .failed: return miss(.failed)
            }
        }
        do {
            let value = try body(standby)
            // After the answer: the read may have seen more than the check before it allowed.
            let after = try standby.walPosition()
            replayedHere = max(replayedHere, after)
            floor.raise(to: after)
            record(
                PostgresReadRoute(
                    server: standby.server, servedByStandby: true, fellBack: false, waitedForReplay: waitedForReplay))
            return StandbyAnswer(value: value)
        } catch {
            // A standby cancels reads that conflict with replay, and may go away: a read is
            // safe to send again, and the primary is never behind.
            if standby.isBroken { connection = nil }
            return miss(.failed)
        }
    }

    /// A read meant for a standby, served by the primary: later reads must not go back
    /// before what it may have seen. It "fell back" unless no standby was to be had at all.
    func readOnPrimary<T>(_ primary: Connection, _ body: (Connection) throws -> T) throws -> T {
        let value = try body(primary)
        learnPrimaryPosition(primary)
        record(
            PostgresReadRoute(
                server: primary.server, servedByStandby: false, fellBack: lastMiss != .noStandby,
                waitedForReplay: waitedForReplay))
        return value
    }

    /// After the session's own save committed, or a change check read the primary: later
    /// reads must see at least what the primary holds now.
    func learnPrimaryPosition(_ primary: Connection) {
        floor.learnPosition(of: primary)
    }

    /// A change check passed: a standby that fell behind may be asked, once, where it stands.
    func changeCheckPassed() {
        standbyMayHaveCaughtUp.withLock { $0 = true }
    }

    private func miss<T>(_ why: StandbyMiss) -> StandbyAnswer<T>? {
        lastMiss = why
        return nil
    }

    private func record(_ route: PostgresReadRoute) {
        lastRoute.withLock { $0 = route }
        onRoute?(route)
    }

    /// The standby connection in use, or a new one when standbys are due to be tried again.
    /// A connection whose server answers as a primary (libpq's `prefer-standby` settles on one
    /// when no standby is up, and a standby may have been promoted) is given up: the session's
    /// own connection serves the primary's reads, and standbys are tried again later.
    private func liveStandby() -> Connection? {
        if let connection, connection.absorbPendingInput() {
            if connection.answeredAsStandby { return connection }
            self.connection = nil
            retry.failed(at: now())
            lastMiss = .noStandby
            return nil
        }
        connection = nil
        guard retry.mayTry(at: now()) else {
            lastMiss = .noStandby
            return nil
        }
        connection = standbyConnection { try connect(nil) }
        if connection == nil { lastMiss = .noStandby }
        return connection
    }

    /// A new connection if it reached a standby; nil (and standbys tried again later) otherwise.
    private func standbyConnection(_ make: () throws -> Connection) -> Connection? {
        guard let fresh = try? make(), let position = try? fresh.walPosition(), fresh.answeredAsStandby else {
            retry.failed(at: now())
            return nil
        }
        retry.succeeded()
        replayedHere = position
        return fresh
    }

    private enum Replay { case replayed, timedOut, failed, abandoned }

    /// Whether the standby replays `required` within `wait`, asking every 2 ms (at least once,
    /// whatever is left of the wait), and stopping at once when the caller abandons the read. A
    /// broken connection, an unreadable position or a server that now answers as a primary
    /// counts as failed.
    private func hasReplayed(
        _ required: WALPosition, _ standby: Connection, within wait: Duration, abandoned: ReadAbandonment?
    ) -> Replay {
        if replayedHere >= required { return .replayed }
        let deadline = now() + wait
        while true {
            guard let replayed = try? standby.walPosition(), standby.answeredAsStandby else {
                connection = nil
                retry.failed(at: now())
                return .failed
            }
            replayedHere = max(replayedHere, replayed)
            if replayed >= required { return .replayed }
            if abandoned?.isAbandoned == true { return .abandoned }
            guard now() < deadline else { return .timedOut }
            waitedForReplay = true
            usleep(2000)
        }
    }
}

/// Why a read meant for a standby went to the primary.
enum StandbyMiss: Equatable {
    case notTried
    /// No standby among the hosts answered, or libpq found only a primary: the primary is
    /// where reads go, not a fall-back.
    case noStandby
    /// The standby had not replayed the floor within the wait, or fell behind earlier and has
    /// not been shown to have caught up.
    case behind
    /// The floor is unknown (a position could not be read after a save).
    case floorUnknown
    /// The standby failed the read or its position query.
    case failed
}

/// When to try the standbys again after no standby could be had: 1 s after the first failure,
/// doubling up to `longest`, and at once after a success.
struct StandbyRetry {
    static let first: Duration = .seconds(1)
    static let longest: Duration = .seconds(8)
    private var failures = 0
    private var notBefore: ContinuousClock.Instant?

    func mayTry(at instant: ContinuousClock.Instant) -> Bool {
        notBefore.map { instant >= $0 } ?? true
    }

    mutating func failed(at instant: ContinuousClock.Instant) {
        let delay = min(Self.first * (1 << min(failures, 16)), Self.longest)
        failures += 1
        notBefore = instant + delay
    }

    mutating func succeeded() {
        failures = 0
        notBefore = nil
    }
}

/// A read's caller gave it up (the task was cancelled: a newer search superseded it). Set from
/// the caller's task, read on the session's worker, hence the lock.
final class ReadAbandonment: Sendable {
    private let abandoned = Locked(false)

    var isAbandoned: Bool { abandoned.withLock { $0 } }

    func abandon() { abandoned.withLock { $0 = true } }
}

extension WALFloor {
    /// The primary's position, asked now: later reads must see at least what it holds.
    func learnPosition<Connection: ReplicaConnection>(of primary: Connection) {
        let ticket = ticket()
        learnPrimary(try? primary.walPosition(), ticket: ticket)
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
                fresh.execute(PostgresStatements.sessionSettings, [String(connector.statementTimeout.milliseconds)]))
            return fresh
        }
    }
}

extension PostgresConnection: ReplicaConnection {
    /// The server's position: a standby's last replayed; a primary's last inserted, not
    /// `pg_current_wal_lsn()`, which is the last written: with `synchronous_commit = off`
    /// a commit is acknowledged before its record is written, and the floor must include it.
    ///
    /// The third column says whether a standby is in step with a primary (`StandbyInStep`).
    static let walPositionStatement = """
        SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text,
            pg_is_in_recovery(), \(StandbyInStep.expression)
        """

    func walPosition() throws -> WALPosition {
        let rows = try PostgresSession.read(execute(Self.walPositionStatement))
        guard let row = rows.rows.first, row.count == 3, let text = row[0], let position = WALPosition(text),
            let recovery = row[1], recovery == "t" || recovery == "f"
        else { throw BookFailure.invalidResponse }
        answeredAsStandby = recovery == "t" && row[2] == "t"
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

/// Whether a standby may serve reads: its WAL receiver streams from a primary, and it has not
/// replayed past what it received. An old primary rejoined as a standby without `pg_rewind`
/// replays its own timeline past the point where the promoted server's forked off, and can
/// never receive beyond that point: it holds saves no primary has (the ones the failover lost),
/// and its receiver keeps waiting. A standby cut off from its primary has no receiver at all.
///
/// Any role may ask this: `pg_stat_wal_receiver` shows every role that a receiver runs, and its
/// state (`status`) only to roles that may read all statistics, so the positions decide for the
/// others: a streaming receiver is never behind what the standby replayed.
enum StandbyInStep {
    static let expression = """
        (pg_is_in_recovery()
            AND EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status IS NULL OR status = 'streaming')
            AND coalesce(pg_last_wal_receive_lsn() >= pg_last_wal_replay_lsn(), false))
        """
}
