/// Schema version 14 (issue 41): a rank whose books are spread thin through the title order is
/// walked further before its candidates are read, rank 3 walks an index that holds its words,
/// and no search reads a lossy bitmap. Plans and figures: `PostgresSearchPlans.swift` and
/// docs/performance-log.md.
///
/// - A rank that the first walk (2,000 index entries) did not fill read all its candidates
///   through a word index, a table row each, and sorted them: at ten million books rank 2 of
///   "mary be" read 23,550 rows (96 ms warm) to give 47. When the first walk found some of the
///   rank's books, their density says how far the page is: the rank walks that far again, with
///   half as much to spare, when that is cheaper than its candidates by the planner's estimate
///   (a table row costs about five index entries) and at most 50,000 entries. If the longer
///   walk still leaves room, the candidates past its end fill it, as before. "mary be" 96 → 20 ms.
/// - Rank 3 (a word only in the series, the publisher or a tag) walked `books_with_other_words`,
///   which holds no words, so its walk read a table row per entry and could not go further for
///   less than its candidates. `books_with_other_words_covered` holds the words of every book
///   whose title key and words fit in an index entry (2,400 bytes: nearly all), and
///   `books_with_long_other_words` the others, read from the table; the walk merges the two in
///   title order. The old index stays for finding a walk's end: it is the smallest.
/// - The search runs with `work_mem` 32 MB. With 4 MB a bitmap of more than some 100,000
///   candidates turned lossy, and each row of a lossy page was checked again by deriving its
///   word prefixes in SQL: rank 2 of "mary b" at ten million books checked 840,255 rows in 31 s,
///   past the statement timeout. An exact bitmap of every page of a ten-million-book table
///   takes some 30 MB, and only a search that reads that many pages uses it.
enum PostgresSparseRankSchema {
    static let version = 14

    static let migration = "\(rankCandidatesEstimate)\n\(otherWordsInTitleOrder)\n\(searchPage)\n"

    /// How many books the planner expects among a rank's candidates: every word in the title
    /// (rank 1), in the title and author (rank 2), in any field (rank 3). EXPLAIN needs a
    /// volatile function; the search function, which runs as the owner, is its only caller.
    static let rankCandidatesEstimate: StaticString = """
        CREATE FUNCTION bookshelf.estimated_rank_candidates(account_scope text, words tsquery, rank integer) RETURNS bigint
        LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            plan json;
        BEGIN
            EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM bookshelf.books b WHERE b.scope = $1 AND '
                    || CASE rank WHEN 1 THEN 'bookshelf.word_prefixes(b.title_words) @@ $2'
                                 WHEN 2 THEN 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $2'
                                 ELSE 'bookshelf.book_words(b.title_words, b.author_words, b.other_words) @@ $2' END
                INTO plan USING account_scope, words;
            RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.estimated_rank_candidates(text, tsquery, integer) FROM PUBLIC;
        """

    /// Rank 3's books in title order with their words, split at what fits in a btree entry
    /// (2,704 bytes with the scope and the id). The search names the same two conditions.
    static let otherWordsInTitleOrder: StaticString = """
        CREATE INDEX books_with_other_words_covered ON bookshelf.books (scope, title_sort, id) INCLUDE (search_words, other_words)
            WHERE other_words <> '' AND octet_length(title_sort) + octet_length(search_words) + octet_length(other_words) <= 2400;
        CREATE INDEX books_with_long_other_words ON bookshelf.books (scope, title_sort, id)
            WHERE other_words <> '' AND octet_length(title_sort) + octet_length(search_words) + octet_length(other_words) > 2400;
        """

    /// Version 12's search function with the longer walks, rank 3's covered walk and the larger
    /// `work_mem`, made from its text so that the two cannot drift apart. `CREATE OR REPLACE`
    /// keeps its grants.
    static var searchPage: String {
        let version12 = "\(PostgresDetailsSearchSchema.migration)"
        let start = version12.range(of: "CREATE FUNCTION bookshelf.search_page(")!.lowerBound
        let end = version12.range(of: "END $$;", range: start..<version12.endIndex)!.upperBound
        return SQLTextEdits.applying(edits, to: String(version12[start..<end]), of: "version 12's search function")
    }

