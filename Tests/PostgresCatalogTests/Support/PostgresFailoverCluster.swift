import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog

/// What a failover does to a scratch primary and its standby, step by step, so a test can
/// place a save between the steps: the standby cut off from the primary (it keeps what it
/// has replayed and hears nothing more), the primary killed as in a crash, the standby
/// promoted to be the new primary.
extension PostgresTestCluster {
    /// Stops the standby's replication: no WAL the primary writes from now on reaches it.
    /// Returns once its WAL receiver is gone, so a save after this is on the primary alone.
    func cutStandbyOff() async throws {
        let standby = try await RawSQLSession(standbyConnector(database: "postgres"), purpose: .standbyReads)
        // An empty primary_conninfo, reloaded, stops the WAL receiver and starts none again.
        _ = try await standby.rows("ALTER SYSTEM SET primary_conninfo = ''")
        _ = try await standby.rows("SELECT pg_reload_conf()")
        try await Await.until("the standby's WAL receiver to stop") {
            try await standby.rows("SELECT count(*) FROM pg_stat_wal_receiver").first?[0]
        } _: {
            $0 == "0"
        }
    }

    /// How many standbys stream from the primary now (`pg_stat_replication`).
    func standbysStreamingFromPrimary() async throws -> Int {
        let primary = try await RawSQLSession(connector(database: "postgres"))
        let rows = try await primary.rows("SELECT count(*) FROM pg_stat_replication")
        guard let text = rows.first?[0], let count = Int(text) else { throw ClusterFailure("no count of standbys") }
        return count
    }

    /// Writes out the primary's WAL so far (the cluster acknowledges commits before writing them,
    /// `synchronous_commit = off`): a save then reaches any standby still streaming, and one that
    /// is missing after the failover is missing because the standby was cut off.
    func writeOutPrimaryWAL() async throws {
        let primary = try await RawSQLSession(connector(database: "postgres"))
        _ = try await primary.rows("CHECKPOINT")
    }

    /// Kills the primary (`pg_ctl stop -m immediate`): its sessions die mid-conversation.
    func killPrimary() throws { try stopServerImmediately() }

    /// Promotes the standby and returns once it accepts writes (`pg_promote` waits for that).
    func promoteStandby() async throws {
        let standby = try await RawSQLSession(standbyConnector(database: "postgres"), purpose: .standbyReads)
        let promoted = try await standby.rows("SELECT pg_promote(true, 30)")
        guard promoted.first?[0] == "t" else { throw ClusterFailure("the standby was not promoted within 30 s") }
    }

    /// One connection string naming the primary first and the standby second, as a team
    /// lists its servers: after a failover libpq finds the promoted standby by asking.
    func primaryFirstConnector(database: String, user: String) throws -> PostgresConnector {
        guard let standby else { throw ClusterFailure("this cluster has no standby") }
        return PostgresConnector(
            "host=\(server.directory),\(standby.directory) port=\(server.port),\(standby.port) "
                + "dbname=\(database) user=\(user)",
            connectTimeoutSeconds: 5)
    }
}
