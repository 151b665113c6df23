/// Schema version 15 (issue 41): each rank is read the way its candidates make cheaper, by the
/// planner's estimate of them. Plans and figures: `PostgresSearchPlans.swift` and
/// docs/performance-log.md.
///
/// - A rank with fewer estimated candidates than a walk reads entries is read from its
///   candidates at once and sorted, without walking: a walk of 2,000 entries cannot fill a page
///   from a rank that thin, so it only delayed the candidates. At a million books "tolstoy"
///   walked 2,000 titles for a rank 1 no title holds, and a tag such as "fantasy" walked ranks
///   1 and 2 for nothing. The read stops at twice the estimate and a page; past that the
///   estimate was wrong and the rank is walked as before. Han, kana and Hangul queries are
///   always walked: the planner multiplies the frequencies of characters that come together,
///   so their estimates are far too low ("日本文学": rank 3 estimated 16, more than 2,000 read).
/// - The first walk of a rank is a `LIMIT` inside a subquery, as the longer walk was, so where
///   it ended is looked up (a second index scan of 2,000 entries) only when the page is not full.
/// - The longer walk goes no further than the candidates would cost, instead of not at all when
///   the density the first walk saw put the page further than that: a density from a handful of
///   books is a guess, and the walk stops as soon as the page is full. "rome cycle" at a million
///   books (3 books in the first walk, the page some 11,500 entries on, 3,386 estimated
///   candidates) walked 16,930 entries at most and found its page, instead of reading 4,625 rows.
///   For Han, kana and Hangul the candidates' cost is judged by the total's bound (the rarest
///   character's estimate) instead: "日本 z" (rank 3 estimated at 405, 5,614 candidates) read
///   every candidate, 36 ms, where the walk finds its page in 16.
enum PostgresRankCostSchema {
    static let version = 15

    /// Version 14's search function with those changes. `CREATE OR REPLACE` keeps its grants.
    static var migration: String {
        SQLTextEdits.applying(edits, to: PostgresSparseRankSchema.searchPage, of: "version 14's search function") + "\n"
    }

