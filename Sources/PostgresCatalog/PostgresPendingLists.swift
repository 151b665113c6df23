/// The word indexes' pending lists. Schema version 13 turned them off, so that no search reads
/// through a list of recent saves; version 21 gave them back at GIN's least limit, 64 kB,
/// because writing each save's words into the trees one at a time was most of what a bulk
/// edit's book cost, and version 24 lets them hold 256 kB, because a bulk edit's statement
/// merged a 64 kB list some thirty times (its migration says why). A list that short costs a
/// search a few pages. A bulk import is still much faster through long lists merged at the end
/// (docs/performance-log.md), so setup's import lifts the limit for its run and merges the
/// lists after.
enum PostgresPendingLists {
    /// The schema version whose word indexes keep lists of 64 kB.
    static let shortListsVersion = 21

    /// The schema version whose word indexes keep lists of 256 kB.
    static let longerListsVersion = 24

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

    /// After a bulk import, committed or not, into a catalog of `schema`, in turn: the lists as
    /// that version keeps them (none before `shortListsVersion`, 64 kB from it, 256 kB from
    /// `longerListsVersion`), then what they hold merged into the trees, so no search reads it.
    static func merged(schema: Int) -> [StaticString] {
        let kept: StaticString =
            schema >= longerListsVersion
            ? longerLists : schema >= shortListsVersion ? shortLists : noLists
        return [kept, mergeLists]
    }

    private static let noLists: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = off);
        """

    private static let shortLists: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on, gin_pending_list_limit = 64);
        """

    private static let longerLists: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on, gin_pending_list_limit = 256);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on, gin_pending_list_limit = 256);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on, gin_pending_list_limit = 256);
        """

    private static let mergeLists: StaticString = """
        SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
               gin_clean_pending_list('bookshelf.books_word_vector');
        """
}
