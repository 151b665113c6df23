import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// After a failover, an old primary rejoined as a standby without `pg_rewind` (or with a
/// `pg_rewind` that found nothing to do, as it does when the promoted server has not yet written
/// a checkpoint naming its new timeline) still holds the save the failover lost, on its old
/// timeline, and its WAL receiver cannot stream from the promoted server. Reads meant for a
/// standby must not be served by it, and `setup --check` must say what is wrong with it; after
/// the rejoin docs/failover.md gives (`CHECKPOINT` on the new primary, `pg_rewind -R`, start), it
/// streams, no longer holds the lost save, and serves reads again.
@Suite(
    "PostgreSQL: an old primary rejoined as a standby", .serialized, .tags(.postgres, .slow),
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresDivergedStandbyTests {
    @Test("a diverged old primary serves no read and is named by the check, until it is rewound")
    func divergedStandbyIsNotUsedUntilRewound() async throws {
        // pg_rewind needs wal_log_hints (or checksums), also in the file its recovery run reads,
        // and the old primary's WAL back to the last checkpoint before the fork.
        let cluster = try PostgresTestCluster.startWithStandby(primarySettings: [
            "wal_log_hints=on", "wal_keep_size=256MB",
        ])
        defer { cluster.destroy() }
        let oldPrimary = cluster.server
        let promoted = try #require(cluster.standby)
        try oldPrimary.superuserSQL("ALTER SYSTEM SET wal_log_hints = on")
        let catalog = try await PostgresTestCatalog.make(on: cluster)
        let editor = try await catalog.addAccount("ed", role: .editor, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        try await cluster.waitForStandbyReplay()

        // A save only the old primary ever has: the standby is cut off before it.
        try await cluster.cutStandbyOff()
        let onOldPrimary = try await PostgresRemote.connect(
            cluster.connector(database: catalog.database, user: editor.name))
        let lost = try await onOldPrimary.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        #expect(lost.revision == 2)
        try await cluster.writeOutPrimaryWAL()
        try cluster.killPrimary()
        try await cluster.promoteStandby()
        try oldPrimary.rejoinWithoutRewind(asStandbyOf: promoted)

        let bothHosts =
            "host=\(oldPrimary.directory),\(promoted.directory) port=\(oldPrimary.port),\(promoted.port) "
        let reads = PostgresConnector(
            bothHosts + "dbname=\(catalog.database) user=\(editor.name)", connectTimeoutSeconds: 5,
            reads: .standby, standbyWait: .milliseconds(250))
        let oldPrimarySQL = try await RawSQLSession(
            PostgresConnector(oldPrimary.conninfo(database: catalog.database), connectTimeoutSeconds: 5),
            purpose: .standbyReads)
        // The scenario as the sweep found it: the rejoined server is a standby holding the lost save.
        #expect(try await oldPrimarySQL.rows("SELECT pg_is_in_recovery()::text") == [["true"]])
        #expect(
            try await oldPrimarySQL.rows("SELECT revision::text FROM bookshelf.books WHERE id = $1", [String(dune.id)])
                == [["2"]])

        let remote = try await PostgresRemote.connect(reads)
        let page = try await remote.search(SearchQuery(text: "dune", limit: 10, offset: 0))
        // The promoted server's book: the save the failover lost is not served from the old primary.
        #expect(page.records == [dune])
        let route = try #require(remote.lastReadRoute)
        #expect(!route.servedByStandby && route.server == "\(promoted.directory):\(promoted.port)", "\(route)")

        // The session signed in to the old primary alone finds a standby there now: a refusal
        // (saves cannot be made there), not a server it cannot reach (issue 56, item 6).
        await #expect(throws: BookFailure.storeRefused(PostgresRefusal.standby)) {
            try await onOldPrimary.checkForChanges()
        }

        // setup --check names what is wrong with it.
        let superuser = PostgresConnector(
            bothHosts + "dbname=postgres user=\(PostgresTestCluster.superuser)", connectTimeoutSeconds: 5)
        let diverged = await ReplicationReport.check(superuser)
        #expect(diverged.hosts.count == 2)
        let problem = diverged.hosts.first.flatMap(diverged.problem(of:))
        #expect(
            problem?.hasPrefix("it has replayed past what it received from any primary: it holds WAL no primary has")
                == true, "\(diverged)")

        // The rejoin docs/failover.md gives: CHECKPOINT on the promoted server, pg_rewind -R, start.
        try oldPrimary.stopServer()
        try oldPrimary.rewindAndRejoin(asStandbyOf: promoted)
        let rejoined = try await Await.until("the rewound old primary to stream from the promoted server") {
            // It replays the WAL pg_rewind copied from the promoted server, so it has replayed past
            // what it received until that server writes more (docs/failover.md): this one is idle,
            // so each look writes a commit there, as a primary in use does all the time.
            try promoted.superuserSQL("SELECT txid_current()")
            return await ReplicationReport.check(superuser)
        } _: { report in
            guard case .standby = report.hosts.first?.role else { return false }
            return report.hosts.first.flatMap(report.problem(of:)) == nil
        }
        guard case let .standby(replication)? = rejoined.hosts.first?.role else { return }
        #expect(replication.receiver == .status("streaming") && !replication.replayedPastReceived)
        // It no longer holds the lost save, and reads are served by it again within the retries.
        let rewoundSQL = try await RawSQLSession(
            PostgresConnector(oldPrimary.conninfo(database: catalog.database), connectTimeoutSeconds: 5),
            purpose: .standbyReads)
        #expect(
            try await rewoundSQL.rows("SELECT revision::text FROM bookshelf.books WHERE id = $1", [String(dune.id)])
                == [["1"]])
        let served = try await Await.until("a read served by the rejoined standby") {
            let page = try await remote.search(SearchQuery(text: "dune", limit: 10, offset: 0))
            return (page.records, remote.lastReadRoute)
        } _: {
            $0.1?.servedByStandby == true
        }
        #expect(served.0 == [dune])
        #expect(served.1?.server == "\(oldPrimary.directory):\(oldPrimary.port)")
    }
}
