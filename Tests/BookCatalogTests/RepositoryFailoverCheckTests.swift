@testable import BookCatalog
import CatalogSimulation
import Testing

/// After a failover the remote's first change check says it reconnected (and names no books: it
/// cannot tell what it missed). The check answers at once; the repository then reads again, one
/// after another, every book whose save it had acknowledged, without waiting for the user to
/// read one, and reports each save the promoted server does not have (issue 56, item 5).
@Suite("Repository, lost saves found after a reconnect without a read")
struct RepositoryFailoverCheckTests {
    static let dune = BookRecord(id: 1, title: "Dune", revision: 1, author: "Frank Herbert")
    static let emma = BookRecord(id: 2, title: "Emma", revision: 1, author: "Jane Austen")
    static let middlemarch = BookRecord(id: 3, title: "Middlemarch", revision: 1, author: "George Eliot")

    /// Saves a new title of each book, each acknowledged; returns the saves in order.
    private static func saveEach(
        _ books: [BookRecord], _ remote: SteppedRemote, _ repository: BookRepository
    ) async throws -> [BookRecord] {
        var saved: [BookRecord] = []
        for (index, book) in books.enumerated() {
            let save = Task {
                try await repository.save(
                    SaveRequest(id: book.id, title: book.title + " Revised", author: book.author, expectedRevision: 1))
            }
            await remote.release(await remote.call(index + 1, of: .save).number, .deliver)
            saved.append(try await save.value)
        }
        return saved
    }

    @Test("two acknowledged saves lost in a failover are both found after the check that says it reconnected")
    func everyLostSaveIsFoundWithoutARead() async throws {
        let (remote, repository) = steppedRepository(Self.dune, Self.emma, Self.middlemarch, savesCommitOnArrival: true)
        let saved = try await Self.saveEach([Self.dune, Self.emma, Self.middlemarch], remote, repository)
        // The promoted standby had replayed Emma's save, and not Dune's or Middlemarch's.
        await remote.loseRevisions(of: Self.dune.id, after: 1)
        await remote.loseRevisions(of: Self.middlemarch.id, after: 1)

        let check = Task { try await repository.checkForChanges() }
        let reconnected = ChangeNotice(bookIDs: nil, reconnected: true)
        await remote.release(await remote.call(1, of: .check).number, .notice(reconnected))
        // The check answers before any of the reads: it never waits behind them.
        #expect(try await check.value == reconnected)
        // Until the first read arrives (a bounded number of turns: none may ever come).
        var turns = 0
        while await remote.arrivalCount(of: .load) == 0, turns < 100_000 {
            await Task.yield()
            turns += 1
        }
        try #require(await remote.arrivalCount(of: .load) == 1, "no saved book was read again")
        // The repository reads each saved book again, one after another, on its own.
        for index in 1...3 {
            let load = await remote.call(index, of: .load)
            await remote.perform(load.number)
            await remote.release(load.number, .deliver)
        }
        await repository.acknowledgedSavesVerified()
        let lost = repository.lostSaves.take()
        #expect(lost.map(\.saved) == [saved[0], saved[2]])
        #expect(lost.map(\.current) == [Self.dune, Self.middlemarch])
        #expect(await remote.arrivalCount(of: .load) == 3)
    }

    @Test("a check that names books, or names none without having reconnected, reads nothing more")
    func otherNoticesReadNothing() async throws {
        let (remote, repository) = steppedRepository(Self.dune, savesCommitOnArrival: true)
        _ = try await Self.saveEach([Self.dune], remote, repository)
        for (index, notice) in [ChangeNotice(bookIDs: [7]), ChangeNotice(bookIDs: nil)].enumerated() {
            let check = Task { try await repository.checkForChanges() }
            await remote.release(await remote.call(index + 1, of: .check).number, .notice(notice))
            #expect(try await check.value == notice)
        }
        await repository.acknowledgedSavesVerified()
        #expect(await remote.arrivalCount(of: .load) == 0)
    }
}
