/// The SQLite store's own tuning constants (the engine's are `SearchTuning`): what each bounds, why
/// it has its value, and the bench row that shows it. None changes an answer.
enum SQLiteTuning {
    /// How long a build waits for another writer's lock to store its snapshot: the snapshot
    /// is only an aid, and the next connection builds and tries again, so searches never stay
    /// unindexed behind a writer. Bench: none.
    static let snapshotStoreBusyMilliseconds: Int32 = 250
    /// SQLite virtual machine steps between a build's pauses inside one statement (about a
    /// millisecond): its count of every row gives way too (`SearchSource.pausing`). Bench:
    /// `keys --count 10000000 --cold` (stale), beside the rebuild.
    static let buildPauseSteps: Int32 = 65_536
    /// SQLite virtual machine steps between checks that the search was cancelled by the next
    /// key: a sixteenth of `buildPauseSteps`' millisecond, so the newest key waits for its own
    /// search only. Bench: `keys --no-index` (a count that reads the table).
    static let cancellationSteps: Int32 = 4_096
    /// From how many books (and a quarter of those already there) an import recreates the
    /// title index instead of inserting into it. Bench: none in `bookshelf-bench`; an import of
    /// a million books.
    static let bulkImportBooks = 20_000
    /// The page cache a chunk of a batch's saves (`ChunkSavingRemote`) is written with, given back
    /// after its commit. Each book of a chunk dirties pages of its own (its row, its revision, its
    /// committed save, its index entries): in SQLite's default cache of 2 MB, a chunk's dirty
    /// pages spilled into the WAL before the commit, which wrote them again, and the pages read
    /// for later books had been pushed out. Room for a whole chunk's pages. Bench: `bulk --count
    /// 1000000`.
    static let chunkPageCacheKibibytes = 64 << 10
}
