import Foundation

/// A store of books as one account sees it. `save` is a compare-and-set: it commits only if
/// the stored revision still equals `expectedRevision`, and answers with the new record.
public protocol BookRemote: Sendable {
    func load(id: Int) async throws -> BookRecord
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord

    /// Saves title and author under an operation id. A remote that stores only titles
    /// keeps the default, which refuses an author change rather than dropping it.
    func save(_ request: SaveRequest) async throws -> BookRecord
}

extension BookRemote {
    public func save(_ request: SaveRequest) async throws -> BookRecord {
        guard request.author == nil else { throw BookFailure.unsupported }
        return try await save(id: request.id, title: request.title, expectedRevision: request.expectedRevision)
    }
}

/// One intended write: the edited fields, the revision they were based on, and an operation
/// id a store can remember so an uncertain outcome can be resolved exactly.
public struct SaveRequest: Sendable, Equatable {
    public let id: Int
    public let title: String
    /// `nil` leaves the stored author as it is.
    public let author: String?
    public let expectedRevision: Int
    public let operation: UUID

    public init(id: Int, title: String, author: String? = nil, expectedRevision: Int, operation: UUID = UUID()) {
        self.id = id
        self.title = title
        self.author = author
        self.expectedRevision = expectedRevision
        self.operation = operation
    }

    /// The request with title and author as a store keeps them (trimmed), or why it cannot be sent.
    public func validated() throws(BookFailure) -> SaveRequest {
        SaveRequest(id: id, title: try BookValidation.title(title),
                    author: try author.map { raw throws(BookFailure) in try BookValidation.author(raw) },
                    expectedRevision: expectedRevision, operation: operation)
    }

    /// The same operation against another base revision (an explicit overwrite).
    public func rebased(onto revision: Int) -> SaveRequest {
        SaveRequest(id: id, title: title, author: author, expectedRevision: revision, operation: UUID())
    }
}

/// What to search for. `text` is user text, never query syntax: adapters must treat every
/// character of it as literal.
public struct SearchQuery: Sendable, Hashable {
    public let text: String
    public let limit: Int
    public let offset: Int

    public init(text: String, limit: Int = 50, offset: Int = 0) {
        self.text = text
        self.limit = max(0, limit)
        self.offset = max(0, offset)
    }
}

/// One page of matches, best first, and how many matches there are in all.
public struct SearchPage: Sendable, Equatable {
    public let records: [BookRecord]
    public let total: Int

    public init(records: [BookRecord], total: Int) {
        self.records = records
        self.total = total
    }
}

/// A remote that can search. Matching and ranking follow `SearchTerms`: every query word is
/// a prefix of a word of the title or the author, ignoring case and diacritics; title
/// matches rank before author-only matches; an empty query lists all books in title order.
public protocol SearchableBookRemote: BookRemote {
    func search(_ query: SearchQuery) async throws -> SearchPage
}

/// Someone else committed. `bookIDs` names the books when the store knows them
/// (PostgreSQL notifications do); `nil` means "something changed, re-read what you show".
public struct ChangeNotice: Sendable, Equatable {
    public let bookIDs: Set<Int>?

    public init(bookIDs: Set<Int>?) { self.bookIDs = bookIDs }
    public static let unspecified = ChangeNotice(bookIDs: nil)

    public func concerns(_ id: Int) -> Bool { bookIDs?.contains(id) ?? true }
}

/// A remote that can tell whether another writer committed since the last check. A notice is
/// a hint: the reader must re-read, never trust a value carried by the notice.
public protocol ChangeDetectingRemote: BookRemote {
    /// Changes committed by other connections since the previous call, or `nil` if none.
    func checkForChanges() async throws -> ChangeNotice?
}

/// A remote that remembers the operation id of each committed save.
public protocol SaveOutcomeRecordingRemote: BookRemote {
    /// The revision the operation committed, or `nil` if it never committed.
    func committedRevision(of operation: UUID) async throws -> Int?
}

/// A remote that knows its account and the accounts of its catalog.
public protocol AccountAwareRemote: BookRemote {
    var account: Account { get }
}
