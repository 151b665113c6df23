import Foundation

/// The number a catalog gave a batch of saves: what `bookshelf undo` names and history shows.
public struct BatchID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let number: Int

    public init(_ number: Int) { self.number = number }

    public var description: String { String(number) }

    public static func < (lhs: BatchID, rhs: BatchID) -> Bool { lhs.number < rhs.number }
}

/// What a catalog records about a batch when it begins: which batch it undoes, if any.
public struct BatchStart: Sendable, Equatable {
    /// The batch this one reverts (an undo), nil for an edit.
    public let undoes: BatchID?

    public init(undoes: BatchID? = nil) { self.undoes = undoes }
}

/// One revision a batch made: the book as the revision the batch's save replaced left it, and
/// as the batch left it. Undo reverts `after` to `before`, field by field.
public struct BatchRevision: Sendable, Equatable {
    /// Nil when the history has no record of the revision the batch replaced: another program
    /// changed the book outside Bookshelf. Undo cannot put that book back, and says so.
    public let before: BookRecord?
    public let after: BookRecord

    public init(before: BookRecord?, after: BookRecord) {
        self.before = before
        self.after = after
    }
}

/// How an all-or-nothing batch ended: every save committed in one transaction, or none did.
public enum AllOrNothingResult: Sendable, Equatable {
    case committed(BatchID, [BookRecord])
    /// Nothing was saved, and no batch was made: why each refused save was refused (a
    /// conflict names the revision the book is at now).
    case refused([Int: BookFailure])
}

/// A remote that keeps batches: a number for a set of saves, recorded on each revision they
/// made, under the same rules as the books (an account sees the batches of its own scope and
/// saves only into the batches it began). A store keeps them where it keeps its books; one
/// that cannot (a library another program owns) keeps them beside it.
public protocol BatchRecordingRemote: BookRemote {
    /// Begins a batch for this account. A reader may not.
    func beginBatch(_ start: BatchStart) async throws -> BatchID

    /// `save(_:)`, the new revision recorded as the batch's. A batch this account did not begin
    /// is `notAllowed`.
    func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord

    /// Every save in one transaction, in a new batch; if any is refused (a conflict, a rule, a
    /// missing book), none commits and no batch is made. A store without transactions refuses
    /// with `unsupported`.
    func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult

    /// The revisions the batch made of the books this account sees, by book id. `missing` when
    /// the account cannot see the batch.
    func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision]
}
