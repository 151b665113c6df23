import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// A primary and a hot standby (`pg_basebackup -R`), one pair for the whole suite: reads
/// served by the standby, saves by the primary through one multi-host string, and the
/// session's floor keeping a lagging standby from showing an older catalog than the session
/// has seen. Serialized: one test makes the standby lag.
@Suite(
    "PostgreSQL standby reads", .serialized,
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresReplicaTests {
    struct Setting {
        let cluster: PostgresTestCluster
        let catalog: PostgresTestCatalog
        let editor: Account
        let reader: Account
        let outsider: Account
        let mainBooks: [BookRecord]
        let otherBooks: [BookRecord]

        /// Every set-up statement is replayed on the standby before the test starts.
        init() async throws {
            cluster = try await SharedReplicatedCluster.instance.cluster()
            catalog = try await PostgresTestCatalog.make(on: cluster)
            editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
            reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
            outsider = try await catalog.addAccount("outsider", role: .editor, scope: "other")
            mainBooks = try await catalog.addBooks([NewBook(title: "Dune"), NewBook(title: "Emma")], scope: "main")
            otherBooks = try await catalog.addBooks([NewBook(title: "Secret Plans")], scope: "other")
            // Whatever delay an earlier test left, this one starts from a standby that keeps up.
            try await cluster.delayStandby(by: .zero)
            try await cluster.waitForStandbyReplay()
        }

        func remote(for account: Account, reads: PostgresReads) async throws -> PostgresRemote {
            try await PostgresRemote.connect(
                cluster.multiHostConnector(database: catalog.database, user: account.name, reads: reads))
        }

        /// Raw SQL as `account` on the standby alone.
        func standbySQL(as account: Account) async throws -> RawSQLSession {
            guard let standby = cluster.standby else { throw ClusterFailure("no standby") }
            return try await RawSQLSession(
                PostgresConnector(standby.conninfo(database: catalog.database, user: account.name)),
                purpose: .standbyReads)
        }

        /// Raw SQL as the superuser on one server.
        func superuser(onStandby: Bool) async throws -> RawSQLSession {
            onStandby
                ? try await RawSQLSession(cluster.standbyConnector(database: catalog.database), purpose: .standbyReads)
                : try await RawSQLSession(catalog.adminConnector)
        }
    }

    @Test("searches go to the standby and saves to the primary, both named bookshelf in pg_stat_activity")
    func readsOnTheStandby() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote(for: setting.editor, reads: .standby)
        let dune = setting.mainBooks[0]
        // The caller's note (the app's request panel) learns the route of its own read.
        let note = ReadRouteNote()
        let page = try await ReadRouteNote.$current.withValue(note) {
            try await remote.search(SearchQuery(text: "dune", limit: 10, offset: 0))
        }
        #expect(page.records == [dune])
        #expect(remote.lastReadRoute?.servedByStandby == true)
        #expect(note.route?.servedByStandby == true && note.route?.server == remote.lastReadRoute?.server)
        let sessions = "SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND application_name = 'bookshelf'"
        let onStandby = try await setting.superuser(onStandby: true)
        #expect(try await onStandby.rows(sessions, [setting.editor.name]) == [["1"]])
        // The standby is named first: the save reaches the primary because libpq asked.
        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        #expect(saved.revision == 2)
        // On the primary: the session's connection and the change check's own.
        let onPrimary = try await setting.superuser(onStandby: false)
        #expect(try await onPrimary.rows(sessions, [setting.editor.name]) == [["2"]])
        #expect(
            try await onPrimary.rows("SELECT title, revision FROM bookshelf.books WHERE id = $1", [String(dune.id)])
                == [["Dune Messiah", "2"]])
    }

    @Test("reads from the primary, the default, never open a session on the standby")
    func primaryReadsStayOnThePrimary() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote(for: setting.reader, reads: .primary)
        let note = ReadRouteNote()
        let found = try await ReadRouteNote.$current.withValue(note) {
            try await remote.search(SearchQuery(text: "emma", limit: 10, offset: 0))
        }
        #expect(found.records == [setting.mainBooks[1]])
        #expect(remote.lastReadRoute == nil && note.route == nil)
        let onStandby = try await setting.superuser(onStandby: true)
        #expect(
            try await onStandby.rows("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [setting.reader.name])
                == [["0"]])
    }

    @Test("with the standby 3 s behind, a save and another's change show at once: the primary answers")
    func laggingStandbyFallsBack() async throws {
        let setting = try await Setting()
        try await setting.cluster.delayStandby(by: .seconds(3))
        let remote = try await setting.remote(for: setting.editor, reads: .standby)
        let other = try await setting.catalog.remote(for: setting.editor)
        let (dune, emma) = (setting.mainBooks[0], setting.mainBooks[1])
        _ = try await remote.checkForChanges()

        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Revised", expectedRevision: 1))
        let found = try await remote.search(SearchQuery(text: "revised", limit: 10, offset: 0))
        #expect(found.records == [saved])
        #expect(remote.lastReadRoute?.fellBack == true)
        #expect(try await remote.load(id: dune.id) == saved)

        // Another session's save, learned by the change check, is not taken back by the
        // standby either: the refresh the notice starts shows it.
        let theirs = try await other.save(SaveRequest(id: emma.id, title: "Emma Woodhouse", expectedRevision: 1))
        let notice = try await remote.checkForChanges()
        #expect(notice?.bookIDs == [emma.id])
        #expect(try await remote.search(SearchQuery(text: "woodhouse", limit: 10, offset: 0)).records == [theirs])
        #expect(try await remote.load(id: emma.id) == theirs)
    }

    @Test("a bulk edit's chunk is read where one book is; after a chunk commits, no read is older than it")
    func chunksFollowTheReadRoute() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote(for: setting.editor, reads: .standby)
        let (dune, emma) = (setting.mainBooks[0], setting.mainBooks[1])
        let note = ReadRouteNote()
        let read = try await ReadRouteNote.$current.withValue(note) {
            try await remote.load(ids: [emma.id, setting.otherBooks[0].id, dune.id])
        }
        #expect(read == [emma, dune])
        #expect(note.route?.servedByStandby == true)
        // The standby has the batch, then falls 3 s behind: only the chunk's commit is not there.
        let batch = try await remote.beginBatch(BatchStart())
        try await setting.cluster.waitForStandbyReplay()
        try await setting.cluster.delayStandby(by: .seconds(3))

        let saved = try await remote.save(
            [dune, emma].map { SaveRequest(id: $0.id, title: $0.title + " Revised", expectedRevision: 1) },
            inBatch: batch, until: BatchStop())

        #expect(try await remote.load(ids: [dune.id, emma.id]) == saved.map { try $0.get() })
        #expect(remote.lastReadRoute?.fellBack == true)
    }

    @Test("with the standby 3 s behind, the book a conflict names is loaded at the revision the conflict said")
    func conflictThenTheirs() async throws {
        let setting = try await Setting()
        try await setting.cluster.delayStandby(by: .seconds(3))
        let remote = try await setting.remote(for: setting.editor, reads: .standby)
        let other = try await setting.catalog.remote(for: setting.editor)
        let emma = setting.mainBooks[1]
        #expect(try await remote.load(id: emma.id) == emma)
        let theirs = try await other.save(SaveRequest(id: emma.id, title: "Emma Woodhouse", expectedRevision: 1))
        await #expect(throws: BookFailure.conflict(expected: 1, actual: 2)) {
            try await remote.save(SaveRequest(id: emma.id, title: "Emma Knightley", expectedRevision: 1))
        }
        // The merge is made against theirs: the load must not come from before their save.
        #expect(try await remote.load(id: emma.id) == theirs)
    }

    @Test("with the standby 3 s behind, a save is seen by the app's next session, of another account or the same")
    func floorOutlivesTheSession() async throws {
        let setting = try await Setting()
        try await setting.cluster.delayStandby(by: .seconds(3))
        // One connector for the app, signing in as each account it switches to.
        let app = try setting.cluster.multiHostConnector(
            database: setting.catalog.database, user: setting.editor.name, reads: .standby)
        let editor = try await PostgresRemote.connect(app)
        let dune = setting.mainBooks[0]
        let saved = try await editor.save(SaveRequest(id: dune.id, title: "Dune Switched", expectedRevision: 1))
        let reader = try await PostgresRemote.connect(app.signingIn(as: setting.reader.name))
        #expect(try await reader.load(id: dune.id) == saved)
        let editorAgain = try await PostgresRemote.connect(app.signingIn(as: setting.editor.name))
        #expect(try await editorAgain.search(SearchQuery(text: "switched", limit: 10, offset: 0)).records == [saved])
    }

    @Test("with no standby among the hosts, --reads standby is served by the primary, and the route says so")
    func noStandbyAmongTheHosts() async throws {
        let setting = try await Setting()
        var primaryOnly = setting.catalog.connector(for: setting.reader)
        primaryOnly.reads = .standby
        let remote = try await PostgresRemote.connect(primaryOnly)
        #expect(try await remote.load(id: setting.mainBooks[0].id) == setting.mainBooks[0])
        let route = try #require(remote.lastReadRoute)
        #expect(!route.servedByStandby && !route.fellBack)
    }

    @Test("a standby that has replayed the floor serves the read after a save")
    func caughtUpStandbyServes() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote(for: setting.editor, reads: .standby)
        let dune = setting.mainBooks[0]
        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Again", expectedRevision: 1))
        try await setting.cluster.waitForStandbyReplay()
        #expect(try await remote.load(id: dune.id) == saved)
        #expect(remote.lastReadRoute?.servedByStandby == true)
    }

    @Test("on the standby, each role's raw SQL sees its own scope and account only")
    func privacyHoldsOnTheStandby() async throws {
        let setting = try await Setting()
        for (account, books) in [
            (setting.reader, setting.mainBooks), (setting.editor, setting.mainBooks),
            (setting.outsider, setting.otherBooks),
        ] {
            let session = try await setting.standbySQL(as: account)
            let ids = try await session.rows("SELECT id FROM bookshelf.books ORDER BY id").compactMap {
                $0[0].flatMap { Int($0) }
            }
            #expect(ids == books.map(\.id), "\(account.role) of \(account.scope)")
            #expect(try await session.rows("SELECT name FROM bookshelf.accounts") == [[account.name]])
            #expect(try await session.rows("SELECT count(*) FROM bookshelf.saves") == [["0"]])
        }
        let editor = try await setting.standbySQL(as: setting.editor)
        #expect(try await editor.rows("SELECT count(*) FROM bookshelf.books WHERE scope = 'other'") == [["0"]])
        let search =
            "SELECT id FROM bookshelf.search_page(ARRAY[$1]::text[], $2, 50, NULL, NULL, NULL, 10000, $3::tsquery, $2) WHERE id IS NOT NULL"
        #expect(try await editor.rows(search, ["% secret%", " secret%", "'secret'"]).isEmpty)
        // SET ROLE to the group drops the account, and with it every book, here as on the primary.
        _ = try await editor.rows("SET ROLE \(try await setting.catalog.group(.editor))")
        #expect(try await editor.rows("SELECT count(*) FROM bookshelf.books") == [["0"]])
        // And the standby refuses every write, whoever asks.
        let reader = try await setting.standbySQL(as: setting.reader)
        #expect(
            try await reader.run(
                "UPDATE bookshelf.books SET title = 'Mine', revision = revision + 1 WHERE id = $1",
                [String(setting.mainBooks[0].id)]
            ).sqlState == "25006")
        let superuser = try await setting.superuser(onStandby: true)
        #expect(try await superuser.rows("SELECT count(*) FROM bookshelf.books") == [["3"]])
    }
}

