import BookCatalog
import Foundation

/// What `bookshelf setup --check` found on one host of a connection string.
public struct ReplicationHost: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        case primary(ReplicationPrimary)
        /// A hot standby, and how it replicates (`ReplicationReport.problem(of:)` says whether
        /// reads may be served by it).
        case standby(StandbyReplication)
        case unreachable(String)
    }

    /// The host and port as the connection string names them (empty: libpq's default).
    public let host: String
    public let port: String
    public let role: Role
}

/// A primary's replication settings (as the checking session sees them: a role or a
/// database may set `synchronous_commit` otherwise) and the standbys it streams to.
public struct ReplicationPrimary: Sendable, Equatable {
    public let synchronousCommit: String
    public let synchronousStandbyNames: String
    public let standbys: [ReplicationStandby]
    /// The timeline it writes (a promotion starts a new one); nil when it could not be read.
    public var timeline: Int? = nil

    /// The settings under which a commit is acknowledged only once a standby has it.
    static let waitingCommits: Set<String> = ["on", "remote_apply"]

    /// A commit waits for a synchronous standby: no acknowledged save is missing from it.
    public var waitsForAStandby: Bool {
        Self.waitingCommits.contains(synchronousCommit)
            && !synchronousStandbyNames.trimmingCharacters(in: .whitespaces).isEmpty
    }
}

/// One line of the primary's `pg_stat_replication`. The state columns are NULL unless the
/// checking role may read all statistics (`pg_read_all_stats`), hence optional.
public struct ReplicationStandby: Sendable, Equatable {
    public let name: String
    public let state: String?
    public let syncState: String?
    /// How far its replay is behind the primary's written WAL, in bytes.
    public let replayLagBytes: Int?
    /// PostgreSQL's own measure (`replay_lag`), NULL once the standby has been idle a while.
    public let replayLag: String?

    public var isSynchronous: Bool { syncState == "sync" || syncState == "quorum" }
}

/// What a standby says of its own replication.
public struct StandbyReplication: Sendable, Equatable {
    public enum Receiver: Sendable, Equatable {
        /// No WAL receiver runs: it streams from nothing (cut off, or `primary_conninfo` empty).
        case none
        /// One runs, but its state is shown only to roles that may read all statistics.
        case hidden
        /// Its state (`streaming`, `waiting`, `starting`…).
        case status(String)
    }

    public let receiver: Receiver
    /// The timeline of the WAL it last received; nil when unknown (hidden, or none received).
    public let receivedTimeline: Int?
    /// It replayed past the last position it received: WAL of its own that no primary sent
    /// it, as an old primary rejoined without `pg_rewind` has.
    public let replayedPastReceived: Bool

    /// A standby that streams, as the standby of a healthy pair does.
    public static let streaming = StandbyReplication(
        receiver: .status("streaming"), receivedTimeline: nil, replayedPastReceived: false)
}

/// Whether a failover can lose a save the primary acknowledged.
public enum FailoverVerdict: Sendable, Equatable {
    /// A primary with nothing streaming from it, and no standby among the hosts (one host, or
    /// the others unreachable, as after a failover).
    case singleServer
    case noAcknowledgedSaveLost
    /// Synchronous settings, but no synchronous standby is connected: commits wait for one.
    case noAcknowledgedSaveLostButSavesWait
    case acknowledgedSavesCanBeLost(because: String)
    case cannotTell(because: String)
}

/// The replication set-up behind a connection string, host by host, and its verdict.
public struct ReplicationReport: Sendable, Equatable {
    public let hosts: [ReplicationHost]

    public var verdict: FailoverVerdict {
        let primaries = hosts.compactMap { host -> ReplicationPrimary? in
            if case let .primary(primary) = host.role { return primary }
            return nil
        }
        guard primaries.count == 1, let primary = primaries.first else {
            return primaries.isEmpty
                ? .cannotTell(because: "no host of the string is a primary that answered")
                : .acknowledgedSavesCanBeLost(
                    because:
                        "\(primaries.count) hosts are primaries: saves may go to either, and each lacks the other's")
        }
        let anyStandby = hosts.contains { if case .standby = $0.role { true } else { false } }
        if primary.standbys.isEmpty && !anyStandby { return .singleServer }
        guard primary.waitsForAStandby else {
            let reason =
                primary.synchronousStandbyNames.trimmingCharacters(in: .whitespaces).isEmpty
                ? "replication is asynchronous: synchronous_standby_names is empty"
                : "synchronous_commit = \(primary.synchronousCommit) does not wait for the standby to apply a save"
            return .acknowledgedSavesCanBeLost(because: reason)
        }
        if primary.standbys.contains(where: \.isSynchronous) { return .noAcknowledgedSaveLost }
        if primary.standbys.contains(where: { $0.syncState == nil }) {
            return .cannotTell(
                because: "the checking role cannot read pg_stat_replication's states (grant it pg_read_all_stats)")
        }
        return .noAcknowledgedSaveLostButSavesWait
    }

    /// Why reads must not be served by the standby `host`, in words for the operator, or nil
    /// when it streams from a primary on that primary's timeline. The rule reads use is
    /// `StandbyInStep`, which any role can ask; this says which part of it fails, and compares
    /// timelines when the checking role may see them.
    public func problem(of host: ReplicationHost) -> String? {
        guard case let .standby(replication) = host.role else { return nil }
        let rejoin = "rejoin it with pg_rewind as docs/failover.md says"
        if replication.replayedPastReceived {
            return "it has replayed past what it received from any primary: it holds WAL no primary has "
                + "(an old primary rejoined without pg_rewind?); not used for reads; " + rejoin
        }
        let timelines = hosts.compactMap { other -> Int? in
            if case let .primary(primary) = other.role { return primary.timeline }
            return nil
        }
        if let received = replication.receivedTimeline, timelines.count == 1, let primary = timelines.first,
            received != primary
        {
            return "it is on timeline \(received) and the primary on timeline \(primary); not used for reads; "
                + rejoin
        }
        switch replication.receiver {
        case .none:
            return "no WAL receiver runs: it streams from no primary (check its primary_conninfo); "
                + "not used for reads"
        case let .status(status) where status != "streaming":
            return "its WAL receiver is \(status), not streaming; not used for reads"
        case .hidden, .status:
            return nil
        }
    }

