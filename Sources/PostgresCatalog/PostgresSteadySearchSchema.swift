/// Schema version 13 (issue 41): a search costs the same however much was saved lately, and
/// the planner tells a rare word from a common one. Plans and figures: `PostgresSearchPlans.swift`
/// and docs/performance-log.md.
///
/// - The three word indexes keep no pending list (`fastupdate = off`). With one, each save
///   appended its words to a list that every search then read through, up to 4 MB an index,
///   until a vacuum or a full list merged it: at a million books, after a thousand saves, each
///   GIN scan read 195 extra pages (about 1 ms) and a search does up to four. A save now
///   updates the trees itself, a few milliseconds more. A bulk import would be 2.4 times as slow
///   that way, so setup's import turns the lists on for its run and merges them after
///   (`pendingListsOn`, `pendingListsMerged`).
/// - The word index's statistics keep up to 10,000 most common lexemes instead of 1,000. A
///   lexeme outside that list is estimated at half the rarest kept frequency, at most 0.5 %:
///   at a million books every rare or absent word (an ISBN, a name, a typo) was estimated at
///   5,005 books, past the counting limit, and so walked every rank (9 ms) to find a handful or
///   none; now it is estimated at a few hundred and counted (1 ms). ANALYZE reads 300,000 rows
///   instead of 30,000 for it: about a minute at a million books, after this migration commits
///   (`PostgresSchema.analyzedAfterCommit`) and in autovacuum's.
enum PostgresSteadySearchSchema {
    static let version = 13

    /// The lists off and merged, then the statistics target (its ANALYZE follows the commit:
    /// `PostgresSchema.analyzedAfterCommit`). Constant text only.
    static let migration =
        "\(pendingListsMerged)\nALTER INDEX bookshelf.books_word_vector ALTER COLUMN 1 SET STATISTICS 1000;\n"

    /// Before a bulk import, in a transaction of its own: changing `fastupdate` locks the
    /// index against every search, so only for a moment.
    static let pendingListsOn: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on);
        """

    /// After a bulk import, committed or not: the lists off, then what they hold merged into
    /// the trees, so no search reads them.
    static let pendingListsMerged: StaticString = """
        ALTER INDEX bookshelf.books_title_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_search_vector SET (fastupdate = off);
        ALTER INDEX bookshelf.books_word_vector SET (fastupdate = off);
        SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
               gin_clean_pending_list('bookshelf.books_word_vector');
        """
}
