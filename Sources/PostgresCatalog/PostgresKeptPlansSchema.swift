/// Schema version 13: `bookshelf.search_page` with plans the server keeps, and less read per
/// page (issue 41). The same answers as version 12 (`PostgresDetailsSearchSchema`), by the same
/// indexes. Plans and figures: `PostgresSearchPlans.swift`.
///
/// - Every statement of a page is static SQL, so PL/pgSQL prepares it once per session, and
///   `plan_cache_mode = force_generic_plan` keeps that one plan: version 12 built each of its 6 to
///   9 statements as text and planned it anew on every key (0.2–0.5 ms each, more than most of
///   them take to run). The words' count no longer changes the text: `LIKE ALL (patterns)`. Only
///   the estimates stay dynamic: they are `EXPLAIN`s.
/// - A generic plan knows no value, so whatever an index must bound is written as a range of
///   values: rank 0's titles that start with the first token are `title_sort` from the token to
///   `bookshelf.prefix_end` of it (the planner derived that range from a LIKE constant before).
/// - A walk reads its entries lazily and stops at the page's last book; the 2,000th entry, where
///   a sparse rank's walk ends, is read only when the rank is sparse. Rank 0's range is walked
///   too (500 entries), then continued through the title vector.
/// - A query of one lexeme that the planner estimates under 1,000 candidates in a rank's fields
///   takes that rank from its word index without a walk (an author's name in no title).
/// - The page's ids are gathered rank by rank and read from the table in one statement.
///
/// `CREATE OR REPLACE` keeps the function's grants; row-level security, the column grants and
/// every index are as before. Nothing is rewritten, so the migration takes no time per book.
enum PostgresKeptPlansSchema {
    static let version = 13

    static let migration: StaticString = #"""
        -- The least text greater than every text that starts with `prefix`, byte by byte (the
        -- order of COLLATE "C"): the prefix with its last character below U+10FFFF raised by one
        -- (after U+D7FF comes U+E000: the surrogates are no characters) and what followed it
        -- dropped. NULL when every character is U+10FFFF: then nothing is greater.
        CREATE FUNCTION bookshelf.prefix_end(prefix text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog AS $$
        DECLARE
            head text := prefix;
            code integer;
        BEGIN
            WHILE head <> '' LOOP
                code := ascii(right(head, 1));
                head := left(head, -1);
                IF code < 1114111 THEN
                    RETURN head || chr(CASE WHEN code = 55295 THEN 57344 ELSE code + 1 END);
                END IF;
            END LOOP;
            RETURN NULL;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.prefix_end(text) FROM PUBLIC;

        -- The planner's estimate of the candidates of rank 1 (the title's words), 2 (and the
        -- author's) or 3 (every field's) in a scope, as bookshelf.estimated_candidates.
        CREATE FUNCTION bookshelf.estimated_rank_candidates(account_scope text, words tsquery, rank integer) RETURNS bigint
        LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            plan json;
        BEGIN
            EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM bookshelf.books b WHERE b.scope = $1 AND '
                    || CASE rank WHEN 1 THEN 'bookshelf.word_prefixes(b.title_words)'
                                 WHEN 2 THEN 'bookshelf.word_prefixes(b.title_words || b.author_words)'
                                 ELSE 'bookshelf.book_words(b.title_words, b.author_words, b.other_words)' END
                    || ' @@ $2'
                INTO plan USING account_scope, words;
            RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
        END $$;
        REVOKE ALL ON FUNCTION bookshelf.estimated_rank_candidates(text, tsquery, integer) FROM PUBLIC;

