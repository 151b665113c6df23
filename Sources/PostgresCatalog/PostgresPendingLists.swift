/// The word indexes' pending lists. Schema version 13 turned them off, so that no search reads
/// through a list of recent saves; version 21 gives them back at GIN's least limit, 64 kB,
/// because writing each save's words into the trees one at a time was most of
/// what a bulk edit's book cost, and a list that short costs a search a few pages. A bulk
/// import is still much faster through long lists merged at the end (docs/performance-log.md),
/// so setup's import lifts the limit for its run and merges the lists after.
enum PostgresPendingLists {
    /// The schema version whose word indexes keep lists of 64 kB.
    static let shortListsVersion = 21

    /// Before a bulk import, in a transaction of its own: changing `fastupdate` locks the
    /// index against every search, so only for a moment. The server's own limit (4 MB) serves
    /// the import.
    static let on: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_title_vector RESET (gin_pending_list_limit);
        ALTER INDEX bookshelf.books_search_vector RESET (gin_pending_list_limit);
        ALTER INDEX bookshelf.books_word_vector RESET (gin_pending_list_limit);
        """

    /// After a bulk import, committed or not, into a catalog of `schema`: the lists as that
    /// version keeps them (none before `shortListsVersion`, short from it), then what they
    /// hold merged into the trees, so no search reads it.
    static func merged(schema: Int) -> StaticString {
        schema >= shortListsVersion ? mergedIntoShortLists : mergedIntoNoLists
    }

    private static let mergedIntoNoLists: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = off);
        SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
               gin_clean_pending_list('bookshelf.books_word_vector');
        """

    private static let mergedIntoShortLists: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
               gin_clean_pending_list('bookshelf.books_word_vector');
        """
}
