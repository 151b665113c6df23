import Locking

/// The newest record an account session has seen of each book: the session's one freshness
/// floor. Search rows and editor bases never go below it.
///
/// Its `BookRepository` alone writes it, with every answer it takes in, whichever path the
/// answer came from (a load, a search row, a save's answer, a reconciled save). It is behind a
/// lock, not the actor, so that the model reads it synchronously when it publishes: an answer
/// can be published after a newer one arrived. A new session makes a new repository, so its
/// floor starts empty.
public final class SeenRevisions: Sendable {
    private let records = Locked<[Int: BookRecord]>([:])

    init() {}

    /// The newest record seen of book `id`, if any.
    public func newest(of id: Int) -> BookRecord? {
        records.withLock { $0[id] }
    }

    /// `record`, or the newest seen of its book if that is of a higher revision.
    func raise(_ record: BookRecord) -> BookRecord {
        records.withLock { records in
            if let seen = records[record.id], seen.revision > record.revision { return seen }
            return record
        }
    }

    /// Makes `record` the newest seen of its book even though it is older: the store proved
    /// that the newer revisions seen are gone (`LostSave`).
    func replace(with record: BookRecord) {
        records.withLock { $0[record.id] = record }
    }

    /// Remembers `record` if it is newer than any seen of its book.
    func note(_ record: BookRecord) {
        records.withLock { records in
            if let seen = records[record.id], seen.revision >= record.revision { return }
            records[record.id] = record
        }
    }
}
