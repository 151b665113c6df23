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
    /// The batch whose save made it (`BatchRecordingRemote`); nil for a save of one book.
    public let batch: BatchID?

    public init(record: BookRecord, account: String?, savedAt: Date, operation: UUID?, batch: BatchID? = nil) {
        self.record = record
        self.account = account
        self.savedAt = savedAt
        self.operation = operation
        self.batch = batch
    }

    public var revision: Int { record.revision }
}

/// A remote that keeps every committed revision of its books.
public protocol HistoryKeepingRemote: BookRemote {
    /// The book's revisions this account may see, newest first. `missing` when the account
    /// cannot see the book.
    func history(of id: Int) async throws -> [BookRevision]
}

/// A book an import deleted because it was gone from its source (`import --remove-missing`).
/// Its revisions stay in its history, which ends with the revision it had then.
public struct BookDeletion: Sendable, Equatable {
    public let bookID: Int
    /// The revision the book had when it was deleted: the last of its history.
    public let revision: Int
    public let deletedAt: Date
    /// The source whose import found it gone.
    public let source: ImportSourceKind

    public init(bookID: Int, revision: Int, deletedAt: Date, source: ImportSourceKind) {
        self.bookID = bookID
        self.revision = revision
        self.deletedAt = deletedAt
        self.source = source
    }
}

/// A remote whose books an import may delete, and which remembers each deletion.
public protocol DeletionRecordingRemote: BookRemote {
    /// The deletion of book `id`, if this account's scope had that book and an import deleted
    /// it; nil otherwise.
    func deletion(of id: Int) async throws -> BookDeletion?
}

/// What changed from one revision of a book to the next: which fields, in the form's order.
public struct RevisionChange: Sendable, Equatable {
    /// The fields whose value differs from the revision before (none for the first known).
    public let fields: [BookField]

    public init(from old: BookRecord?, to new: BookRecord) {
        guard let old else {
            fields = []
            return
        }
        let (was, now) = (old.details, new.details)
        let differs: [BookField: Bool] = [
            .title: old.title != new.title, .author: old.author != new.author, .isbn: was.isbn != now.isbn,
            .year: was.year != now.year, .publisher: was.publisher != now.publisher, .series: was.series != now.series,
            .seriesIndex: was.seriesIndex != now.seriesIndex, .tags: was.tags != now.tags,
            .notes: was.notes != now.notes,
        ]
        fields = BookField.allCases.filter { differs[$0] == true }
    }

    public var titleChanged: Bool { fields.contains(.title) }
    public var authorChanged: Bool { fields.contains(.author) }
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
