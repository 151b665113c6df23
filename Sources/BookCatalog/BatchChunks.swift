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
    /// `save(_:inBatch:)` for each of `requests` in order, in one transaction. `stop` is asked
    /// before each book: once it says so, the books before it commit and the rest are not
    /// taken. The answer has one result per book taken, in the order of `requests`. A throw
    /// means no book of the chunk committed (or, `outcomeUnknown`, that nobody knows).
    func save(_ requests: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]

    /// `load(id:)` for each of `ids`, in one read: the books this account sees, as stored, in
    /// the order of `ids`; an id it does not see is left out. What an undo reads of a chunk's
    /// books before it saves them, which one call at a time cost a round trip per book.
    func load(ids: [Int]) async throws -> [BookRecord]
}
