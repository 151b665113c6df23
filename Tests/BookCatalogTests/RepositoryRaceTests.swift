@testable import BookCatalog
import CatalogSimulation
import Testing

/// One interleaving each, as the seed's exercise asks.
@Suite("Repository races")
struct RepositoryRaceTests {
    let original = BookRecord(id: 1, title: "Before", revision: 1, author: "Ada")

    @Test("two write responses arriving in reverse revision order never move the cache back")
    func writeResponsesInReverseOrder() async throws {
        let (remote, repository) = steppedRepository(original, savesCommitOnArrival: true)
        let first = Task { try await repository.update(id: 1, title: "Second", expectedRevision: 1) }
        await remote.waitForArrivals(1)
        let second = Task { try await repository.update(id: 1, title: "Third", expectedRevision: 2) }
        await remote.waitForArrivals(2)

        await remote.release(2, .deliver)
        #expect(try await second.value.revision == 3)
        await remote.release(1, .deliver)
        #expect(try await first.value.revision == 2)

        let cached = await repository.cachedBook(id: 1)
        #expect(cached?.revision == 3 && cached?.title == "Third")
    }

    @Test(
        "a malformed successful save answer is an error and nothing is cached",
        arguments: [
            BookRecord(id: 2, title: "Other book", revision: 2),
            BookRecord(id: 1, title: "Not newer", revision: 1),
            BookRecord(id: 1, title: "", revision: 2),
            BookRecord(id: 1, title: "Zero", revision: 0),
        ])
    func malformedSaveAnswer(answer: BookRecord) async throws {
        let (remote, repository) = steppedRepository(original)
        let save = Task { try await repository.update(id: 1, title: "After", expectedRevision: 1) }
        await remote.waitForArrivals(1)
        await remote.release(1, .record(answer))
        await #expect(throws: BookFailure.invalidResponse) { try await save.value }
        #expect(await repository.cachedBook(id: 1) == nil)
    }

    @Test("a malformed load answer is an error and is not cached")
    func malformedLoadAnswer() async throws {
        let (remote, repository) = steppedRepository(original)
        let load = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)
        await remote.release(1, .record(BookRecord(id: 7, title: "Wrong id", revision: 1)))
        await #expect(throws: BookFailure.invalidResponse) { try await load.value }
        #expect(await repository.cachedBook(id: 1) == nil)
    }

    @Test("a write with an uncertain outcome leaves nothing cached, and reconciling finds it committed")
    func uncertainWrite() async throws {
        let (remote, repository) = steppedRepository(original)
        let warm = Task { try await repository.book(id: 1, policy: .cached) }
        await remote.waitForArrivals(1)
        await remote.release(1, .deliver)
        _ = try await warm.value
        #expect(await repository.cachedBook(id: 1) == original)

        let request = SaveRequest(id: 1, title: "After", expectedRevision: 1)
        let save = Task { try await repository.save(request) }
        await remote.waitForArrivals(2)
        await remote.release(2, .commitThenFail(.outcomeUnknown))
        await #expect(throws: BookFailure.outcomeUnknown) { try await save.value }
        #expect(await repository.cachedBook(id: 1) == nil)

        let reconciled = Task { try await repository.reconcile(request) }
        await remote.waitForArrivals(3)
        await remote.release(3, .deliver)
        #expect(try await reconciled.value == .committed(BookRecord(id: 1, title: "After", revision: 2, author: "Ada")))
    }

    @Test("a write that failed before committing reconciles as not committed")
    func failedWriteReconcilesAsNotCommitted() async throws {
        let (remote, repository) = steppedRepository(original)
        let request = SaveRequest(id: 1, title: "After", expectedRevision: 1)
        let save = Task { try await repository.save(request) }
        await remote.waitForArrivals(1)
        await remote.release(1, .fail(.outcomeUnknown))
        await #expect(throws: BookFailure.outcomeUnknown) { try await save.value }
        let reconciled = Task { try await repository.reconcile(request) }
        await remote.waitForArrivals(2)
        await remote.release(2, .deliver)
        #expect(try await reconciled.value == .notCommitted(current: original))
    }

    @Test("concurrent loads of one book share one remote call")
    func concurrentLoadsShareOneCall() async throws {
        let (remote, repository) = steppedRepository(original)
        let first = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)
        let second = Task { try await repository.book(id: 1, policy: .refresh) }
        let third = Task { try await repository.book(id: 1, policy: .cached) }
        await repository.waitForSharedLoad(id: 1, callers: 3)
        // The joiners are parked on the first call; release it and all three answer.
        await remote.release(1, .deliver)
        #expect(try await first.value == original)
        #expect(try await second.value == original)
        #expect(try await third.value == original)
        #expect(await remote.arrivalCount() == 1)
    }

    @Test("a load started during a write does not join a load from before it")
    func loadDuringWriteDoesNotJoin() async throws {
        let (remote, repository) = steppedRepository(original)
        let early = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)
        let save = Task { try await repository.update(id: 1, title: "After", expectedRevision: 1) }
        await remote.waitForArrivals(2)
        let late = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(3)
        await remote.release(2, .deliver)
        _ = try await save.value
        await remote.release(3, .deliver)
        await remote.release(1, .deliver)
        #expect(try await early.value.revision == 1)
        #expect(try await late.value.revision == 1)
        #expect(await repository.cachedBook(id: 1)?.revision == 2)
    }

    @Test("a search that started before a save cannot bring the old title back")
    func searchRowsNeverGoBackward() async throws {
        let remote = MemoryBookRemote([1: original])
        let repository = BookRepository(remote: remote)
        _ = try await repository.update(id: 1, title: "After", expectedRevision: 1)
        // A search answer carrying revision 1 (as one that began before the save would).
        let stale = StaleSearchRemote(row: original)
        let staleRepository = BookRepository(remote: stale)
        _ = try await staleRepository.book(id: 1, policy: .refresh)
        let page = try await staleRepository.search(SearchQuery(text: ""))
        #expect(page.records == [BookRecord(id: 1, title: "After", revision: 2, author: "Ada")])
    }

    @Test("the floor the repository shares holds its newest answer, and an older one arriving later does not lower it")
    func sharedFloorNeverGoesBackward() async throws {
        let (remote, repository) = steppedRepository(original, savesCommitOnArrival: true)
        let load = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)  // the load reads revision 1
        let save = Task { try await repository.update(id: 1, title: "After", expectedRevision: 1) }
        await remote.waitForArrivals(2)  // the save commits revision 2
        let saved = BookRecord(id: 1, title: "After", revision: 2, author: "Ada")

        await remote.release(2, .deliver)
        #expect(try await save.value == saved)
        #expect(repository.newestSeen.newest(of: 1) == saved)
        await remote.release(1, .deliver)
        #expect(try await load.value == original)
        #expect(repository.newestSeen.newest(of: 1) == saved)
        #expect(repository.newestSeen.newest(of: 2) == nil)
    }
}

/// Loads answer the newest record; searches answer an older one, as a search that read
/// before a commit and answered after it would.
private actor StaleSearchRemote: SearchableBookRemote {
    let row: BookRecord
    init(row: BookRecord) { self.row = row }
    func load(id: Int) async throws -> BookRecord {
        BookRecord(id: row.id, title: "After", revision: row.revision + 1, author: row.author)
    }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord { throw BookFailure.notAllowed }
    func search(_ query: SearchQuery) async throws -> SearchPage { SearchPage(records: [row], total: 1) }
    func bookCount() async throws -> Int { 1 }
}
