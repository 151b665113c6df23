import BookCatalog
import Testing

// The seed's sample code, unchanged: its test fakes and its two verification blocks must
// compile and pass against `import BookCatalog` alone (this target depends on nothing else).
// This file is the floor of the public API.

/// The seed's own in-memory fake, as the seed declares it.
actor MemoryBookRemote: BookRemote {
    private var records: [Int: BookRecord]
    private(set) var loads = 0
    init(_ records: [Int: BookRecord]) { self.records = records }
    func load(id: Int) async throws -> BookRecord {
        loads += 1
        guard let record = records[id] else { throw BookFailure.missing }
        return record
    }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        guard !title.isEmpty else { throw BookFailure.invalidTitle }
        guard let old = records[id] else { throw BookFailure.missing }
        guard old.revision == expectedRevision else {
            throw BookFailure.conflict(expected: expectedRevision, actual: old.revision)
        }
        guard old.revision < Int.max else { throw BookFailure.revisionExhausted }
        let next = BookRecord(id: id, title: title, revision: old.revision + 1)
        records[id] = next
        return next
    }
}

actor DelayedBookRemote: BookRemote {
    private var current = BookRecord(id: 1, title: "Before", revision: 1)
    private var held: (BookRecord, CheckedContinuation<BookRecord, Never>)?
    private var waitingForLoad: CheckedContinuation<Void, Never>?
    private(set) var loadCount = 0

    func load(id: Int) async throws -> BookRecord {
        guard id == current.id else { throw BookFailure.missing }
        loadCount += 1
        if loadCount == 1 {
            let captured = current
            return await withCheckedContinuation { continuation in
                held = (captured, continuation)
                waitingForLoad?.resume()
                waitingForLoad = nil
            }
        }
        return current
    }
    func waitUntilLoadIsHeld() async {
        if held != nil { return }
        await withCheckedContinuation { waitingForLoad = $0 }
    }
    func releaseHeldLoad() {
        guard let (value, continuation) = held else { preconditionFailure("No held load") }
        held = nil
        continuation.resume(returning: value)
    }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        guard id == current.id else { throw BookFailure.missing }
        guard !title.isEmpty else { throw BookFailure.invalidTitle }
        guard current.revision == expectedRevision else {
            throw BookFailure.conflict(expected: expectedRevision, actual: current.revision)
        }
        guard current.revision < Int.max else { throw BookFailure.revisionExhausted }
        current = BookRecord(id: id, title: title, revision: current.revision + 1)
        return current
    }
}

@Suite("Seed verification")
struct SeedVerificationTests {
    @Test("cache, update and conflict behave as the seed states")
    func cacheUpdateAndConflict() async throws {
        let remote = MemoryBookRemote([1: BookRecord(id: 1, title: "Draft", revision: 1)])
        let repository = BookRepository(remote: remote)
        let first = try await repository.book(id: 1, policy: .cached)
        let again = try await repository.book(id: 1, policy: .cached)
        let loads = await remote.loads
        assert(first == again && loads == 1)
        let saved = try await repository.update(id: 1, title: "Published", expectedRevision: 1)
        assert(saved.revision == 2)
        let cached = try await repository.book(id: 1, policy: .cached)
        assert(cached == saved)
        do {
            _ = try await repository.update(id: 1, title: "Obsolete edit", expectedRevision: 1)
            assertionFailure("An obsolete writer must not overwrite the new revision")
        } catch BookFailure.conflict(expected: 1, actual: 2) {}
        let afterConflict = try await repository.book(id: 1, policy: .cached)
        assert(afterConflict.title == "Published")

        // The same facts as test expectations, so a release build still checks them.
        #expect(first == again && loads == 1)
        #expect(saved.revision == 2 && cached == saved && afterConflict.title == "Published")
    }

    @Test("an old load released after a write does not replace the cached write")
    func delayedLoadAfterWrite() async throws {
        let delayedRemote = DelayedBookRemote()
        let racingRepository = BookRepository(remote: delayedRemote)
        let oldRead = Task { try await racingRepository.book(id: 1, policy: .refresh) }
        await delayedRemote.waitUntilLoadIsHeld()
        let newWrite = try await racingRepository.update(id: 1, title: "After", expectedRevision: 1)
        await delayedRemote.releaseHeldLoad()
        let oldResult = try await oldRead.value
        let retainedResult = try await racingRepository.book(id: 1, policy: .cached)
        let delayedLoadCount = await delayedRemote.loadCount
        assert(oldResult.revision == 1 && newWrite.revision == 2)
        assert(retainedResult == newWrite && delayedLoadCount == 1)

        #expect(oldResult.revision == 1 && newWrite.revision == 2)
        #expect(retainedResult == newWrite && delayedLoadCount == 1)
    }
}

// Not the seed's: since issue 59 a repository holds what every store implements, searching and
// counting included (`SearchableBookRemote`). The seed's fakes do neither, and say so, as the
// repository itself said for a remote without a search before: the seed's checks never search.
extension MemoryBookRemote: SearchableBookRemote {
    func search(_ query: SearchQuery) async throws -> SearchPage { throw BookFailure.unsupported }
    func bookCount() async throws -> Int { throw BookFailure.unsupported }
}

extension DelayedBookRemote: SearchableBookRemote {
    func search(_ query: SearchQuery) async throws -> SearchPage { throw BookFailure.unsupported }
    func bookCount() async throws -> Int { throw BookFailure.unsupported }
}
