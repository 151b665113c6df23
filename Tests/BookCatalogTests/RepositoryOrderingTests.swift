@testable import BookCatalog
import CatalogSimulation
import Testing

/// One ordering each, as a real store produces them: commits and answers at separate steps,
/// notices between two steps. Expectations come from what the store committed, and when.
@Suite("Repository orderings")
struct RepositoryOrderingTests {
    let original = BookRecord(id: 1, title: "Before", revision: 1, author: "Ada")

    /// A search of every book that has read revision 1 of book 1 and not answered yet.
    private func searchThatReadRevisionOne() async -> (SteppedRemote, BookRepository, Task<SearchPage, any Error>) {
        let (remote, repository) = steppedRepository(original)
        let search = Task { try await repository.search(SearchQuery(text: "")) }
        await remote.waitForArrivals(1)
        await remote.perform(1)
        return (remote, repository, search)
    }

    /// Books 1 and 2, both cached after one load each.
    private func twoCachedBooks() async throws -> (MemoryBookRemote, BookRepository) {
        let remote = MemoryBookRemote([1: original, 2: BookRecord(id: 2, title: "Other", revision: 1)])
        let repository = BookRepository(remote: remote)
        _ = try await repository.book(id: 1, policy: .cached)
        _ = try await repository.book(id: 2, policy: .cached)
        return (remote, repository)
    }

    /// A save of "After" whose answer was lost: after its commit, or before it reached the store.
    private func uncertainSave(committed: Bool) async -> (SteppedRemote, BookRepository, SaveRequest) {
        let (remote, repository) = steppedRepository(original, keepingRecords: true)
        let request = SaveRequest(id: 1, title: "After", author: "Ada", expectedRevision: 1)
        let uncertain = Task { try await repository.save(request) }
        await remote.waitForArrivals(1)
        if committed { await remote.perform(1) }
        await remote.release(1, .fail(.outcomeUnknown))
        _ = await uncertain.result
        return (remote, repository, request)
    }

    private func save(_ repository: BookRepository, _ title: String, expected: Int) -> Task<BookRecord, any Error> {
        Task { try await repository.save(SaveRequest(id: 1, title: title, author: "Ada", expectedRevision: expected)) }
    }

