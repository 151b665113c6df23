import BookCatalog
import Foundation
import Testing

/// The repository passes a store's history through only when it is well formed.
@Suite struct RepositoryHistoryTests {
    /// A remote whose history answer is chosen by the test.
    actor FixedHistoryRemote: SearchableBookRemote, HistoryKeepingRemote {
        let answer: [BookRevision]
        init(_ answer: [BookRevision]) { self.answer = answer }
        func load(id: Int) async throws -> BookRecord { throw BookFailure.missing }
        func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
            throw BookFailure.notAllowed
        }
        func history(of id: Int) async throws -> [BookRevision] { answer }
        func search(_ query: SearchQuery) async throws -> SearchPage { SearchPage(records: [], total: 0) }
        func bookCount() async throws -> Int { 0 }
    }

    static func revision(_ id: Int, _ number: Int, _ title: String = "T") -> BookRevision {
        BookRevision(
            record: BookRecord(id: id, title: title, revision: number), account: nil, savedAt: Date(), operation: nil)
    }

    @Test func aWellFormedHistoryPassesThrough() async throws {
        let history = [Self.revision(7, 3), Self.revision(7, 2), Self.revision(7, 1)]
        #expect(try await BookRepository(remote: FixedHistoryRemote(history)).history(id: 7) == history)
    }

    @Test(arguments: [
        [revision(7, 1), revision(7, 2)],  // oldest first
        [revision(7, 2), revision(7, 2)],  // a revision twice
        [revision(7, 2), revision(8, 1)],  // another book's revision
        [revision(7, 1, "")],  // no title
        [revision(7, 0)],  // no revision
    ])
    func aMalformedHistoryIsAnError(_ history: [BookRevision]) async {
        await #expect(throws: BookFailure.invalidResponse) {
            _ = try await BookRepository(remote: FixedHistoryRemote(history)).history(id: 7)
        }
    }

    /// A store that keeps no history (it searches and counts, as every store does).
    actor LoadOnlyRemote: SearchableBookRemote {
        func search(_ query: SearchQuery) async throws -> SearchPage { SearchPage(records: [], total: 0) }
        func bookCount() async throws -> Int { 0 }
        func load(id: Int) async throws -> BookRecord { BookRecord(id: id, title: "T", revision: 1) }
        func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
            throw BookFailure.notAllowed
        }
    }

    @Test func aRemoteWithoutHistoryIsUnsupported() async {
        await #expect(throws: BookFailure.unsupported) {
            _ = try await BookRepository(remote: LoadOnlyRemote()).history(id: 1)
        }
    }
}
