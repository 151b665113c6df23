import Locking

/// A save this session made and the store acknowledged, which the store no longer has: a
/// read that began after the acknowledgement found the book at an older revision. With
/// asynchronous replication this is what a failover does to the last saves the old primary
/// acknowledged; a catalog restored from a backup does the same.
public struct LostSave: Sendable, Equatable {
    /// The book as this session saved it, at the revision the store acknowledged.
    public let saved: BookRecord
    /// The book as the store has it now, at a lower revision.
    public let current: BookRecord
}

/// The saves a `BookRepository` found lost, until the model takes them to tell the user. Behind
/// a lock, not the actor, so that the model takes them when it publishes an answer, as it reads
/// `SeenRevisions`.
public final class LostSaves: Sendable {
    private let found = Locked<[LostSave]>([])

    init() {}

    /// The lost saves found since the last call, oldest first.
    public func take() -> [LostSave] {
        found.withLock { found in
            defer { found = [] }
            return found
        }
    }

    func append(_ lost: LostSave) {
        found.withLock { $0.append(lost) }
    }
}