    @Test("a late save answer does not re-cache an older revision after a failed save cleared the cache")
    func lateSaveAnswerAfterAFailedSave() async throws {
        let (remote, repository) = steppedRepository(original)
        let first = save(repository, "Second", expected: 1)
        await remote.waitForArrivals(1)
        await remote.perform(1)  // commits revision 2; its answer is held
        let second = save(repository, "Third", expected: 2)
        await remote.waitForArrivals(2)
        await remote.perform(2)  // commits revision 3
        await remote.release(2, .deliver)
        #expect(try await second.value.revision == 3)
        let third = save(repository, "Fourth", expected: 1)
        await remote.waitForArrivals(3)
        await remote.release(3, .fail(.storeUnavailable("down")))
        _ = await third.result

        await remote.release(1, .deliver)
        #expect(try await first.value.revision == 2)
        let cached = await repository.cachedBook(id: 1)
        let stored = await remote.books[1]!
        #expect(stored.revision == 3)
        #expect(
            cached == nil || cached == stored,
            "the store is at revision 3; the cache holds \(String(describing: cached))")
    }

    @Test(
        "a save answer held past a notice of a later commit is not cached",
        arguments: [ChangeNotice.unspecified, ChangeNotice(bookIDs: [1])])
    func lateSaveAnswerAfterANotice(notice: ChangeNotice) async throws {
        let (remote, repository) = steppedRepository(original)
        let mine = save(repository, "Mine", expected: 1)
        await remote.waitForArrivals(1)
        await remote.perform(1)  // commits revision 2
        await remote.commitElsewhere(id: 1, title: "Theirs")  // revision 3
        await repository.invalidate(notice)
        await remote.release(1, .deliver)
        #expect(try await mine.value.revision == 2)
        let cached = await repository.cachedBook(id: 1)
        #expect(
            cached == nil || cached?.revision == 3,
            "the store is at revision 3; the cache holds \(String(describing: cached))")
    }

    @Test("a notice naming no books stops a search that read before it, with nothing cached yet")
    func unspecifiedNoticeStopsAnInFlightSearch() async throws {
        let (remote, repository, search) = await searchThatReadRevisionOne()
        await remote.commitElsewhere(id: 1, title: "Theirs")
        await repository.invalidate(.unspecified)
        await remote.release(1, .deliver)
        #expect(try await search.value.records.map(\.revision) == [1], "the caller still gets what the search read")
        #expect(await repository.cachedBook(id: 1) == nil, "rows read before the notice are not cached as fresh")
    }

    @Test("a notice naming no books clears every cached book")
    func unspecifiedNoticeClearsTheCache() async throws {
        let (remote, repository) = try await twoCachedBooks()
        await repository.invalidate(.unspecified)
        #expect(await repository.cachedBook(id: 1) == nil)
        #expect(await repository.cachedBook(id: 2) == nil)
        _ = try await repository.book(id: 1, policy: .cached)
        #expect(await remote.loads == 3, "the next cached read went to the store")
    }

    @Test("a notice naming a book clears that book only")
    func namedNoticeClearsThatBook() async throws {
        let (_, repository) = try await twoCachedBooks()
        await repository.invalidate(ChangeNotice(bookIDs: [1]))
        #expect(await repository.cachedBook(id: 1) == nil)
        #expect(await repository.cachedBook(id: 2) != nil)
    }

    @Test("a search that read before a save whose answer was lost does not cache its rows")
    func searchRowsFromBeforeAnUncertainSave() async throws {
        let (remote, repository, search) = await searchThatReadRevisionOne()
        let uncertain = save(repository, "After", expected: 1)
        await remote.waitForArrivals(2)
        await remote.perform(2)  // commits revision 2
        await remote.release(2, .fail(.outcomeUnknown))
        _ = await uncertain.result
        await remote.release(1, .deliver)
        _ = try await search.value
        let cached = await repository.cachedBook(id: 1)
        #expect(cached == nil, "the store is at revision 2; the cache holds \(String(describing: cached))")
    }

    @Test("a conflict leaves nothing cached: the next read goes to the store")
    func conflictClearsTheCache() async throws {
        let (remote, repository) = steppedRepository(original)
        let warm = Task { try await repository.book(id: 1, policy: .cached) }
        await remote.waitForArrivals(1)
        await remote.perform(1)
        await remote.release(1, .deliver)
        _ = try await warm.value
        await remote.commitElsewhere(id: 1, title: "Theirs")  // no notice: only the conflict tells
        let stale = save(repository, "Mine", expected: 1)
        await remote.waitForArrivals(2)
        await remote.perform(2)
        await remote.release(2, .deliver)
        await #expect(throws: BookFailure.conflict(expected: 1, actual: 2)) { try await stale.value }
        #expect(await repository.cachedBook(id: 1) == nil)
    }

    @Test("reconciling asks the log before reading: a commit between the two is never 'committed' with the old record")
    func reconcileAsksTheLogFirst() async throws {
        // Lost before it reached the store; still queued there.
        let (remote, repository, request) = await uncertainSave(committed: false)

        let reconciled = Task { try await repository.reconcile(request) }
        await remote.waitForArrivals(2)
        await remote.perform(2)  // the read
        await remote.perform(1)  // the queued save commits revision 2, between the read and its answer
        await remote.release(2, .deliver)
        switch try await reconciled.value {
        case let .committed(record):
            #expect(record.revision >= 2, "reported committed with \(record), older than the commit")
        case let .committedThenChanged(revision, current):
            #expect(current.revision >= revision)
        case let .notCommitted(current):
            #expect(current.revision == 1, "not committed when it read: the record it read is from before the commit")
        }
    }

    @Test("reconciling a save that committed before anyone else saved reports that record")
    func reconcileFindsTheCommit() async throws {
        let (remote, repository, request) = await uncertainSave(committed: true)
        let reconciled = Task { try await repository.reconcile(request) }
        await remote.waitForArrivals(2)
        await remote.perform(2)
        await remote.release(2, .deliver)
        #expect(try await reconciled.value == .committed(BookRecord(id: 1, title: "After", revision: 2, author: "Ada")))
    }

    @Test("reconciling a save that committed, after someone else saved on top, reports both apart")
    func reconcileAfterAnotherWriter() async throws {
        let (remote, repository, request) = await uncertainSave(committed: true)
        let theirs = await remote.commitElsewhere(id: 1, title: "Theirs")
        let reconciled = Task { try await repository.reconcile(request) }
        await remote.waitForArrivals(2)
        await remote.perform(2)
        await remote.release(2, .deliver)
        #expect(try await reconciled.value == .committedThenChanged(revision: 2, current: theirs))
    }

    @Test("a book at the last revision refuses another save, and nothing is cached")
    func revisionExhausted() async throws {
        let last = BookRecord(id: 1, title: "Last", revision: Int.max)
        let remote = MemoryBookRemote([1: last])
        let repository = BookRepository(remote: remote)
        await #expect(throws: BookFailure.revisionExhausted) {
            try await repository.update(id: 1, title: "Beyond", expectedRevision: Int.max)
        }
        #expect(await repository.cachedBook(id: 1) == nil)
        #expect(try await repository.book(id: 1, policy: .cached) == last, "the book is unchanged")
    }
}
