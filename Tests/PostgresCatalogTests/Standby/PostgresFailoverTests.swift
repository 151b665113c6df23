import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// A failover with asynchronous replication, on real servers: a save the old primary
/// acknowledged and the standby never received is gone once the standby is promoted. The
/// session that made it must find that out at its next read, through the same connection
/// string, and saving the text again must work.
@Suite(.serialized, .enabled(if: PostgresTestCluster.shouldRun), .tags(.postgres))
struct PostgresFailoverTests {
    @Test("a save acknowledged by the old primary and lost in the failover is reported, and saved again")
    func lostSaveIsReportedAndSavedAgain() async throws {
        // A private cluster: its primary is killed and its standby promoted.
        let cluster = try PostgresTestCluster.startWithStandby()
        defer { cluster.destroy() }
        let catalog = try await PostgresTestCatalog.make(on: cluster)
        let editor = try await catalog.addAccount("ed", role: .editor, scope: "main")
        let original = try #require(
            try await catalog.addBooks([NewBook(title: "Before", author: "Ada")], scope: "main").first)
        try await cluster.waitForStandbyReplay()

        let remote = try await PostgresRemote.connect(
            try cluster.primaryFirstConnector(database: catalog.database, user: editor.name))
        let repository = BookRepository(remote: remote)
        #expect(try await repository.book(id: original.id, policy: .refresh) == original)

        try await cluster.cutStandbyOff()
        #expect(try await cluster.standbysStreamingFromPrimary() == 0)
        let mine = try await repository.save(
            SaveRequest(id: original.id, title: "Mine", author: "Ada", expectedRevision: original.revision))
        #expect(mine.revision == original.revision + 1 && mine.title == "Mine")
        try await cluster.writeOutPrimaryWAL()
        try cluster.killPrimary()
        try await cluster.promoteStandby()

        // The standby stopped before the save: the new primary has the book as it was.
        let after = try await repository.book(id: original.id, policy: .refresh)
        #expect(after == original)
        let lost = repository.lostSaves.take()
        #expect(lost.map(\.saved) == [mine] && lost.map(\.current) == [original])
        #expect(repository.lostSaves.take().isEmpty)

        let again = try await repository.save(
            SaveRequest(id: original.id, title: mine.title, author: mine.author, expectedRevision: after.revision))
        #expect(again.title == "Mine" && again.revision == original.revision + 1)
        let onNewPrimary = try await RawSQLSession(try cluster.standbyConnector(database: catalog.database))
        let stored = try await onNewPrimary.rows(
            "SELECT title, revision FROM bookshelf.books WHERE id = $1", [String(original.id)])
        #expect(stored == [["Mine", String(original.revision + 1)]])
    }
}
