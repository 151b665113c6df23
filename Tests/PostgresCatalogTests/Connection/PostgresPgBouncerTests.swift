import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Bookshelf through a real PgBouncer in transaction pooling (each transaction may run on another
/// server connection) and in session pooling, with two accounts of other scopes and a third
/// beside one of them. What
/// holds: signing in, searching, saving, conflicts, each account seeing its own books only, and
/// another session's save found by the change check. What does not: LISTEN, whose server
/// session is handed to other clients; `ListenHearing` (what `setup --check` says) tells it.
@Suite(
    "PostgreSQL through PgBouncer", .serialized, .tags(.postgres, .process),
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .enabled(if: PgBouncerProcess.shouldRun, "pgbouncer not found (Debian package pgbouncer)"))
struct PostgresPgBouncerTests {
    struct Setting {
        let catalog: PostgresTestCatalog
        let bouncer: PgBouncerProcess
        let alice: Account
        let carol: Account
        let bob: Account
        let mainBooks: [BookRecord]
        let otherBooks: [BookRecord]

        /// `poolMode` and `poolSize`: PgBouncer's `pool_mode` and server connections per role.
        init(poolMode: String = "transaction", poolSize: Int = 1) async throws {
            catalog = try await PostgresTestCatalog.make()
            alice = try await catalog.addAccount("alice", role: .editor, scope: "main")
            carol = try await catalog.addAccount("carol", role: .editor, scope: "main")
            bob = try await catalog.addAccount("bob", role: .editor, scope: "other")
            mainBooks = try await catalog.addBooks(
                [NewBook(title: "Dune", author: "Frank Herbert"), NewBook(title: "Emma", author: "Jane Austen")],
                scope: "main")
            otherBooks = try await catalog.addBooks(
                [NewBook(title: "Dubliners", author: "James Joyce")], scope: "other")
            bouncer = try PgBouncerProcess(
                inFrontOf: catalog.cluster.server, database: catalog.database,
                users: [alice.name, carol.name, bob.name, PostgresTestCluster.superuser], poolMode: poolMode,
                poolSize: poolSize)
        }

        func connector(_ account: Account) -> PostgresConnector {
            PostgresConnector(
                bouncer.conninfo(database: catalog.database, user: account.name), connectTimeoutSeconds: 5)
        }
    }

    /// In transaction pooling with one server connection per role, every transaction of a role's
    /// clients (a session and its change check) takes turns on it. In session pooling each client
    /// holds one of its own.
    @Test(
        "search, save, conflict and the change check work through PgBouncer, each account on its own books",
        arguments: [("transaction", 1), ("session", 4)])
    func sessionsWorkAndStayApart(poolMode: String, poolSize: Int) async throws {
        let setting = try await Setting(poolMode: poolMode, poolSize: poolSize)
        defer { setting.bouncer.stop() }
        let alice = try await PostgresRemote.connect(setting.connector(setting.alice))
        let carol = try await PostgresRemote.connect(setting.connector(setting.carol))
        let bob = try await PostgresRemote.connect(setting.connector(setting.bob))
        let dune = setting.mainBooks[0]

        // Interleaved, so that each role's one server connection serves all its clients' turns.
        for _ in 0..<3 {
            let found = try await alice.search(SearchQuery(text: "du", limit: 10, offset: 0))
            #expect(found.records == [dune])
            let theirs = try await bob.search(SearchQuery(text: "du", limit: 10, offset: 0))
            #expect(theirs.records == setting.otherBooks)
        }
        let saved = try await alice.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))
        #expect(saved.revision == 2 && saved.title == "Dune Messiah")
        // Carol, beside Alice in the scope, is told by her change check, with no notification needed.
        let notice = try await Await.until("carol's change check to name Alice's save") {
            try await carol.checkForChanges()
        } _: {
            $0?.concerns(dune.id) == true && $0?.bookIDs != nil
        }
        #expect(notice?.bookIDs == [dune.id])
        #expect(try await carol.load(id: dune.id) == saved)
        // Carol's save of the revision she no longer holds is a conflict, as on a server of its own.
        await #expect(throws: BookFailure.conflict(expected: 1, actual: 2)) {
            try await carol.save(SaveRequest(id: dune.id, title: "Dune (Carol)", expectedRevision: 1))
        }
        // A bulk edit's chunk: one statement in the chunk's transaction, then there the question
        // about Dune, changed since the edit read it, which is merged and saved alone.
        let report = try await BulkEdit(repository: BookRepository(remote: carol)).apply(
            try BulkChange([.addTags(["pooled"])]), to: setting.mainBooks)
        #expect(report.outcomes.map(\.outcome.name) == ["merged", "saved"])
        for book in setting.mainBooks { #expect(try await alice.load(id: book.id).details.tags == ["pooled"]) }
        // Bob never sees the main scope's book, nor is told of its change.
        await #expect(throws: BookFailure.missing) { try await bob.load(id: dune.id) }
        #expect(try await bob.checkForChanges() == nil)
    }

    /// A stopped batch cancels its chunk's statement with libpq's cancel request, which goes to
    /// PgBouncer and is passed on to the server connection running that client's transaction.
    @Test("a stop cancels a bulk edit's chunk in flight through PgBouncer in transaction pooling")
    func aStopCancelsTheChunkThroughPgBouncer() async throws {
        let setting = try await Setting(poolSize: 2)
        defer { setting.bouncer.stop() }
        let more = try await setting.catalog.addBooks(
            (1...4).map { NewBook(title: "Pooled \($0)", author: "Ann Author") }, scope: "main")
        try await PostgresChunkSavingTests.stopCancelsTheSecondChunk(
            of: setting.mainBooks + more, savedBy: try await PostgresRemote.connect(setting.connector(setting.alice)),
            account: setting.alice.name, onTheServer: setting.catalog.adminConnector)
    }

    @Test("LISTEN is heard on the server itself, and not through PgBouncer in transaction pooling")
    func listenIsNotHeardThroughTransactionPooling() async throws {
        let setting = try await Setting()
        defer { setting.bouncer.stop() }
        let direct = setting.catalog.cluster.connector(database: setting.catalog.database, user: setting.alice.name)
        #expect(await ListenHearing.check(direct) == .heard)
        #expect(await ListenHearing.check(setting.connector(setting.alice)) == .notHeard)
    }
}