    private static let edits: [(old: String, new: String)] = [
        (
            old: """
                -- What a rank's first walk reads; the first $12 entries after ($7, $8) with the
                -- words its condition reads, for the longer walk; the filter that finds a walk's end.
                walked text;
                walked_after text;
                walked_filter text;

            """,
            new: """
                -- A rank's walk: the first $12 entries from a start (%1$s: the cursor, or where the first
                -- walk ended) with the words its condition reads; the filter that finds a walk's end.
                walked_from text;
                walked_filter text;
                -- The planner's estimate of a rank's candidates, and the candidates read at once.
                rank_estimate bigint;
                rank_ids bigint[];

            """
        ),
        (
            old: """
                other_books constant text := format('(SELECT %1$s FROM bookshelf.books b WHERE %2$s
                    UNION ALL SELECT %1$s FROM bookshelf.books b WHERE %3$s) AS b', other_columns, fitting_other_words, long_other_words);
                -- Each side limited on its own: the planner cannot tell how few books are long, and
                -- a limit over the whole union let it sort millions of entries instead of merging.
                other_books_after constant text := format('(SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8)
                    AND %2$s ORDER BY b.title_sort, b.id LIMIT $12)
                    UNION ALL (SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8)
                    AND %3$s
            """,
            new: """
                -- Each side limited on its own: the planner cannot tell how few books are long, and
                -- a limit over the whole union let it sort millions of entries instead of merging.
                other_books_from constant text := format('(SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3%%1$s
                    AND %2$s ORDER BY b.title_sort, b.id LIMIT $12)
                    UNION ALL (SELECT %1$s FROM bookshelf.books b WHERE b.scope = $3%%1$s
                    AND %3$s
            """
        ),
        (
            old: """
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
                            CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
                            tiers[tier + 2]))
                            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted,
                                  NULL::tsquery, is_estimate, NULL::text, isbn_ids;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;

            """,
            new: """
                        IF word_count > 0 THEN
                            -- When the planner expects fewer candidates than a walk reads entries, a walk
                            -- would not fill the page: the candidates are read at once (up to twice the
                            -- estimate and a page, in case it is wrong) and sorted. Not for Han, kana or
                            -- Hangul: the planner multiplies the frequencies of characters that come
                            -- together, so their estimates are far too low.
                            rank_estimate := bookshelf.estimated_rank_candidates(account_scope, words, tier);
                            IF walk_filter <> '' THEN
                                -- Too low for Han, kana and Hangul: the total's bound (the rarest character's
                                -- estimate, or the count) stands in for it.
                                rank_estimate := greatest(rank_estimate, counted);
                            END IF;
                            IF rank_estimate <= walk_rows AND walk_filter = '' THEN
                                EXECUTE format('SELECT array_agg(r.id ORDER BY r.title_sort COLLATE "C", r.id) FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                                    WHERE b.scope = $3%s AND %s AND %s LIMIT $4) AS r', keyset, candidates[tier + 2], tiers[tier + 2])
                                    INTO rank_ids USING patterns, first_at_start, account_scope, 2 * rank_estimate + page_limit + 1, after_sort, after_id, NULL::text, NULL::bigint,
                                          counted, words, is_estimate, NULL::text, isbn_ids;
                                IF coalesce(cardinality(rank_ids), 0) <= 2 * rank_estimate + page_limit THEN
                                    RETURN QUERY SELECT counted, is_estimate, o.id, o.title, o.revision, o.author, tier, o.title_sort::text,
                                            o.isbn, o.year, o.publisher, o.series, o.series_index, o.tags, o.notes
                                        FROM unnest(rank_ids[1:wanted]) WITH ORDINALITY AS r(id, n)
                                        JOIN bookshelf.books o ON o.id = r.id ORDER BY r.n;
                                    GET DIAGNOSTICS got = ROW_COUNT;
                                    wanted := wanted - got;
                                    CONTINUE;
                                END IF;
                            END IF;
                        END IF;
                        IF tier = 3 THEN
                            walked_from := other_books_from;
                            walked_filter := other_filter;
                        ELSE
                            walked_from := format('SELECT b.id, b.title_sort, b.title_words, b.search_words FROM bookshelf.books b
                                WHERE b.scope = $3%%1$s%s ORDER BY b.title_sort, b.id LIMIT $12', walk_filter);
                            walked_filter := walk_filter;
                        END IF;
                        -- The first walk: walk_rows entries from the cursor or the start. Where it ended is
                        -- looked up only when the rank goes on past it (none if it reached the last book).
                        RETURN QUERY EXECUTE format(page_rows, tier, format(
                            'SELECT b.id FROM (%s) AS b WHERE %s ORDER BY b.title_sort, b.id LIMIT $4', format(walked_from, keyset), tiers[tier + 2]))
                            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                                  counted, NULL::tsquery, is_estimate, walk_rows, isbn_ids;
                        GET DIAGNOSTICS got = ROW_COUNT;
                        wanted := wanted - got;
                        CONTINUE WHEN wanted <= 0;
                        EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                                        ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset, walked_filter)
                            INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
                        CONTINUE WHEN walk_end_sort IS NULL;

            """
        ),
        (
            old: """
                        IF got > 0 AND long_walk <= longest_walk
                           AND long_walk < bookshelf.estimated_rank_candidates(account_scope, words, tier) * entries_per_row THEN

            """,
            new: """
                        -- No further than the candidates would cost: the density of a few books is a guess,
                        -- and past that point the candidates are the cheaper way. Only when that is a walk.
                        IF got > 0 AND long_walk <= longest_walk AND rank_estimate * entries_per_row >= walk_rows THEN
                            long_walk := least(long_walk, rank_estimate * entries_per_row);

            """
        ),
        (
            old:
                "'SELECT b.id FROM (%s) AS b WHERE %s ORDER BY b.title_sort, b.id LIMIT $4', walked_after, tiers[tier + 2]))",
            new:
                "'SELECT b.id FROM (%s) AS b WHERE %s ORDER BY b.title_sort, b.id LIMIT $4',\n                    format(walked_from, ' AND (b.title_sort, b.id) > ($7, $8)'), tiers[tier + 2]))"
        ),
    ]
}
