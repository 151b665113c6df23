import BookCatalog
import Foundation

/// What `bookshelf setup --check` found on one host of a connection string.
public struct ReplicationHost: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
        case primary(ReplicationPrimary)
        /// A hot standby; `receiving` is whether its WAL receiver streams from a primary now.
        case standby(receiving: Bool)
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
                let receiver = try run(connection.execute("SELECT count(*) FROM pg_stat_wal_receiver"))
                return ReplicationHost(
                    host: host, port: port, role: .standby(receiving: (receiver.rows.first?[0] ?? "0") != "0"))
            }
            let standbys = try run(
                connection.execute(
                    """
                    SELECT application_name, state, sync_state,
                           pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text, replay_lag::text
                    FROM pg_stat_replication ORDER BY application_name, pid
                    """))
            let primary = ReplicationPrimary(
                synchronousCommit: row[1] ?? "", synchronousStandbyNames: row[2] ?? "",
                standbys: standbys.rows.map { line in
                    ReplicationStandby(
                        name: line[0] ?? "", state: line[1], syncState: line[2],
                        replayLagBytes: line[3].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil },
                        replayLag: line[4])
                })
            return ReplicationHost(host: host, port: port, role: .primary(primary))
        } catch PostgresConnectFailure.passwordRequired {
            return ReplicationHost(
                host: host, port: port, role: .unreachable("it needs a password: set PGPASSWORD or put it in ~/.pgpass")
            )
        } catch let BookFailure.storeUnavailable(reason) {
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