        CREATE OR REPLACE FUNCTION bookshelf.search_page(
            patterns text[], first_at_start text, page_limit integer,
            after_rank integer, after_sort text, after_id bigint, count_limit integer, words tsquery, title_start text,
            wanted_isbn text DEFAULT NULL)
        RETURNS TABLE (total bigint, total_is_estimate boolean, id bigint, title text, revision bigint, author text, rank integer, title_sort text,
                      isbn text, year integer, publisher text, series text, series_index numeric, tags text[], notes text)
        LANGUAGE plpgsql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        SET enable_seqscan = off SET jit = off SET max_parallel_workers_per_gather = 0
        SET plan_cache_mode = force_generic_plan
        AS $$
        DECLARE
            walk_rows constant integer := 2000;
            -- Rank 0's walk of its range: every entry there already starts with the first word, so
            -- a sparse range is one where the other words are rare, and the title vector finds
            -- them sooner ("hist rom" at 300,000 books: 10 of the first 2,000 of 2,651 'hist' titles).
            range_rows constant integer := 500;
            -- Up to this many matches are ranked and ordered all at once.
            few_rows constant integer := 1000;
            -- Word queries whose estimated candidates exceed this are not counted.
            counted_rows constant integer := 2000;
            -- A rank with fewer estimated candidates than this is read from its word index unwalked.
            rare_rows constant integer := 1000;
            -- Below every (title_sort, id), and above every title_sort: a sort key fits in a btree
            -- entry (2,704 bytes), and this is 4,000 bytes of the greatest character.
            no_sort constant text := '';
            no_id constant bigint := -9223372036854775808;
            beyond_keys constant text := repeat(chr(1114111), 1000);
            estimate bigint;
            is_estimate boolean := false;
            match record;
            page_ids bigint[] := '{}';
            page_ranks integer[] := '{}';
            page_keys text[] := '{}';
            tier_ids bigint[];
            tier_keys text[];
            -- Rank 0's titles whose sort key does not start with their first word.
            odd_ids bigint[];
            odd_keys text[];
            -- Where rank 0's range starts: the cursor or the first token, whichever is later.
            range_sort text;
            range_id bigint;
            account_scope text;
            word_count integer := coalesce(array_length(patterns, 1), 0);
            -- The query holds a Han, kana or Hangul character: walks of ranks 1 and 2 read
            -- books_with_character_tokens only.
            characters boolean;
            counted bigint;
            wanted integer := page_limit;
            from_rank integer := coalesce(after_rank, -1);
            from_sort text;
            from_id bigint;
            walk_end_sort text;
            walk_end_id bigint;
            walk_ended boolean;
            -- The walk whose end walk_end_sort and walk_end_id hold: its kind (1 every book, 2 those
            -- with character tokens, 3 those with other words) and where it started.
            walk_end_kind integer;
            walk_end_from_sort text;
            walk_end_from_id bigint;
            lexeme text;
            -- The books of the scope with the ISBN the query is (rank -1).
            isbn_ids bigint[] := '{}';
            -- Rank 0: the sort keys from the first token (title_start without its LIKE escapes)
            -- to the first key past the ones that start with it.
            title_from text := regexp_replace(left(title_start, -1), '\\(.)', '\1', 'g');
            title_end text := coalesce(bookshelf.prefix_end(title_from), beyond_keys);
        BEGIN
            SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
            IF account_scope IS NULL THEN
                RETURN;
            END IF;
            IF wanted_isbn IS NOT NULL THEN
                isbn_ids := ARRAY(SELECT b.id FROM bookshelf.books b WHERE b.scope = account_scope AND b.isbn = wanted_isbn);
            END IF;
            -- A Han, kana or Hangul character is a token of its own (SearchTerms), so a book
            -- matching a word that holds one holds it as a one-character token. The ranges are a
            -- subset of SearchTerms.isIdeographic; a character outside them walks the whole title index.
            characters := EXISTS (SELECT 1 FROM unnest(patterns) AS p(pattern)
                                  WHERE p.pattern ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]');

