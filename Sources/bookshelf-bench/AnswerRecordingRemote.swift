import BookCatalog
import Foundation
import SQLiteCatalog
import SearchEngine
import Synchronization

/// An SQLite remote whose searches keep what answered them (`SQLiteBookRemote.answer`), for the
/// modes that search through the app or a repository and then report how: the store itself
/// keeps no record of its answers.
final class AnswerRecordingRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote,
    AccountAwareRemote,
    HistoryKeepingRemote
{
    let remote: SQLiteBookRemote
    private let answers = Mutex<Answers>(Answers())

    private struct Answers {
        var last: SearchStrategy?
        var lastPageBeforeItsCount: SearchStrategy?
    }

    init(_ remote: SQLiteBookRemote) { self.remote = remote }

    /// How the last search was answered.
    var lastAnswer: SearchStrategy? { answers.withLock { $0.last } }
    /// How the last page shown before its count was answered (its count's own answer follows it in `lastAnswer`).
    var lastPageBeforeItsCount: SearchStrategy? { answers.withLock { $0.lastPageBeforeItsCount } }

    func bookCount() async throws -> Int { try await remote.bookCount() }

    func search(_ query: SearchQuery) async throws -> SearchPage {
        let answer = try await remote.answer(query)
        answers.withLock {
            $0.last = answer.strategy
            if answer.strategy.countFollows { $0.lastPageBeforeItsCount = answer.strategy }
        }
        return answer.page
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
