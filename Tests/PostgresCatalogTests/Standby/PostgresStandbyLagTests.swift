import BookCatalog
import BookshelfTestSupport
import Foundation
import Locking
@testable import PostgresCatalog
import TestTags
import Testing

/// A real primary and hot standby (`pg_basebackup -R`) whose replay the tests pause
/// (`pg_wal_replay_pause()`), as a standby far behind looks to a session typing at it: the
/// wait for the standby is paid once, not once per key, a read given up stops waiting, and the
/// change check never waits behind reads. Then the standby restarted: reads come back to it.
/// Serialized: the tests pause, resume and restart the one standby.
@Suite(
    "PostgreSQL standby lag and return", .serialized, .tags(.postgres, .process, .slow),
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresStandbyLagTests {
    /// What the first read meant for the paused standby waits before the primary answers it.
    static let standbyWait: Duration = .milliseconds(500)

    struct Setting {
        let cluster: PostgresTestCluster
        let catalog: PostgresTestCatalog
        let editor: Account
        let books: [BookRecord]

        init() async throws {
            cluster = try await LagCluster.instance.cluster()
            catalog = try await PostgresTestCatalog.make(on: cluster)
            editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
            books = try await catalog.addBooks(
                [NewBook(title: "Dune"), NewBook(title: "Emma"), NewBook(title: "Middlemarch")], scope: "main")
            // Whatever an earlier test left paused replays again.
            _ = try await standbySQL().rows("SELECT pg_wal_replay_resume()")
            try await cluster.waitForStandbyReplay()
        }

        func remote(standbyWait: Duration = PostgresStandbyLagTests.standbyWait) async throws -> PostgresRemote {
            try await PostgresRemote.connect(
                cluster.multiHostConnector(
                    database: catalog.database, user: editor.name, reads: .standby, standbyWait: standbyWait))
        }

        func standbySQL() async throws -> RawSQLSession {
            try await RawSQLSession(cluster.standbyConnector(database: "postgres"), purpose: .standbyReads)
        }

        /// Stops the standby's replay where it is: from now on it falls further behind each write.
        func pauseReplay() async throws {
            _ = try await standbySQL().rows("SELECT pg_wal_replay_pause()")
        }

        func resumeReplay() async throws {
            _ = try await standbySQL().rows("SELECT pg_wal_replay_resume()")
        }
    }

    @Test("superseded searches stop waiting for a paused standby at once; the newest waits once")
    func supersededReadsStopWaiting() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote()
        let dune = setting.books[0]
        try await setting.pauseReplay()
        // The save puts the session's floor past anything the paused standby has replayed.
        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Chronicles", expectedRevision: 1))
        // Typing "chronicle": each key's search replaces (and cancels) the one before, as the app's does.
        var superseded: [Task<SearchPage, any Error>] = []
        for prefix in ["c", "ch", "chr", "chro", "chron", "chroni", "chronic", "chronicl"] {
            superseded.last?.cancel()
            superseded.append(Task { try await remote.search(SearchQuery(text: prefix, limit: 10, offset: 0)) })
        }
        superseded.last?.cancel()
        let newest = try await remote.search(SearchQuery(text: "chronicle", limit: 10, offset: 0))
        #expect(newest.records == [saved])
        #expect(remote.lastReadRoute?.fellBack == true)
        // How many searches waited is StandbyLagRuleTests' to say, on a clock the test moves. The
        // wall clock says more about the test process than the reads: traced, the newest read
        // waits its one wait and each superseded one starts already given up and ends at once,
        // while each task made here and each resumption after the worker waits for a thread of
        // the concurrency pool, which other suites of a parallel run hold in blocking calls (CI
        // took 8 s for five searches and 13 s for nine). Key to results is `bookshelf-bench
        // replicas`'s figure.
        for task in superseded {
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        try await setting.resumeReplay()
    }

    @Test("after one read fell back for lag, reads go to the primary until a change check finds the standby caught up")
    func behindStandbyIsSkipped() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote()
        let (dune, emma) = (setting.books[0], setting.books[1])
        try await setting.pauseReplay()
        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        // The first read waits out the standby wait, then the primary answers.
        #expect(try await remote.load(id: dune.id) == saved)
        #expect(remote.lastReadRoute?.fellBack == true)
        #expect(remote.lastReadRoute?.waitedForReplay == true)
        // The next reads do not wait again. The route says so: a wall clock said as much about
        // the machine's load as about the reads (a quiet read took 1.6 s in a loaded series).
        for _ in 0..<3 {
            #expect(try await remote.load(id: emma.id) == emma)
            #expect(remote.lastReadRoute?.fellBack == true)
            #expect(remote.lastReadRoute?.waitedForReplay == false)
        }
        try await setting.resumeReplay()
        try await setting.cluster.waitForStandbyReplay()
        // Caught up, but nothing has asked it since: still the primary, still without waiting.
        #expect(try await remote.load(id: emma.id) == emma)
        #expect(remote.lastReadRoute?.fellBack == true)
        // A change check lets the next read ask the standby once where it stands.
        try await Await.until("a read served by the caught-up standby after a change check", every: .zero) {
            () async throws -> Bool in
            _ = try await remote.checkForChanges()
            let loaded = try await remote.load(id: dune.id)
            #expect(loaded == saved)
            return remote.lastReadRoute?.servedByStandby == true
        } _: {
            $0
        }
    }

    @Test("the change check answers at once while a read waits for the paused standby")
    func changeCheckDoesNotQueueBehindReads() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote(standbyWait: .seconds(6))
        let other = try await setting.catalog.remote(for: setting.editor)
        let (dune, emma) = (setting.books[0], setting.books[1])
        _ = try await remote.checkForChanges()
        try await setting.pauseReplay()
        _ = try await remote.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        let readDone = Locked(false)
        let read = Task {
            defer { readDone.withLock { $0 = true } }
            return try await remote.bookCount()
        }
        // The read is under way once the session has a connection on the standby.
        try setting.cluster.standby?.waitForActivity(
            where: "usename = '\(setting.editor.name)' AND application_name = 'bookshelf'")
        let theirs = try await other.save(SaveRequest(id: emma.id, title: "Emma Woodhouse", expectedRevision: 1))
        let started = ContinuousClock.now
        let notice = try await remote.checkForChanges()
        let elapsed = ContinuousClock.now - started
        #expect(notice?.bookIDs == [theirs.id])
        // The read waits 6 s; the check answering before it ended is what shows it did not queue.
        #expect(elapsed < .seconds(4), "the check answered after \(elapsed)")
        #expect(readDone.withLock { $0 } == false, "the read ended before the check: it did not wait")
        #expect(try await read.value == 3)
        #expect(remote.lastReadRoute?.fellBack == true)
        try await setting.resumeReplay()
    }

    @Test("after the standby restarts, reads come back to it by themselves")
    func restartedStandbyServesAgain() async throws {
        let setting = try await Setting()
        let remote = try await setting.remote()
        let dune = setting.books[0]
        let standby = try #require(setting.cluster.standby)
        #expect(try await remote.load(id: dune.id) == dune)
        #expect(remote.lastReadRoute?.servedByStandby == true)
        try standby.stopServer()
        #expect(try await remote.load(id: dune.id) == dune)
        #expect(remote.lastReadRoute?.servedByStandby == false)
        try standby.startServer()
        // Within a few seconds (the retry delay is bounded), a read is served by the standby again.
        try await Await.until("a read served by the restarted standby", every: .milliseconds(100)) {
            () async throws -> Bool in
            let loaded = try await remote.load(id: dune.id)
            #expect(loaded == dune)
            return remote.lastReadRoute?.servedByStandby == true
        } _: {
            $0
        }
        let sessions = try await setting.standbySQL().rows(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND application_name = 'bookshelf'",
            [setting.editor.name])
        #expect(sessions == [["1"]])
    }
}

/// The suite's primary and standby, started once.
private actor LagCluster {
    static let instance = LagCluster()
    private var started: Task<PostgresTestCluster, any Error>?

    func cluster() async throws -> PostgresTestCluster {
        if let started { return try await started.value }
        // A private pair: the shared cluster has no standby, and these tests delay this one's replay.
        let task = Task.detached { try PostgresTestCluster.startWithStandby() }
        started = task
        return try await task.value
    }
}
