import BookCatalog
import CatalogSimulation
import Foundation
import Testing

/// A store's answer carries a book's details as a store keeps them (`BookDetails.validated()`
/// gives them back unchanged). Any other details are a malformed answer, like an empty title:
/// an error, never cached.
@Suite struct RepositoryDetailsTests {
    static let details = BookDetails(
        isbn: "9780141439518", year: 1869, publisher: "Penguin", series: "Classics", seriesIndex: SeriesIndex("2"),
        tags: ["classic", "Russian"], notes: "One\nTwo")
    static let original = BookRecord(id: 1, title: "War and Peace", revision: 1, author: "Tolstoy", details: details)

    /// Details no store keeps: each differs from its canonical form, or breaks a rule.
    static let notCanonical: [BookDetails] = [
        BookDetails(isbn: "0141439513"),  // the ISBN-10 form
        BookDetails(isbn: "978-0-14-143951-8"),  // hyphens
        BookDetails(isbn: "9780141439519"),  // a wrong check digit
        BookDetails(year: 99_999),
        BookDetails(publisher: " Penguin"),  // untrimmed
        BookDetails(series: "Classics\u{1B}[31m"),  // a control character
        BookDetails(tags: ["Russian", "classic"]),  // out of order
        BookDetails(tags: ["war", "War"]),  // twice when folded
        BookDetails(tags: ["a,b"]),
        BookDetails(notes: "One\r\nTwo"),
        BookDetails(notes: "One\n"),
    ]

    static func answer(_ revision: Int, _ details: BookDetails) -> BookRecord {
        BookRecord(id: 1, title: "War and Peace", revision: revision, author: "Tolstoy", details: details)
    }

    @Test(
        "a save answered with details that are not canonical is an error, and nothing is cached",
        arguments: notCanonical)
    func saveAnswer(details: BookDetails) async throws {
        let (remote, repository) = steppedRepository(Self.original)
        let save = Task {
            try await repository.save(SaveRequest(id: 1, title: "War and Peace", expectedRevision: 1))
        }
        await remote.waitForArrivals(1)
        await remote.release(1, .record(Self.answer(2, details)))
        await #expect(throws: BookFailure.invalidResponse) { try await save.value }
        #expect(await repository.cachedBook(id: 1) == nil)
    }

    @Test("a load answered with details that are not canonical is an error, and is not cached", arguments: notCanonical)
    func loadAnswer(details: BookDetails) async throws {
        let (remote, repository) = steppedRepository(Self.original)
        let load = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)
        await remote.release(1, .record(Self.answer(1, details)))
        await #expect(throws: BookFailure.invalidResponse) { try await load.value }
        #expect(await repository.cachedBook(id: 1) == nil)
    }

    @Test("a search row with details that are not canonical makes the page an error, and admits no row")
    func searchAnswer() async throws {
        let (remote, repository) = steppedRepository(Self.original)
        let good = BookRecord(id: 2, title: "Anna Karenina", revision: 1)
        for (number, details) in Self.notCanonical.enumerated() {
            let search = Task { try await repository.search(SearchQuery(text: "")) }
            await remote.waitForArrivals(number + 1)
            await remote.release(number + 1, .page([good, Self.answer(1, details)], total: 2))
            await #expect(throws: BookFailure.invalidResponse) { try await search.value }
            #expect(await repository.cachedBook(id: 2) == nil)
        }
    }

    @Test("a history revision with details that are not canonical makes the history an error")
    func historyAnswer() async throws {
        for details in Self.notCanonical {
            let (remote, repository) = steppedRepository(Self.original, keepingRecords: true)
            await remote.put(Self.answer(2, details))
            let history = Task { try await repository.history(id: 1) }
            await remote.waitForArrivals(1)
            await remote.release(1, .deliver)
            await #expect(throws: BookFailure.invalidResponse) { try await history.value }
        }
    }

    @Test("canonical details pass through every answer and are cached")
    func canonicalDetailsPass() async throws {
        let (remote, repository) = steppedRepository(Self.original, keepingRecords: true)
        let load = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1)
        await remote.release(1, .deliver)
        #expect(try await load.value == Self.original)
        #expect(await repository.cachedBook(id: 1) == Self.original)

        let written = BookDetails(year: 1870, tags: ["epic"])
        let save = Task {
            try await repository.save(SaveRequest(id: 1, title: "War and Peace", details: written, expectedRevision: 1))
        }
        await remote.waitForArrivals(2)
        await remote.release(2, .deliver)
        #expect(try await save.value == Self.answer(2, written))
        #expect(await repository.cachedBook(id: 1) == Self.answer(2, written))
    }

    @Test("without an operation log, a save counts as committed only if the book holds the details it sent")
    func reconcileComparesDetails() async throws {
        let sent = BookDetails(year: 1870)
        let request = SaveRequest(id: 1, title: "War and Peace", details: sent, expectedRevision: 1)
        for (stored, committed) in [(sent, true), (Self.details, false)] {
            let (remote, repository) = steppedRepository(Self.original)
            await remote.put(Self.answer(2, stored))
            let reconciled = Task { try await repository.reconcile(request) }
            await remote.waitForArrivals(1)
            await remote.release(1, .deliver)
            let expected: ReconciledSave =
                committed ? .committed(Self.answer(2, stored)) : .notCommitted(current: Self.answer(2, stored))
            #expect(try await reconciled.value == expected)
        }
    }
}
