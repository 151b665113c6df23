/// How one save of a chunk ended: the new record, or why the store refused it (a conflict
/// names the revision the book is at now).
public typealias ChunkSaveResult = Result<BookRecord, BookFailure>

/// A batch-recording remote that saves many books of a batch in one transaction: each book
/// still with its own compare-and-set against the revision named and its own outcome (a
/// refused save refuses only that book), but one commit for them all, so that a bulk edit of
/// many books does not pay a transaction (and its flush to disk) per book.
///
/// A remote without it saves one book at a time (`BookRepository.save(_:inBatch:until:)`
/// loops over `save(_:inBatch:)`), as every store did before.
public protocol ChunkSavingRemote: BatchRecordingRemote {
    /// How this store heeds a stop inside a chunk.
    var chunkStopping: ChunkStopping { get }

    /// `save(_:inBatch:)` for each of `requests` in order, in one transaction. `stop` is asked
    /// as `chunkStopping` says: once it says so, no book after it commits, and the rest are not
    /// taken. The answer has one result per book taken, in the order of `requests`. A throw
    /// means no book of the chunk committed (or, `outcomeUnknown`, that nobody knows).
    func save(_ requests: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]

    /// `load(id:)` for each of `ids`, in one read: the books this account sees, as stored, in
    /// the order of `ids`; an id it does not see is left out. What an undo reads of a chunk's
    /// books before it saves them, which one call at a time cost a round trip per book.
    func load(ids: [Int]) async throws -> [BookRecord]
}

/// Where a chunk-saving store asks a batch's stop (`BatchStop`) inside a chunk.
public enum ChunkStopping: Sendable {
    /// Before each book, each saved by a statement of its own: the books before the stop commit.
    /// SQLite, where a statement is a call inside the process.
    case beforeEachBook
    /// The chunk's books are saved by one statement: the stop is asked before it is sent, and
    /// again before its commit, and a stop while it runs cancels it. A chunk stopped before its
    /// commit is rolled back whole: none of its books is taken. PostgreSQL, where each
    /// statement costs the server more than saving a book in a statement shared with a
    /// thousand others (`docs/performance-log.md`, bench: `bulk --postgres --count 100000`).
    case wholeChunk
}
