import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

@Suite(
    "PostgreSQL concurrency and notifications",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresConcurrencyTests {
    struct Outcome: Sendable {
        let request: SaveRequest
        let saved: BookRecord?
    }

    @Test("six connections saving three books from stale and fresh bases lose no update")
    func noLostUpdates() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let accounts = [
            try await catalog.addAccount("ann", role: .editor, scope: "main"),
            try await catalog.addAccount("bob", role: .editor, scope: "main"),
        ]
        let books = try await catalog.addBooks(
            [NewBook(title: "One"), NewBook(title: "Two"), NewBook(title: "Three")],
            scope: "main")
        let writers = 6, rounds = 12
        var remotes: [PostgresRemote] = []
        for writer in 0..<writers { remotes.append(try await catalog.remote(for: accounts[writer % 2])) }

        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for (writer, remote) in remotes.enumerated() {
                group.addTask {
                    var seen: [Int: BookRecord] = [:]
                    var outcomes: [Outcome] = []
                    for round in 0..<rounds {
                        let book = books[(writer + round) % books.count]
                        // Odd rounds save from whatever this writer saw last: often stale.
                        let base = round % 2 == 1 ? (seen[book.id] ?? book) : try await remote.load(id: book.id)
                        let request = SaveRequest(
                            id: book.id, title: "w\(writer) r\(round)", expectedRevision: base.revision)
                        do {
                            let saved = try await remote.save(request)
                            seen[book.id] = saved
                            outcomes.append(Outcome(request: request, saved: saved))
                        } catch let BookFailure.conflict(expected, actual) {
                            #expect(expected == base.revision && actual > expected)
                            outcomes.append(Outcome(request: request, saved: nil))
                        }
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }

        let checker = remotes[0]
        for book in books {
            let wins = outcomes.filter { $0.request.id == book.id && $0.saved != nil }.sorted {
                $0.saved!.revision < $1.saved!.revision
            }
            let final = try await checker.load(id: book.id)
            #expect(final.revision == 1 + wins.count)
            // Each win was based on the win before it: nobody's title was overwritten unseen.
            for (index, win) in wins.enumerated() {
                #expect(win.saved!.revision == index + 2)
                #expect(win.request.expectedRevision == index + 1)
            }
            #expect(final.title == (wins.last?.request.title ?? book.title))
        }
        for outcome in outcomes {
            #expect(try await checker.committedRevision(of: outcome.request.operation) == outcome.saved?.revision)
        }
        let conflicts = outcomes.filter { $0.saved == nil }.count
        print(
            "PostgreSQL concurrency: \(outcomes.count) saves, \(outcomes.count - conflicts) committed, \(conflicts) conflicts"
        )
    }

    @Test("a save on one connection reaches a listening repository, which then reads the new revision")
    func notificationReachesRepository() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let ann = try await catalog.addAccount("ann", role: .editor, scope: "main")
        let bob = try await catalog.addAccount("bob", role: .editor, scope: "main")
        let outsider = try await catalog.addAccount("outsider", role: .editor, scope: "other")
        let books = try await catalog.addBooks([NewBook(title: "Dune"), NewBook(title: "Emma")], scope: "main")
        let secret = try #require(try await catalog.addBooks([NewBook(title: "Secret")], scope: "other").first)
        let (dune, emma) = (books[0], books[1])

        let bobRemote = try await catalog.remote(for: bob)
        let repository = BookRepository(remote: bobRemote)
        #expect(try await repository.book(id: dune.id, policy: .cached).revision == 1)
        #expect(try await repository.checkForChanges() == nil)

        _ = try await catalog.remote(for: outsider).save(id: secret.id, title: "Elsewhere", expectedRevision: 1)
        _ = try await repository.save(SaveRequest(id: emma.id, title: "Emma, Revised", expectedRevision: 1))
        let annRemote = try await catalog.remote(for: ann)
        _ = try await annRemote.save(SaveRequest(id: dune.id, title: "Dune Messiah", expectedRevision: 1))

        // Notifications are asynchronous in general: wait for this one, with a deadline.
        let notice = try await Await.until("the other connection's change notice") {
            try await repository.checkForChanges()
        } _: {
            $0 != nil
        }
        // Only the other connection's save in this scope: not our own, not another scope's.
        #expect(notice == ChangeNotice(bookIDs: [dune.id]))
        #expect(
            try await repository.book(id: dune.id, policy: .cached)
                == BookRecord(id: dune.id, title: "Dune Messiah", revision: 2))
        #expect(try await repository.checkForChanges() == nil)
    }
}