            -- The total, as in version 12: a listing counts its title index up to count_limit + 1;
            -- a word query is counted only when the planner's estimate of its candidates is small.
            IF word_count = 0 THEN
                SELECT count(*) INTO counted FROM (SELECT 1 FROM bookshelf.books b
                    WHERE b.scope = account_scope LIMIT count_limit + 1) AS m;
                IF counted > count_limit THEN
                    estimate := greatest(bookshelf.estimated_candidates(account_scope, NULL), counted);
                END IF;
            ELSE
                IF NOT characters THEN
                    estimate := bookshelf.estimated_candidates(account_scope, words);
                ELSE
                    -- The characters of a word come together (歴 and 史 as 歴史): the rarest
                    -- lexeme's estimate bounds the matches above.
                    FOR lexeme IN SELECT m[1] FROM regexp_matches(words::text, '(''(?:[^'']|'''')+'')', 'g') AS m LOOP
                        estimate := least(estimate, bookshelf.estimated_candidates(account_scope, lexeme::tsquery));
                    END LOOP;
                END IF;
                estimate := estimate + cardinality(isbn_ids);
                IF estimate <= counted_rows THEN
                    -- Counting reads every match, so the same pass ranks them and keeps the page.
                    -- A word in the title, the author or another field: the fields joined by a line
                    -- feed, which no query word holds, so no word spans two of them.
                    FOR match IN
                        WITH m AS MATERIALIZED (
                            (SELECT b.id AS book_id, -1 AS book_rank, b.title_sort::text AS sort_key
                             FROM bookshelf.books b WHERE b.id = ANY (isbn_ids))
                            UNION ALL
                            (SELECT b.id, CASE WHEN b.title_words LIKE ALL (patterns)
                                               THEN CASE WHEN b.title_words LIKE first_at_start THEN 0 ELSE 1 END
                                               WHEN b.search_words LIKE ALL (patterns) THEN 2 ELSE 3 END,
                                    b.title_sort::text
                             FROM bookshelf.books b
                             WHERE b.scope = account_scope
                                 AND bookshelf.book_words(b.title_words, b.author_words, b.other_words) @@ words
                                 AND (b.search_words || E'\n' || b.other_words) LIKE ALL (patterns)
                                 AND NOT b.id = ANY (isbn_ids))
                            LIMIT count_limit + 1)
                        SELECT n.matches, p.book_id, p.book_rank, p.sort_key
                        FROM (SELECT count(*) AS matches FROM m) AS n
                        LEFT JOIN LATERAL (
                            SELECT m.book_id, m.book_rank, m.sort_key FROM m
                            WHERE after_sort IS NULL
                                OR (m.book_rank, m.sort_key COLLATE "C", m.book_id) > (from_rank, after_sort, after_id)
                            ORDER BY m.book_rank, m.sort_key COLLATE "C", m.book_id LIMIT page_limit) AS p ON true
                    LOOP
                        counted := match.matches;
                        EXIT WHEN counted > count_limit;
                        IF match.book_id IS NOT NULL THEN
                            page_ids := page_ids || match.book_id;
                            page_ranks := page_ranks || match.book_rank;
                            page_keys := page_keys || match.sort_key;
                        END IF;
                    END LOOP;
                    IF counted <= count_limit THEN
                        wanted := 0;
                    ELSE
                        page_ids := '{}';
                        page_ranks := '{}';
                        page_keys := '{}';
                    END IF;
                    estimate := NULL;
                END IF;
            END IF;
            IF estimate IS NOT NULL THEN
                is_estimate := true;
                counted := round(estimate, 2 - length(estimate::text));
            END IF;

            IF counted = 0 OR wanted <= 0 THEN
                NULL;
            ELSIF NOT is_estimate AND counted <= few_rows THEN
                -- Few books: only a listing comes here (a word query was counted and paged above,
                -- or is past few_rows), every book rank 0.
                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                INTO page_ids, page_keys
                FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                      WHERE b.scope = account_scope
                          AND (after_sort IS NULL OR (0, b.title_sort COLLATE "C", b.id) > (from_rank, after_sort, after_id))
                      ORDER BY b.title_sort, b.id LIMIT wanted) AS k;
                page_ranks := array_fill(0, ARRAY[cardinality(page_ids)]);
            ELSE
                -- Many matches: each rank in title order. A bounded walk of the title index (which
                -- holds the words, so no table rows are read) fills the page when the rank is dense;
                -- otherwise the rest of the rank comes through the word indexes. Rank 3 walks the
                -- books that have other words, reading their rows (its index holds no words).
                FOR tier IN from_rank .. 3 LOOP
                    EXIT WHEN wanted <= 0;
                    CONTINUE WHEN tier = -1 AND cardinality(isbn_ids) = 0;
                    CONTINUE WHEN word_count = 0 AND tier <> 0;
                    IF tier = from_rank AND after_sort IS NOT NULL THEN
                        from_sort := after_sort;
                        from_id := after_id;
                    ELSE
                        from_sort := no_sort;
                        from_id := no_id;
                    END IF;
                    tier_ids := '{}';
                    tier_keys := '{}';
                    IF tier = -1 THEN
                        SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                               coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                        INTO tier_ids, tier_keys
                        FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                              WHERE b.id = ANY (isbn_ids) AND (b.title_sort, b.id) > (from_sort, from_id)
                              ORDER BY b.title_sort, b.id LIMIT wanted) AS k;
                    ELSIF tier = 0 AND word_count > 0 THEN
                        -- Titles that begin with the first word sit together in title order, so
                        -- rank 0 is a range of the title index read in order (walked like the other
                        -- ranks, then continued through books_title_vector), plus the few titles
                        -- whose sort key starts elsewhere (books_odd_title_start), by the same range
                        -- of their words. The range starts at the cursor or at the first token,
                        -- whichever is later, as one row comparison: beside a second lower bound
                        -- on title_sort, the btree starts its scan at the row's (measured: 42 ms
                        -- from the scope's first title to "tolstoy" at 300,000 books).
                        IF (from_sort COLLATE "C", from_id) < (title_from COLLATE "C", no_id) THEN
                            range_sort := title_from;
                            range_id := no_id;
                        ELSE
                            range_sort := from_sort;
                            range_id := from_id;
                        END IF;
                        SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                               coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                        INTO tier_ids, tier_keys
                        FROM (SELECT w.id, w.title_sort FROM (
                                SELECT b.id, b.title_sort, b.title_words FROM bookshelf.books b
                                WHERE b.scope = account_scope AND (b.title_sort, b.id) > (range_sort, range_id)
                                    AND b.title_sort < title_end
                                ORDER BY b.title_sort, b.id LIMIT range_rows) AS w
                              WHERE w.title_sort LIKE title_start
                                  AND starts_with(w.title_sort, split_part(ltrim(w.title_words, ' '), ' ', 1) COLLATE "C")
                                  AND w.title_words LIKE ALL (patterns) AND w.title_words LIKE first_at_start
                                  AND NOT w.id = ANY (isbn_ids)
                              LIMIT wanted) AS k;
                        IF wanted > cardinality(tier_ids) THEN
                            walk_end_kind := NULL;
                            SELECT b.title_sort, b.id INTO walk_end_sort, walk_end_id FROM bookshelf.books b
                            WHERE b.scope = account_scope AND (b.title_sort, b.id) > (range_sort, range_id)
                                AND b.title_sort < title_end
                            ORDER BY b.title_sort, b.id OFFSET range_rows - 1 LIMIT 1;
                            IF walk_end_sort IS NOT NULL THEN
                                SELECT tier_ids || coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       tier_keys || coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT r.id, r.title_sort FROM (
                                        SELECT b.id, b.title_sort FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (walk_end_sort, walk_end_id)
                                            AND b.title_sort < title_end AND bookshelf.word_prefixes(b.title_words) @@ words
                                            AND b.title_sort LIKE title_start
                                            AND starts_with(b.title_sort, split_part(ltrim(b.title_words, ' '), ' ', 1) COLLATE "C")
                                            AND b.title_words LIKE ALL (patterns) AND b.title_words LIKE first_at_start
                                            AND NOT b.id = ANY (isbn_ids) OFFSET 0) AS r
                                      ORDER BY r.title_sort COLLATE "C", r.id LIMIT wanted - cardinality(tier_ids)) AS k;
                            END IF;
                        END IF;
                        SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                               coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                        INTO odd_ids, odd_keys
                        FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                              WHERE b.scope = account_scope
                                  AND NOT starts_with(b.title_sort, split_part(ltrim(b.title_words, ' '), ' ', 1) COLLATE "C")
                                  AND b.title_words ~>=~ (' ' || title_from) AND b.title_words ~<~ (' ' || title_end)
                                  AND b.title_words LIKE first_at_start AND (b.title_sort, b.id) > (from_sort, from_id)
                                  AND b.title_words LIKE ALL (patterns) AND NOT b.id = ANY (isbn_ids)
                              ORDER BY b.title_sort, b.id LIMIT wanted) AS k;
                        IF cardinality(odd_ids) > 0 THEN
                            SELECT coalesce(array_agg(m.id ORDER BY m.title_sort COLLATE "C", m.id), '{}'),
                                   coalesce(array_agg(m.title_sort ORDER BY m.title_sort COLLATE "C", m.id), '{}')
                            INTO tier_ids, tier_keys
                            FROM (SELECT u.id, u.title_sort FROM unnest(tier_ids || odd_ids, tier_keys || odd_keys) AS u(id, title_sort)
                                  ORDER BY u.title_sort COLLATE "C", u.id LIMIT wanted) AS m;
                        END IF;
                    ELSE
                        -- A word rarer than the statistics track in this rank's fields: the rank
                        -- straight from its word index, sorted (a walk of 2,000 entries that finds
                        -- none of them costs more). One lexeme only: for several, the planner
                        -- multiplies frequencies that are not independent ("to read").
                        IF tier > 0 AND numnode(words) = 1
                                AND bookshelf.estimated_rank_candidates(account_scope, words, tier) <= rare_rows THEN
                            walk_end_kind := NULL;
                            walk_end_sort := from_sort;
                            walk_end_id := from_id;
                            walk_ended := false;
                        ELSE
                            -- The walk: the rank's books among the next walk_rows entries, read lazily,
                            -- so a dense rank stops at the page's last book.
                            IF tier = 3 THEN
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT w.id, w.title_sort FROM (
                                        SELECT b.id, b.title_sort, b.search_words, b.other_words FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND b.other_words <> ''
                                            AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id LIMIT walk_rows) AS w
                                      WHERE (w.search_words || E'\n' || w.other_words) LIKE ALL (patterns)
                                          AND NOT w.search_words LIKE ALL (patterns) AND NOT w.id = ANY (isbn_ids)
                                      LIMIT wanted) AS k;
                            ELSIF characters THEN
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT w.id, w.title_sort FROM (
                                        SELECT b.id, b.title_sort, b.title_words, b.search_words FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND b.search_words ~ ' [^\x01-\x7f]([ \n]|$)'
                                            AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id LIMIT walk_rows) AS w
                                      WHERE CASE tier
                                              WHEN 1 THEN w.title_words LIKE ALL (patterns) AND NOT w.title_words LIKE first_at_start
                                              ELSE w.search_words LIKE ALL (patterns) AND NOT w.title_words LIKE ALL (patterns) END
                                          AND NOT w.id = ANY (isbn_ids)
                                      LIMIT wanted) AS k;
                            ELSE
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT w.id, w.title_sort FROM (
                                        SELECT b.id, b.title_sort, b.title_words, b.search_words FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id LIMIT walk_rows) AS w
                                      WHERE CASE tier
                                              WHEN 0 THEN true
                                              WHEN 1 THEN w.title_words LIKE ALL (patterns) AND NOT w.title_words LIKE first_at_start
                                              ELSE w.search_words LIKE ALL (patterns) AND NOT w.title_words LIKE ALL (patterns) END
                                          AND NOT w.id = ANY (isbn_ids)
                                      LIMIT wanted) AS k;
                            END IF;
                            -- A sparse rank: where the walk ended, unless it read every entry left. Ranks 1
                            -- and 2 walk the same entries when neither starts at the cursor: one end serves both.
                            walk_ended := true;
                            IF wanted > cardinality(tier_ids) THEN
                                IF walk_end_kind IS DISTINCT FROM (CASE WHEN tier = 3 THEN 3 WHEN characters THEN 2 ELSE 1 END)
                                        OR walk_end_from_sort IS DISTINCT FROM from_sort OR walk_end_from_id IS DISTINCT FROM from_id THEN
                                    walk_end_kind := CASE WHEN tier = 3 THEN 3 WHEN characters THEN 2 ELSE 1 END;
                                    walk_end_from_sort := from_sort;
                                    walk_end_from_id := from_id;
                                    IF tier = 3 THEN
                                        SELECT b.title_sort, b.id INTO walk_end_sort, walk_end_id FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND b.other_words <> '' AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id OFFSET walk_rows - 1 LIMIT 1;
                                    ELSIF characters THEN
                                        SELECT b.title_sort, b.id INTO walk_end_sort, walk_end_id FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND b.search_words ~ ' [^\x01-\x7f]([ \n]|$)'
                                            AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id OFFSET walk_rows - 1 LIMIT 1;
                                    ELSE
                                        SELECT b.title_sort, b.id INTO walk_end_sort, walk_end_id FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (from_sort, from_id)
                                        ORDER BY b.title_sort, b.id OFFSET walk_rows - 1 LIMIT 1;
                                    END IF;
                                END IF;
                                walk_ended := walk_end_sort IS NULL;
                            END IF;
                        END IF;
                        IF NOT walk_ended THEN
                            -- A sparse rank: the rest of it from its word index, sorted, after the walk.
                            page_ids := page_ids || tier_ids;
                            page_ranks := page_ranks || array_fill(tier, ARRAY[cardinality(tier_ids)]);
                            page_keys := page_keys || tier_keys;
                            wanted := wanted - cardinality(tier_ids);
                            tier_ids := '{}';
                            tier_keys := '{}';
                            IF tier = 0 THEN
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                                      WHERE b.scope = account_scope AND (b.title_sort, b.id) > (walk_end_sort, walk_end_id)
                                      ORDER BY b.title_sort, b.id LIMIT wanted) AS k;
                            ELSIF tier = 1 THEN
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT r.id, r.title_sort FROM (
                                        SELECT b.id, b.title_sort FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (walk_end_sort, walk_end_id)
                                            AND bookshelf.word_prefixes(b.title_words) @@ words
                                            AND b.title_words LIKE ALL (patterns) AND NOT b.title_words LIKE first_at_start
                                            AND NOT b.id = ANY (isbn_ids) OFFSET 0) AS r
                                      ORDER BY r.title_sort COLLATE "C", r.id LIMIT wanted) AS k;
                            ELSIF tier = 2 THEN
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT r.id, r.title_sort FROM (
                                        SELECT b.id, b.title_sort FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (walk_end_sort, walk_end_id)
                                            AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ words
                                            AND b.search_words LIKE ALL (patterns) AND NOT b.title_words LIKE ALL (patterns)
                                            AND NOT b.id = ANY (isbn_ids) OFFSET 0) AS r
                                      ORDER BY r.title_sort COLLATE "C", r.id LIMIT wanted) AS k;
                            ELSE
                                SELECT coalesce(array_agg(k.id ORDER BY k.title_sort, k.id), '{}'),
                                       coalesce(array_agg(k.title_sort::text ORDER BY k.title_sort, k.id), '{}')
                                INTO tier_ids, tier_keys
                                FROM (SELECT r.id, r.title_sort FROM (
                                        SELECT b.id, b.title_sort FROM bookshelf.books b
                                        WHERE b.scope = account_scope AND (b.title_sort, b.id) > (walk_end_sort, walk_end_id)
                                            AND bookshelf.book_words(b.title_words, b.author_words, b.other_words) @@ words
                                            AND (b.search_words || E'\n' || b.other_words) LIKE ALL (patterns)
                                            AND NOT b.search_words LIKE ALL (patterns) AND b.other_words <> ''
                                            AND NOT b.id = ANY (isbn_ids) OFFSET 0) AS r
                                      ORDER BY r.title_sort COLLATE "C", r.id LIMIT wanted) AS k;
                            END IF;
                        END IF;
                    END IF;
                    page_ids := page_ids || tier_ids;
                    page_ranks := page_ranks || array_fill(tier, ARRAY[cardinality(tier_ids)]);
                    page_keys := page_keys || tier_keys;
                    wanted := wanted - cardinality(tier_ids);
                END LOOP;
            END IF;

            RETURN QUERY SELECT counted, is_estimate, o.id, o.title, o.revision, o.author, r.book_rank, r.sort_key,
                    o.isbn, o.year, o.publisher, o.series, o.series_index, o.tags, o.notes
                FROM unnest(page_ids, page_ranks, page_keys) WITH ORDINALITY AS r(book_id, book_rank, sort_key, n)
                JOIN bookshelf.books o ON o.id = r.book_id ORDER BY r.n;
            IF NOT FOUND THEN
                RETURN QUERY SELECT counted, is_estimate, NULL::bigint, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::text,
                    NULL::text, NULL::integer, NULL::text, NULL::text, NULL::numeric, NULL::text[], NULL::text;
            END IF;
        END $$;
        """#
}
