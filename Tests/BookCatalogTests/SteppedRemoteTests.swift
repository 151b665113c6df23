import BookCatalog
import CatalogSimulation
import Testing

/// The fake the ordering tests stand on: each call's store step and answer step happen when
/// the test says, and only then.
@Suite("Stepped remote")
struct SteppedRemoteTests {
    let original = BookRecord(id: 1, title: "Before", revision: 1, author: "Ada")

    @Test("a history read answers what it read at its store step, not what committed after it")
    func historyReadLagsBehindALaterCommit() async throws {
        let (remote, repository) = steppedRepository(original, keepingRecords: true)
        let lagging = Task { try await repository.history(id: 1) }
        await remote.waitForArrivals(1, of: .history)
        await remote.perform(1)
        let theirs = await remote.commitElsewhere(id: 1, title: "Theirs")
        await remote.release(1, .deliver)
        #expect(try await lagging.value.map(\.record) == [original])

        let fresh = Task { try await repository.history(id: 1) }
        await remote.waitForArrivals(2)
        await remote.release(2, .deliver)
        #expect(try await fresh.value.map(\.record) == [theirs, original], "newest first")
    }

    @Test("a save whose answer was lost before its store step commits when that step comes later")
    func queuedSaveCommitsAfterItsAnswer() async throws {
        let (remote, repository) = steppedRepository(original, keepingRecords: true)
        let request = SaveRequest(id: 1, title: "After", expectedRevision: 1)
        let lost = Task { try await repository.save(request) }
        await remote.waitForArrivals(1)
        await remote.release(1, .fail(.outcomeUnknown))
        await #expect(throws: BookFailure.outcomeUnknown) { try await lost.value }
        #expect(await remote.books[1] == original, "nothing committed yet")
        #expect(await remote.committedRevision(of: request.operation) == nil)

        await remote.perform(1)
        let committed = BookRecord(id: 1, title: "After", revision: 2, author: "Ada")
        #expect(await remote.books[1] == committed)
        #expect(await remote.committedRevision(of: request.operation) == 2)
        #expect(await remote.committedRevisions(of: 1) == [original, committed])
    }

    @Test("with saves committing on arrival, a save's commit is visible before its answer")
    func savesCommitOnArrival() async throws {
        let (remote, repository) = steppedRepository(original, savesCommitOnArrival: true)
        let save = Task { try await repository.update(id: 1, title: "After", expectedRevision: 1) }
        await remote.waitForArrivals(1)
        let committed = BookRecord(id: 1, title: "After", revision: 2, author: "Ada")
        #expect(await remote.books[1] == committed)
        #expect(await remote.isParked(1), "the answer is still held")
        await remote.release(1, .deliver)
        #expect(try await save.value == committed)
    }
}
