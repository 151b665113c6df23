import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// An administrator changes an account's role and scope in bookshelf.accounts while the
/// account's session is open (issue 43, item 8): the session's next change check reports the
/// account as it is now, and the remote's `account` follows.
@Suite(
    "PostgreSQL account changes reach an open session",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresAccountChangeTests {
    @Test("a demotion, then a move to another scope, each come back from the next change check")
    func roleAndScopeChangesAreReported() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let erin = try await catalog.addAccount("erin", role: .editor, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)
        let north = try #require(try await catalog.addBooks([NewBook(title: "Northern Lights")], scope: "north").first)
        let remote = try await catalog.remote(for: erin)
        #expect(try await remote.checkForChanges() == nil)
        #expect(try await remote.search(SearchQuery(text: "")).records == [dune])

        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.accounts SET role = 'reader' WHERE name = $1", [erin.name])
        let reader = Account(name: erin.name, role: .reader, scope: "main")
        // Only the role: no book changed, and the books shown stay right.
        #expect(try await remote.checkForChanges() == ChangeNotice(bookIDs: [], account: reader))
        #expect(remote.account == reader)
        #expect(try await remote.checkForChanges() == nil)

        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.accounts SET scope = 'north' WHERE name = $1", [erin.name])
        let moved = Account(name: erin.name, role: .reader, scope: "north")
        // Another scope is other books: the notice names none, so everything is read again.
        #expect(try await remote.checkForChanges() == ChangeNotice(bookIDs: nil, account: moved))
        #expect(remote.account == moved)
        #expect(try await remote.search(SearchQuery(text: "")).records == [north])
        #expect(try await remote.checkForChanges() == nil)
    }

    @Test("a role changed by hand in bookshelf.accounts changes what the database lets the account do")
    func aRoleChangedByHandMovesTheAccountsGroup() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let erin = try await catalog.addAccount("erin", role: .reader, scope: "main")
        let dune = try #require(try await catalog.addBooks([NewBook(title: "Dune")], scope: "main").first)

        // Promoted by hand: the database lets her save, as the row (and so her header) says.
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.accounts SET role = 'editor' WHERE name = $1", [erin.name])
        let promoted = try await catalog.remote(for: erin)
        #expect(promoted.account.role == .editor)
        #expect(try await promoted.save(id: dune.id, title: "Dune Messiah", expectedRevision: 1).revision == 2)

        // Demoted by hand: no longer.
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.accounts SET role = 'reader' WHERE name = $1", [erin.name])
        let demoted = try await catalog.remote(for: erin)
        #expect(demoted.account.role == .reader)
        await #expect(throws: BookFailure.notAllowed) {
            _ = try await demoted.save(id: dune.id, title: "Children of Dune", expectedRevision: 2)
        }
        #expect(
            try await catalog.setup.execute(
                "SELECT pg_has_role($1, $2, 'MEMBER')", [erin.name, try await catalog.group(.editor)]) == [["f"]])
    }

    @Test("a change made while the connection was down comes back with the first check after reconnecting")
    func changeWhileDisconnectedIsReported() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let erin = try await catalog.addAccount("erin", role: .reader, scope: "main")
        let remote = try await catalog.remote(for: erin)
        #expect(try await remote.checkForChanges() == nil)

        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.accounts SET role = 'editor' WHERE name = $1", [erin.name])
        _ = try await catalog.setup.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1",
            [erin.name])
        let editor = Account(name: erin.name, role: .editor, scope: "main")
        // The first call after the cut finds the connection dead and reconnects (a read is sent
        // again once); the check after a reconnect names no books, and says who the account is now.
        var notice: ChangeNotice?
        for _ in 0..<3 where notice == nil {
            do { notice = try await remote.checkForChanges() } catch BookFailure.storeUnavailable { continue }
        }
        #expect(notice == ChangeNotice(bookIDs: nil, account: editor, reconnected: true))
        #expect(remote.account == editor)
    }
}
