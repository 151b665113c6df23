import Foundation

/// One committed revision of a book, as the store recorded it when it was saved (or, for a
/// book that was already in the catalog when history began, when history began).
public struct BookRevision: Sendable, Equatable, Hashable {
    /// The book as this revision left it.
    public let record: BookRecord
    /// Who committed it; nil when no account did (an import, or a revision from before the
    /// store kept history).
    public let account: String?
    public let savedAt: Date
    /// The save's operation id; nil for revisions no save produced.
    public let operation: UUID?

    public init(record: BookRecord, account: String?, savedAt: Date, operation: UUID?) {
        self.record = record
        self.account = account
        self.savedAt = savedAt
        self.operation = operation
    }

    public var revision: Int { record.revision }
}

/// A remote that keeps every committed revision of its books.
public protocol HistoryKeepingRemote: BookRemote {
    /// The book's revisions this account may see, newest first. `missing` when the account
    /// cannot see the book.
    func history(of id: Int) async throws -> [BookRevision]
}

/// What changed from one revision of a book to the next.
public struct RevisionChange: Sendable, Equatable {
    public let titleChanged: Bool
    public let authorChanged: Bool

    public init(from old: BookRecord?, to new: BookRecord) {
        titleChanged = old.map { $0.title != new.title } ?? false
        authorChanged = old.map { $0.author != new.author } ?? false
    }
}

extension Array where Element == BookRevision {
    /// Checks a store's answer for `id`: its own book only, strictly newest first, with
    /// titles. A malformed history is an error, never shown.
    public func validatedHistory(of id: Int) throws(BookFailure) -> [BookRevision] {
        var previous = Int.max
        for revision in self {
            guard revision.record.id == id, revision.revision > 0, revision.revision < previous,
                !revision.record.title.isEmpty
            else { throw .invalidResponse }
            previous = revision.revision
        }
        return self
    }
}
