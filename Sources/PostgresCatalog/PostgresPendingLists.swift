/// The word indexes keep no pending list (schema version 13): a save updates their trees, so a
/// search never reads through a list of recent saves. A bulk import into the trees one book at
/// a time is much slower than through the lists merged at the end (docs/performance-log.md),
/// so setup's import turns them on for its run and merges them after.
enum PostgresPendingLists {
    /// Before a bulk import, in a transaction of its own: changing `fastupdate` locks the
    /// index against every search, so only for a moment.
    static let on: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on);
        """

    /// After a bulk import, committed or not: the lists off, then what they hold merged into
    /// the trees, so no search reads them.
    static let merged: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = off);
        SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
               gin_clean_pending_list('bookshelf.books_word_vector');
        """
}
