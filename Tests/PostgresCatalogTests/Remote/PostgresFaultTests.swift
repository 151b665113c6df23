import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

@Suite(
    "PostgreSQL faults", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresFaultTests {
    @Test("a stopped server is storeUnavailable on every call; after a restart the remote reconnects")
    func serverRestart() async throws {
        // A private cluster: stopping the shared one would break the suites running beside this.
        let cluster = try PostgresTestCluster.start()
        defer { cluster.destroy() }
        let catalog = try await PostgresTestCatalog.make(on: cluster)
        let account = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let remote = try await catalog.remote(for: account)
        #expect(try await remote.load(id: dune.id) == dune)

        try cluster.stopServer()
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("load", { _ = try await remote.load(id: dune.id) }),
            ("save", { _ = try await remote.save(SaveRequest(id: dune.id, title: "Lost", expectedRevision: 1)) }),
            ("search", { _ = try await remote.search(SearchQuery(text: "dune")) }),
            ("checkForChanges", { _ = try await remote.checkForChanges() }),
            ("committedRevision", { _ = try await remote.committedRevision(of: UUID()) }),
        ]
        for (name, call) in calls {
            do {
                try await call()
                Issue.record("\(name) succeeded with the server stopped")
            } catch BookFailure.storeUnavailable {
            } catch {
                Issue.record("\(name) failed with \(error), not storeUnavailable")
            }
        }

        try cluster.startServer()
        // The first call after the restart is a save: nothing was sent on the dead
        // connection, so it must reconnect and commit, not report an unknown outcome.
        let saved = try await remote.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        #expect(saved.revision == 2)
        #expect(try await remote.checkForChanges() == ChangeNotice(bookIDs: nil, reconnected: true))
        #expect(try await remote.checkForChanges() == nil)
    }

    /// Issue 43, item 4: a save waiting on a row lock when the server stops at once
    /// (`pg_ctl stop -m immediate`). Once the server is back, the first change check answers
    /// and the operation id settles the save: it never committed.
    @Test("a save cut off by an immediate server stop is settled through its operation id after the restart")
    func saveCutByImmediateStopIsSettledAfterRestart() async throws {
        // A private cluster: it is stopped immediately (a crash) and restarted.
        let cluster = try PostgresTestCluster.start()
        defer { cluster.destroy() }
        let catalog = try await PostgresTestCatalog.make(on: cluster)
        let account = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let repository = BookRepository(remote: try await catalog.remote(for: account))
        let holder = try await RawSQLSession(catalog.adminConnector)
        let watcher = try await RawSQLSession(catalog.adminConnector)
        _ = try await holder.rows("BEGIN")
        _ = try await holder.rows("SELECT id FROM bookshelf.books WHERE id = $1 FOR UPDATE", [String(dune.id)])
        let request = SaveRequest(id: dune.id, title: "Blocked", expectedRevision: 1)
        let save = Task { try await repository.save(request) }
        try await Await.until("the save to wait on the row lock", every: .milliseconds(10)) {
            try await watcher.rows(
                "SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'", [account.name])
        } _: {
            !$0.isEmpty
        }

        // The test cluster runs with synchronous_commit=off: without a checkpoint the crash
        // would lose the setup's commits (the account itself), which a real server keeps.
        _ = try await watcher.rows("CHECKPOINT")
        try cluster.stopServerImmediately()
        await #expect(throws: BookFailure.outcomeUnknown) { _ = try await save.value }
        do {
            _ = try await repository.reconcile(request)
            Issue.record("reconciled with the server stopped")
        } catch BookFailure.storeUnavailable {}
        try cluster.startServer()

        // The first check after the restart answers (anything may have changed), and the
        // operation id says the save never committed: the book is as it was.
        #expect(try await repository.checkForChanges() == ChangeNotice(bookIDs: nil, reconnected: true))
        #expect(try await repository.reconcile(request) == .notCommitted(current: dune))
        #expect(try await repository.save(request.rebased(onto: 1)).revision == 2)
    }

    @Test("a save whose connection is killed while it waits is outcomeUnknown, and reconcile settles it")
    func connectionKilledAfterSending() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let account = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let repository = BookRepository(remote: try await catalog.remote(for: account))
        let holder = try await RawSQLSession(catalog.adminConnector)
        let killer = try await RawSQLSession(catalog.adminConnector)

        // A third connection's open transaction holds the row lock, so the save is surely
        // sent and surely waiting when its backend is terminated.
        _ = try await holder.rows("BEGIN")
        _ = try await holder.rows("SELECT id FROM bookshelf.books WHERE id = $1 FOR UPDATE", [String(dune.id)])
        let request = SaveRequest(id: dune.id, title: "Blocked", expectedRevision: 1)
        let save = Task { try await repository.save(request) }

        let waiting = try await Await.until("the save to wait on the row lock", every: .milliseconds(10)) {
            try await killer.rows(
                "SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'", [account.name]
            ).first?[0] ?? nil
        } _: {
            $0 != nil
        }
        let pid = try #require(waiting)
        #expect(try await killer.rows("SELECT pg_terminate_backend($1::int)", [pid]) == [["t"]])
        await #expect(throws: BookFailure.outcomeUnknown) { _ = try await save.value }
        _ = try await holder.rows("ROLLBACK")

        #expect(try await repository.reconcile(request) == .notCommitted(current: dune))

        // An idle connection killed between calls: the next save notices before sending.
        let retry = request.rebased(onto: 1)
        let idlePID = try await killer.rows("SELECT pid FROM pg_stat_activity WHERE usename = $1", [account.name])
        for row in idlePID { _ = try await killer.rows("SELECT pg_terminate_backend($1::int)", [row[0]]) }
        // Termination is a signal: wait until the backend is gone (it has closed the socket).
        try await Await.until("the terminated backend to leave pg_stat_activity", every: .milliseconds(10)) {
            try await killer.rows("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [account.name])
        } _: {
            $0 == [["0"]]
        }
        // The backend leaves pg_stat_activity a moment before its process exits and its
        // socket closes; wait for the process itself so the client can see the close.
        for row in idlePID {
            guard let text = row[0], let number = Int32(text) else { continue }
            try Await.until("the terminated backend's process \(number) to exit", every: .milliseconds(10)) {
                kill(number, 0) != 0
            }
        }
        let saved = try await repository.save(retry)
        #expect(saved == BookRecord(id: dune.id, title: "Blocked", revision: 2))
        #expect(try await repository.reconcile(retry) == .committed(saved))
    }
}
