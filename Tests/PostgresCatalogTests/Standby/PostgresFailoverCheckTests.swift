import BookCatalog
import BookshelfTestSupport
import Foundation
import Locking
@testable import PostgresCatalog
import TestTags
import Testing

/// A failover with asynchronous replication, on real servers: two saves the old primary
/// acknowledged and the standby never received are gone once the standby is promoted. The
/// session's change checks, and nothing else, must find both: the first check that answers
/// after the failover says it reconnected, and the repository reads every acknowledged save
/// again (issue 56, item 5).
@Suite(
    "PostgreSQL: lost saves found by the change checks after a failover", .serialized, .tags(.postgres, .slow),
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"))
struct PostgresFailoverCheckTests {
    @Test("two saves lost in a failover are both found by the change checks, with no read of either book")
    func checksFindEveryLostSave() async throws {
        let cluster = try PostgresTestCluster.startWithStandby()
        defer { cluster.destroy() }
        let catalog = try await PostgresTestCatalog.make(on: cluster)
        let editor = try await catalog.addAccount("ed", role: .editor, scope: "main")
        let books = try await catalog.addBooks(
            [NewBook(title: "Dune", author: "Frank Herbert"), NewBook(title: "Emma", author: "Jane Austen")],
            scope: "main")
        try await cluster.waitForStandbyReplay()

        let remote = try await PostgresRemote.connect(
            try cluster.primaryFirstConnector(database: catalog.database, user: editor.name))
        let repository = BookRepository(remote: remote)
        _ = try await repository.checkForChanges()

        try await cluster.cutStandbyOff()
        var mine: [BookRecord] = []
        for book in books {
            mine.append(
                try await repository.save(
                    SaveRequest(id: book.id, title: book.title + " Revised", author: book.author, expectedRevision: 1)))
        }
        try await cluster.writeOutPrimaryWAL()
        try cluster.killPrimary()
        try await cluster.promoteStandby()

        // The checks fail while no server takes writes, then one answers through the promoted
        // standby: the losses are found though neither book was read by the test.
        let lost = Locked<[LostSave]>([])
        try await Await.until("both lost saves to be found by the change checks", timeout: .seconds(30)) {
            _ = try? await repository.checkForChanges()
            await repository.acknowledgedSavesVerified()
            let found = repository.lostSaves.take()
            return lost.withLock {
                $0 += found; return $0.count
            }
        } _: {
            $0 >= 2
        }
        #expect(lost.withLock { $0 }.map(\.saved) == mine)
        #expect(lost.withLock { $0 }.map(\.current) == books)
    }
}