    /// Asks each host of the connection string, one at a time, what it is. A host that
    /// cannot be reached is reported as such; the others are still asked. Passwords come from
    /// libpq's own sources (PGPASSWORD, the password file): a check prompts for none.
    public static func check(_ connector: PostgresConnector) async -> ReplicationReport {
        let worker = PostgresWorker(label: "bookshelf.postgres.replication-check")
        var hosts: [ReplicationHost] = []
        for (host, port, single) in connector.eachHost() {
            let found = try? await worker.perform {
                ReplicationHost.ask(single, host: host, port: port)
            }
            hosts.append(found ?? ReplicationHost(host: host, port: port, role: .unreachable("no answer")))
        }
        return ReplicationReport(hosts: hosts)
    }
}

extension ReplicationHost {
    /// Connects to this host alone and asks it (blocking; run on a worker).
    static func ask(_ connector: PostgresConnector, host: String, port: String) -> ReplicationHost {
        do {
            // Whatever the host is, connect to it: with one host, prefer-standby takes a primary too.
            let connection = try PostgresConnection(connector, password: nil, purpose: .standbyReads)
            let settings = try run(
                connection.execute(
                    "SELECT pg_is_in_recovery(), current_setting('synchronous_commit'), "
                        + "current_setting('synchronous_standby_names')"))
            guard let row = settings.rows.first, let recovering = row[0] else { throw BookFailure.invalidResponse }
            if recovering == "t" {
                let answer = try run(
                    connection.execute(
                        """
                        SELECT w.pid IS NOT NULL, w.status, w.received_tli::text,
                            coalesce(pg_last_wal_receive_lsn() < pg_last_wal_replay_lsn(), false)
                        FROM (SELECT 1) AS one LEFT JOIN pg_stat_wal_receiver AS w ON true
                        """))
                guard let line = answer.rows.first, line.count == 4 else { throw BookFailure.invalidResponse }
                let receiver: StandbyReplication.Receiver =
                    line[0] != "t" ? .none : line[1].map { .status($0) } ?? .hidden
                return ReplicationHost(
                    host: host, port: port,
                    role: .standby(
                        StandbyReplication(
                            receiver: receiver, receivedTimeline: line[2].flatMap { Int($0) },
                            replayedPastReceived: line[3] == "t")))
            }
            let standbys = try run(
                connection.execute(
                    """
                    SELECT application_name, state, sync_state,
                           pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text, replay_lag::text
                    FROM pg_stat_replication ORDER BY application_name, pid
                    """))
            // A WAL file's name begins with its timeline, in 8 hexadecimal digits.
            let walFile = try run(connection.execute("SELECT pg_walfile_name(pg_current_wal_lsn())"))
            let primary = ReplicationPrimary(
                synchronousCommit: row[1] ?? "", synchronousStandbyNames: row[2] ?? "",
                standbys: standbys.rows.map { line in
                    ReplicationStandby(
                        name: line[0] ?? "", state: line[1], syncState: line[2],
                        replayLagBytes: line[3].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil },
                        replayLag: line[4])
                },
                timeline: walFile.rows.first?[0].flatMap { Int($0.prefix(8), radix: 16) })
            return ReplicationHost(host: host, port: port, role: .primary(primary))
        } catch PostgresConnectFailure.passwordRequired {
            return ReplicationHost(
                host: host, port: port, role: .unreachable("it needs a password: set PGPASSWORD or put it in ~/.pgpass")
            )
        } catch let BookFailure.storeUnavailable(reason), let BookFailure.storeRefused(reason) {
            // libpq's message spans lines; the report gives each host one.
            return ReplicationHost(host: host, port: port, role: .unreachable(PostgresAccountConnector.oneLine(reason)))
        } catch {
            return ReplicationHost(
                host: host, port: port, role: .unreachable(PostgresAccountConnector.oneLine(String(describing: error))))
        }
    }
}

extension PostgresConnector {
    /// Each host the string names (libpq's comma-separated `host`, with the matching `port`,
    /// or the one port for all), as a connector to that host alone with everything else kept.
    /// A string that names no host is one host: libpq's default.
    func eachHost() -> [(host: String, port: String, connector: PostgresConnector)] {
        guard let options = explicitOptions(), let hostList = options["host"] ?? options["hostaddr"] else {
            return [("", explicitOptions()?["port"] ?? "", self)]
        }
        let hosts = hostList.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let ports = (options["port"] ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let addresses = options["hostaddr"].map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        return hosts.indices.map { index in
            var single = options
            single["host"] = options["host"] == nil ? nil : hosts[index]
            if let addresses { single["hostaddr"] = addresses.count == hosts.count ? addresses[index] : addresses[0] }
            let port = ports.count == hosts.count ? ports[index] : ports[0]
            single["port"] = port.isEmpty ? nil : port
            var connector = PostgresConnector(
                Self.keywordString(single), connectTimeoutSeconds: connectTimeoutSeconds,
                statementTimeout: statementTimeout, applicationName: applicationName)
            connector.user = user
            connector.environmentPasswordOwner = environmentPasswordOwner
            return (hosts[index], port, connector)
        }
    }
}