    private static let edits: [(old: String, new: String)] = [
        ("CREATE FUNCTION bookshelf.search_page(", "CREATE OR REPLACE FUNCTION bookshelf.search_page("),
        (
            "SET max_parallel_workers_per_gather = 0\n",
            "SET max_parallel_workers_per_gather = 0 SET work_mem = '32MB'\n"
        ),
        (
            "    walk_rows constant integer := 2000;\n",
            """
                walk_rows constant integer := 2000;
                -- A sparse rank walks on at most this many entries, and only when that costs less
                -- than its candidates: a table row costs about as much as entries_per_row entries.
                longest_walk constant integer := 50000;
                entries_per_row constant integer := 5;
                long_walk integer;
                -- What a rank's first walk reads; the first $12 entries after ($7, $8) with the
                -- words its condition reads, for the longer walk; the filter that finds a walk's end.
                walked text;
                walked_after text;
                walked_filter text;
                -- Rank 3's books: those whose words fit in books_with_other_words_covered (no table
                -- rows), and the others from books_with_long_other_words, merged in title order.
                other_columns constant text := 'b.id, b.scope, b.title_sort, b.search_words, b.other_words';
                fitting_other_words constant text := 'b.other_words <> '''' AND octet_length(b.title_sort) + octet_length(b.search_words) + octet_length(b.other_words) <= 2400';
                long_other_words constant text := 'b.other_words <> '''' AND octet_length(b.title_sort) + octet_length(b.search_words) + octet_length(b.other_words) > 2400';
                other_books constant text := format('(SELECT %1$s FROM bookshelf.books b WHERE %2$s
                    UNION ALL SELECT %1$s FROM bookshelf.books b WHERE %3$s) AS b', other_columns, fitting_other_words, long_other_words);
                -- Each side limited on its own: the planner cannot tell how few books are long, and
                -- a limit over the whole union let it sort millions of entries instead of merging.
                other_books_after constant text := format('(SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8)
                    AND %2$s ORDER BY b.title_sort, b.id LIMIT $12)
                    UNION ALL (SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8)
                    AND %3$s ORDER BY b.title_sort, b.id LIMIT $12) ORDER BY title_sort, id LIMIT $12',
                    other_columns, fitting_other_words, long_other_words);

            """
        ),
        (
            """
                        EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                                        ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset,
                                       CASE WHEN tier = 3 THEN other_filter ELSE walk_filter END)
                            INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
                        RETURN QUERY EXECUTE format(page_rows, tier, format(
                            'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                            keyset, CASE WHEN tier = 3 THEN '' ELSE walk_filter END,

            """,
            """
                        IF tier = 3 THEN
                            walked := other_books;
                            walked_after := other_books_after;
                            walked_filter := other_filter;
                        ELSE
                            walked := 'bookshelf.books b';
                            walked_after := format('SELECT b.id, b.title_sort, b.title_words, b.search_words FROM bookshelf.books b
                                WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8)%s ORDER BY b.title_sort, b.id LIMIT $12', walk_filter);
                            walked_filter := walk_filter;
                        END IF;
                        EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                                        ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset, walked_filter)
                            INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
                        RETURN QUERY EXECUTE format(page_rows, tier, format(
                            'SELECT b.id FROM %s WHERE b.scope = $3%s%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                            walked, keyset, CASE WHEN tier = 3 THEN '' ELSE walk_filter END,

            """
        ),
        (
            "            CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;\n",
            """
                        CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;
                        -- The first walk found `got` of the rank's books in walk_rows entries: at that
                        -- density the rest of the page lies about long_walk entries on.
                        long_walk := least(ceil(1.5 * wanted * walk_rows / greatest(got, 1)), longest_walk + 1);
                        IF got > 0 AND long_walk <= longest_walk
                           AND long_walk < bookshelf.estimated_rank_candidates(account_scope, words, tier) * entries_per_row THEN
                            RETURN QUERY EXECUTE format(page_rows, tier, format(
                                'SELECT b.id FROM (%s) AS b WHERE %s ORDER BY b.title_sort, b.id LIMIT $4', walked_after, tiers[tier + 2]))
                                USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id,
                                      counted, NULL::tsquery, is_estimate, long_walk, isbn_ids;
                            GET DIAGNOSTICS got = ROW_COUNT;
                            wanted := wanted - got;
                            CONTINUE WHEN wanted <= 0;
                            -- The candidates come after the longer walk's end; none if it reached the last book.
                            EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3 AND (b.title_sort, b.id) > ($5, $6)%s
                                            ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', walked_filter)
                                INTO walk_end_sort, walk_end_id
                                USING patterns, first_at_start, account_scope, long_walk - 1, walk_end_sort, walk_end_id;
                            CONTINUE WHEN walk_end_sort IS NULL;
                        END IF;

            """
        ),
    ]
}
