@testable import PostgresCatalog
import Testing

/// `setup --check`'s verdict from what the hosts said, and the hosts it asks, without a server.
@Suite struct ReplicationReportTests {
    static func primary(_ commit: String, names: String, standbys: [ReplicationStandby]) -> ReplicationHost {
        ReplicationHost(
            host: "db1", port: "5432",
            role: .primary(
                ReplicationPrimary(synchronousCommit: commit, synchronousStandbyNames: names, standbys: standbys)))
    }

    static func standby(_ name: String, syncState: String?) -> ReplicationStandby {
        ReplicationStandby(name: name, state: "streaming", syncState: syncState, replayLagBytes: 0, replayLag: nil)
    }

    static let standbyHost = ReplicationHost(host: "db2", port: "5432", role: .standby(.streaming))

    @Test func aLoneServerWithoutStandbysIsASingleServer() {
        let report = ReplicationReport(hosts: [Self.primary("on", names: "", standbys: [])])
        #expect(report.verdict == .singleServer)
    }

    @Test func aPrimaryWhoseStandbysAreUnreachableHasNothingToFailOverTo() {
        let report = ReplicationReport(hosts: [
            ReplicationHost(host: "db0", port: "5432", role: .unreachable("gone")),
            Self.primary("on", names: "", standbys: []),
        ])
        #expect(report.verdict == .singleServer)
        let withStandby = ReplicationReport(hosts: [Self.primary("on", names: "", standbys: []), Self.standbyHost])
        #expect(withStandby.verdict != .singleServer)
    }

    @Test func withoutSynchronousStandbyNamesSavesCanBeLost() {
        let report = ReplicationReport(hosts: [
            Self.primary("on", names: "", standbys: [Self.standby("s1", syncState: "async")]), Self.standbyHost,
        ])
        #expect(
            report.verdict
                == .acknowledgedSavesCanBeLost(
                    because: "replication is asynchronous: synchronous_standby_names is empty"))
    }

    @Test func aCommitThatDoesNotWaitForTheStandbyCanBeLost() {
        for commit in ["off", "local", "remote_write"] {
            let report = ReplicationReport(hosts: [
                Self.primary(commit, names: "s1", standbys: [Self.standby("s1", syncState: "sync")]), Self.standbyHost,
            ])
            guard case .acknowledgedSavesCanBeLost = report.verdict else {
                Issue.record("synchronous_commit = \(commit): \(report.verdict)")
                continue
            }
        }
    }

    @Test func aSynchronousStandbyUnderRemoteApplyOrOnLosesNothing() {
        for (commit, state) in [("remote_apply", "sync"), ("on", "quorum")] {
            let report = ReplicationReport(hosts: [
                Self.primary(commit, names: "ANY 1 (s1)", standbys: [Self.standby("s1", syncState: state)]),
                Self.standbyHost,
            ])
            #expect(report.verdict == .noAcknowledgedSaveLost, "\(commit) \(state)")
        }
    }

    @Test func synchronousSettingsWithoutASynchronousStandbyMakeSavesWait() {
        let report = ReplicationReport(hosts: [
            Self.primary("remote_apply", names: "s1", standbys: [Self.standby("other", syncState: "async")]),
            Self.standbyHost,
        ])
        #expect(report.verdict == .noAcknowledgedSaveLostButSavesWait)
    }

    @Test func statesTheCheckingRoleMayNotReadLeaveTheVerdictOpen() {
        let report = ReplicationReport(hosts: [
            Self.primary("remote_apply", names: "s1", standbys: [Self.standby("s1", syncState: nil)]), Self.standbyHost,
        ])
        guard case .cannotTell = report.verdict else {
            Issue.record("\(report.verdict)")
            return
        }
    }

    @Test func noPrimaryOrTwoPrimaries() {
        let none = ReplicationReport(hosts: [
            Self.standbyHost, ReplicationHost(host: "db1", port: "5432", role: .unreachable("gone")),
        ])
        guard case .cannotTell = none.verdict else {
            Issue.record("\(none.verdict)")
            return
        }
        let two = ReplicationReport(hosts: [
            Self.primary("on", names: "", standbys: []), Self.primary("on", names: "", standbys: []),
        ])
        guard case .acknowledgedSavesCanBeLost = two.verdict else {
            Issue.record("\(two.verdict)")
            return
        }
    }

    @Test func eachHostOfAKeywordStringOrAURLWithItsOwnPort() {
        let keywords = PostgresConnector("host=db1,db2 port=5432,5433 dbname=books user=alice").eachHost()
        #expect(keywords.map(\.host) == ["db1", "db2"] && keywords.map(\.port) == ["5432", "5433"])
        #expect(keywords.map { $0.connector.explicitOptions()?["host"] } == ["db1", "db2"])
        #expect(keywords.allSatisfy { $0.connector.explicitOptions()?["dbname"] == "books" })
        #expect(keywords.allSatisfy { $0.connector.explicitOptions()?["user"] == "alice" })

        let url = PostgresConnector("postgresql://alice@db1:5432,db2:5433/books").eachHost()
        #expect(url.map(\.host) == ["db1", "db2"] && url.map(\.port) == ["5432", "5433"])

        let onePort = PostgresConnector("host=db1,db2 port=6000 dbname=books").eachHost()
        #expect(onePort.map(\.port) == ["6000", "6000"])

        let noHost = PostgresConnector("books").eachHost()
        #expect(noHost.count == 1 && noHost.first?.host == "")
    }
}
