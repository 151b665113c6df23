import BookCatalog
import CatalogSimulation
import Testing

/// The fakes keep a book's details as a real store does: a save with details writes them all,
/// a save without them keeps what is stored.
@Suite("Fake details")
struct FakeDetailsTests {
    static let details = BookDetails(
        isbn: "9780141439518", year: 1869, publisher: "Penguin", series: "Classics",
        seriesIndex: SeriesIndex("2.5"), tags: ["classic", "Russian"], notes: "First line\nSecond line")
    static let original = BookRecord(id: 1, title: "War and Peace", revision: 1, author: "Tolstoy", details: details)

    @Test("a stepped save with details commits every one of them")
    func steppedSaveWritesDetails() async throws {
        let (remote, repository) = steppedRepository(Self.original)
        let written = BookDetails(isbn: "9780306406157", tags: ["war"])
        let save = Task {
            try await repository.save(SaveRequest(id: 1, title: "War and Peace", details: written, expectedRevision: 1))
        }
        await remote.waitForArrivals(1)
        await remote.release(1, .deliver)
        let committed = BookRecord(id: 1, title: "War and Peace", revision: 2, author: "Tolstoy", details: written)
        #expect(try await save.value == committed)
        #expect(await remote.books[1] == committed)
    }

    @Test("a stepped save without details keeps the stored ones")
    func steppedSaveKeepsDetails() async throws {
        let (remote, repository) = steppedRepository(Self.original)
        let save = Task { try await repository.save(SaveRequest(id: 1, title: "Renamed", expectedRevision: 1)) }
        await remote.waitForArrivals(1)
        await remote.release(1, .deliver)
        let committed = BookRecord(id: 1, title: "Renamed", revision: 2, author: "Tolstoy", details: Self.details)
        #expect(try await save.value == committed)
        #expect(await remote.books[1] == committed)
    }

    @Test("a stepped save refuses details that break a rule, and commits nothing")
    func steppedSaveRefusesInvalidDetails() async throws {
        let remote = SteppedRemote(books: [Self.original], savesCommitOnArrival: true)
        let request = SaveRequest(
            id: 1, title: "War and Peace", details: BookDetails(isbn: "9780306406158"), expectedRevision: 1)
        let save = Task { try await remote.save(request) }
        await remote.waitForArrivals(1)
        await remote.release(1, .deliver)
        await #expect(throws: BookFailure.self) { try await save.value }
        #expect(await remote.books[1] == Self.original)
    }

    @Test("another writer's commit keeps the book's details unless it names new ones")
    func commitElsewhereKeepsDetails() async throws {
        let remote = SteppedRemote(books: [Self.original])
        let renamed = await remote.commitElsewhere(id: 1, title: "Theirs")
        #expect(renamed == BookRecord(id: 1, title: "Theirs", revision: 2, author: "Tolstoy", details: Self.details))
        let cleared = await remote.commitElsewhere(id: 1, title: "Theirs", details: BookDetails.empty)
        #expect(cleared == BookRecord(id: 1, title: "Theirs", revision: 3, author: "Tolstoy"))
    }

    @Test("a memory save with details writes them all; without, keeps them; history has each")
    func memorySaveWritesAndKeepsDetails() async throws {
        let catalog = MemoryCatalog()
        let account = Account(name: "editor", role: .editor, scope: MemoryBookRemote.defaultScope)
        catalog.addAccount(account)
        let added = catalog.addBook(
            title: "War and Peace", author: "Tolstoy", details: Self.details, scope: MemoryBookRemote.defaultScope)
        #expect(
            added == BookRecord(id: 1, title: "War and Peace", revision: 1, author: "Tolstoy", details: Self.details))
        let remote = MemoryBookRemote(catalog: catalog, account: account)

        let kept = try await remote.save(SaveRequest(id: 1, title: "Renamed", expectedRevision: 1))
        #expect(kept == BookRecord(id: 1, title: "Renamed", revision: 2, author: "Tolstoy", details: Self.details))
        let written = BookDetails(year: 2001, notes: "One\nTwo")
        let rewritten = try await remote.save(
            SaveRequest(id: 1, title: "Renamed", details: written, expectedRevision: 2))
        #expect(rewritten == BookRecord(id: 1, title: "Renamed", revision: 3, author: "Tolstoy", details: written))
        #expect(try await remote.load(id: 1) == rewritten)
        #expect(try await remote.history(of: 1).map(\.record.details) == [written, Self.details, Self.details])
    }

    @Test("a memory save refuses details that break a rule, and commits nothing")
    func memorySaveRefusesInvalidDetails() async throws {
        let remote = MemoryBookRemote([1: Self.original])
        let refusal = await #expect(throws: BookFailure.self) {
            _ = try await remote.save(
                SaveRequest(id: 1, title: "X", details: BookDetails(year: 99_999), expectedRevision: 1))
        }
        guard case .invalidField(.year, _) = refusal else {
            Issue.record("refused for another reason: \(String(describing: refusal))")
            return
        }
        #expect(try await remote.load(id: 1) == Self.original)
    }
}
