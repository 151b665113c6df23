import BookCatalog
import Foundation
import SQLiteCatalog
import Synchronization

/// An SQLite remote that keeps what answered its last searches (each page says it,
/// `SearchPage.source`), for the modes that search through a repository or an app of their own,
/// which keep only the rows, and then report how (the search mode's scaling table, the bulk
/// mode's typing). The keys and calibre modes read what answered each page from the app model's
/// request log instead (`TypedApp`).
final class AnswerRecordingRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote,
    AccountAwareRemote,
    HistoryKeepingRemote
{
    let remote: SQLiteBookRemote
    private let answers = Mutex<Answers>(Answers())

    private struct Answers {
        var last: SearchAnswerSource?
    }

    init(_ remote: SQLiteBookRemote) { self.remote = remote }

    /// How the last search was answered.
    var lastAnswer: SearchAnswerSource? { answers.withLock { $0.last } }

    func bookCount() async throws -> Int { try await remote.bookCount() }

    func search(_ query: SearchQuery) async throws -> SearchPage {
        let page = try await remote.search(query)
        answers.withLock { $0.last = page.source }
        return page
    }

    var account: Account { remote.account }
    func load(id: Int) async throws -> BookRecord { try await remote.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await remote.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    func save(_ request: SaveRequest) async throws -> BookRecord { try await remote.save(request) }
    func checkForChanges() async throws -> ChangeNotice? { try await remote.checkForChanges() }
    func committedRevision(of operation: UUID) async throws -> Int? {
        try await remote.committedRevision(of: operation)
    }
    func history(of id: Int) async throws -> [BookRevision] { try await remote.history(of: id) }
}
