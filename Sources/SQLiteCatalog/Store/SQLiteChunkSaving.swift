import BookCatalog

/// A chunk of a batch's saves in one write transaction (`ChunkSavingRemote`): each book with
/// the compare-and-set and records of a single save, one commit (and one flush) for them all.
extension SQLiteBookRemote: ChunkSavingRemote {
    public nonisolated var chunkStopping: ChunkStopping { .beforeEachBook }

    public func save(_ unchecked: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]
    {
        let requests = try unchecked.map { try $0.validated() }
        let watched = changeWatch
        do {
            return try mappingSourceFailures {
                try connection.withPageCache(kibibytes: SQLiteTuning.chunkPageCacheKibibytes) {
                    try connection.transaction(immediate: true) {
                        // Only the account that began a batch saves into it.
                        guard try batches.isOwned(batch) else { return requests.map { _ in .failure(.notAllowed) } }
                        var results: [ChunkSaveResult] = []
                        for request in requests {
                            // A stop takes effect at the next book, inside the chunk as between chunks.
                            if stop.isStopped { break }
                            results.append(try commit(request, batch: batch))
                        }
                        return results
                    }
                }
            }
        } catch {
            // Rolled back: this connection's own commits it counted are no commits.
            changeWatch = watched
            throw error
        }
    }

    public func load(ids: [Int]) async throws -> [BookRecord] {
        try mappingFailures(at: catalogPath) {
            try connection.transaction(immediate: false) {
                try ids.compactMap { id in
                    try connection.queryFirst(
                        "SELECT \(BookRow.columns) FROM books WHERE id = ?1 AND scope = ?2",
                        [.int(id), .text(account.scope)], row: BookRow.record)
                }
            }
        }
    }
}