extension PostgresReplicaTests {
    @Test("a one-host string naming a standby is told as a standby where saves cannot be made, not as unreachable")
    func oneHostStandby() async throws {
        let setting = try await Setting()
        let standby = try #require(setting.cluster.standby)
        // The old primary, now a standby, named alone: it answers, but only for reads.
        let connector = PostgresConnector(
            standby.conninfo(database: setting.catalog.database, user: setting.editor.name), connectTimeoutSeconds: 5)
        do {
            _ = try await PostgresRemote.connect(connector)
            Issue.record("signed in for saves on a standby")
        } catch let BookFailure.storeRefused(reason) {
            #expect(reason.contains("standby") && reason.contains("saves cannot be made"), "\(reason)")
            #expect(!reason.contains("hot standby mode"), "libpq's raw words: \(reason)")
        }
    }
}

/// Starts the suite's primary and standby once, however many tests ask.
private actor SharedReplicatedCluster {
    static let instance = SharedReplicatedCluster()
    private var started: Task<PostgresTestCluster, any Error>?

    func cluster() async throws -> PostgresTestCluster {
        if let started { return try await started.value }
        // A private pair: the shared cluster has no standby, and these tests delay this one's replay.
        let task = Task.detached { try PostgresTestCluster.startWithStandby() }
        started = task
        return try await task.value
    }
}
