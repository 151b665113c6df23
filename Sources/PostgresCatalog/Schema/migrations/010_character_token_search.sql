-- Japanese, Chinese and Korean queries walk a partial title index of the books that hold such
-- characters, and their count is bounded by the rarest character: each is a token of its own,
-- sorted after every Latin title, and the planner multiplies frequencies of characters that
-- come together.

-- Books with a token of one character beyond ASCII (a Han, kana or Hangul character, or
-- a lone accented letter), in title order and with their words: a walk reads no table rows.
CREATE INDEX books_with_character_tokens ON bookshelf.books (scope, title_sort, id) INCLUDE (title_words, search_words)
    WHERE search_words ~ ' [^\x01-\x7f]([ \n]|$)';

CREATE OR REPLACE FUNCTION bookshelf.search_page(
    patterns text[], first_at_start text, page_limit integer,
    after_rank integer, after_sort text, after_id bigint, count_limit integer, words tsquery, title_start text)
RETURNS TABLE (total bigint, total_is_estimate boolean, id bigint, title text, revision bigint, author text, rank integer, title_sort text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off SET jit = off SET max_parallel_workers_per_gather = 0
AS $$
DECLARE
    walk_rows constant integer := 2000;
    -- Up to this many matches are ranked and ordered all at once.
    few_rows constant integer := 1000;
    -- Word queries whose estimated candidates exceed this are not counted.
    counted_rows constant integer := 2000;
    estimate bigint;
    is_estimate boolean := false;
    found record;
    paged boolean := false;
    page_ids bigint[] := '{}';
    page_ranks integer[] := '{}';
    page_keys text[] := '{}';
    account_scope text;
    word_count integer := coalesce(array_length(patterns, 1), 0);
    all_text text := 'true';
    all_title text := 'true';
    rank_of text := '0';
    tiers text[];
    candidates text[];
    counted bigint;
    wanted integer := page_limit;
    got integer;
    from_rank integer := coalesce(after_rank, 0);
    keyset text;
    walk_end_sort text;
    walk_end_id bigint;
    -- Empty, or the condition that restricts a walk to books_with_character_tokens.
    walk_filter text := '';
    lexeme text;
    page_rows text := 'SELECT $9::bigint, $11, o.id, o.title, o.revision, o.author, %s, o.title_sort::text FROM (%s) AS k JOIN bookshelf.books o ON o.id = k.id ORDER BY o.title_sort, o.id';
BEGIN
    SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
    IF account_scope IS NULL THEN
        RETURN;
    END IF;
    FOR i IN 1 .. word_count LOOP
        all_text := all_text || format(' AND b.search_words LIKE $1[%s]', i);
        all_title := all_title || format(' AND b.title_words LIKE $1[%s]', i);
    END LOOP;
    -- A Han, kana or Hangul character is a token of its own (SearchTerms), so a book
    -- matching a word that holds one holds it as a one-character token: such a query
    -- walks only the books of books_with_character_tokens. The ranges are a subset of
    -- SearchTerms.isIdeographic; a character outside them walks the whole title index.
    IF EXISTS (SELECT 1 FROM unnest(patterns) AS p(pattern)
               WHERE p.pattern ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]') THEN
        walk_filter := ' AND b.search_words ~ '' [^\x01-\x7f]([ \n]|$)''';
    END IF;
    IF word_count > 0 THEN
        rank_of := format('CASE WHEN %s THEN CASE WHEN b.title_words LIKE $2 THEN 0 ELSE 1 END ELSE 2 END', all_title);
    END IF;

    -- The total. Listing a scope counts its title index (no table rows) up to
    -- count_limit + 1. A word query counts only when the planner's estimate of its
    -- candidates (from the word index's statistics) is small, because counting reads a
    -- table row per match; past that the estimate is the answer, labelled as one.
    IF word_count = 0 THEN
        SELECT count(*) INTO counted FROM (SELECT 1 FROM bookshelf.books b
            WHERE b.scope = account_scope LIMIT count_limit + 1) AS m;
        IF counted > count_limit THEN
            estimate := greatest(bookshelf.estimated_candidates(account_scope, NULL), counted);
        END IF;
    ELSE
        IF walk_filter = '' THEN
            estimate := bookshelf.estimated_candidates(account_scope, words);
        ELSE
            -- The characters of a word come together (歴 and 史 as 歴史), so the
            -- planner's product of their frequencies is far too low and the count would
            -- read every match. The rarest lexeme's estimate bounds the matches above.
            FOR lexeme IN SELECT m[1] FROM regexp_matches(words::text, '(''(?:[^'']|'''')+'')', 'g') AS m LOOP
                estimate := least(estimate, bookshelf.estimated_candidates(account_scope, lexeme::tsquery));
            END LOOP;
        END IF;
        IF estimate <= counted_rows THEN
            -- Counting reads every match, so the same pass ranks them and keeps the
            -- page: one read of the table rows, whatever the page.
            FOR found IN EXECUTE format(
                'WITH m AS MATERIALIZED (
                    SELECT b.id, %s AS rank, b.title_sort::text AS sort_key FROM bookshelf.books b
                    WHERE b.scope = $3 AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ $5
                    AND %s LIMIT $4)
                 SELECT n.total, p.id, p.rank, p.sort_key
                 FROM (SELECT count(*) AS total FROM m) AS n
                 LEFT JOIN LATERAL (SELECT * FROM m WHERE %s ORDER BY m.rank, m.sort_key COLLATE "C", m.id LIMIT $6) AS p ON true',
                rank_of, all_text,
                CASE WHEN after_sort IS NULL THEN 'true' ELSE '(m.rank, m.sort_key COLLATE "C", m.id) > ($9, $7, $8)' END)
                USING patterns, first_at_start, account_scope, count_limit + 1, words, page_limit, after_sort, after_id, from_rank
            LOOP
                counted := found.total;
                EXIT WHEN counted > count_limit;
                IF found.id IS NOT NULL THEN
                    page_ids := page_ids || found.id;
                    page_ranks := page_ranks || found.rank;
                    page_keys := page_keys || found.sort_key;
                END IF;
            END LOOP;
            IF counted <= count_limit THEN
                RETURN QUERY SELECT counted, false, o.id, o.title, o.revision, o.author, r.rank, r.sort_key
                    FROM unnest(page_ids, page_ranks, page_keys) WITH ORDINALITY AS r(id, rank, sort_key, n)
                    JOIN bookshelf.books o ON o.id = r.id ORDER BY r.n;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
                paged := true;
            END IF;
            estimate := NULL;
        END IF;
    END IF;
    IF estimate IS NOT NULL THEN
        is_estimate := true;
        counted := round(estimate, 2 - length(estimate::text));
    END IF;

    IF counted = 0 OR paged THEN
        NULL;
    ELSIF NOT is_estimate AND counted <= few_rows THEN
        -- Few matches: rank and order all of them.
        RETURN QUERY EXECUTE format(
            'SELECT $9::bigint, $12, r.id, r.title, r.revision, r.author, r.rank, r.title_sort FROM (
                SELECT b.id, b.title, b.revision, b.author, %s AS rank, b.title_sort::text AS title_sort
                FROM bookshelf.books b WHERE b.scope = $3 AND %s AND %s OFFSET 0) AS r
             WHERE %s ORDER BY r.rank, r.title_sort COLLATE "C", r.id LIMIT $4',
            rank_of, CASE WHEN word_count = 0 THEN 'true' ELSE 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10' END, all_text,
            CASE WHEN after_sort IS NULL THEN 'true' ELSE '(r.rank, r.title_sort COLLATE "C", r.id) > ($11, $5, $6)' END)
            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint, counted,
                  words, from_rank, is_estimate;
        GET DIAGNOSTICS got = ROW_COUNT;
        wanted := wanted - got;
    ELSE
        -- Many matches: each rank in title order. A bounded walk of the title index (which
        -- holds the words, so no table rows are read) fills the page when the rank is dense;
        -- otherwise the rest of the rank comes through the word indexes.
        IF word_count = 0 THEN
            tiers := ARRAY['true', NULL, NULL];
            candidates := ARRAY['true', NULL, NULL];
        ELSE
            tiers := ARRAY[
                all_title || ' AND b.title_words LIKE $2',
                all_title || ' AND NOT b.title_words LIKE $2',
                all_text || ' AND NOT (' || all_title || ')'];
            candidates := ARRAY[NULL, 'bookshelf.word_prefixes(b.title_words) @@ $10', 'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10'];
        END IF;
        FOR tier IN from_rank .. 2 LOOP
            EXIT WHEN wanted <= 0;
            CONTINUE WHEN tiers[tier + 1] IS NULL;
            keyset := CASE WHEN tier = from_rank AND after_sort IS NOT NULL
                           THEN ' AND (b.title_sort, b.id) > ($5, $6)' ELSE '' END;
            IF tier = 0 AND word_count > 0 THEN
                -- Titles that begin with the first word sit together in title order
                -- (title_start: the first query token as a prefix of the sort key), so
                -- rank 0 is a range of the title index read in order, plus the few
                -- titles whose sort key starts elsewhere (books_odd_title_start).
                RETURN QUERY EXECUTE format(page_rows, 0, format(
                    'SELECT s.id FROM (
                        (SELECT b.id, b.title_sort FROM bookshelf.books b
                         WHERE b.scope = $3 AND b.title_sort LIKE $12%1$s AND %2$s AND %3$s
                         ORDER BY b.title_sort, b.id LIMIT $4)
                        UNION ALL
                        (SELECT b.id, b.title_sort FROM bookshelf.books b
                         WHERE b.scope = $3 AND NOT %2$s AND b.title_words LIKE $2%1$s AND %3$s)) AS s
                     ORDER BY s.title_sort COLLATE "C", s.id LIMIT $4',
                    keyset, 'starts_with(b.title_sort, split_part(ltrim(b.title_words, '' ''), '' '', 1) COLLATE "C")',
                    tiers[1]))
                    USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                          counted, NULL::tsquery, is_estimate, title_start;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
                CONTINUE;
            END IF;
            EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                            ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset, walk_filter)
                INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
            RETURN QUERY EXECUTE format(page_rows, tier, format(
                'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                keyset, walk_filter, CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
                tiers[tier + 1]))
                USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, NULL::tsquery, is_estimate;
            GET DIAGNOSTICS got = ROW_COUNT;
            wanted := wanted - got;
            CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;
            RETURN QUERY EXECUTE format(page_rows, tier, format(
                'SELECT r.id FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                 WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8) AND %s AND %s OFFSET 0) AS r
                 ORDER BY r.title_sort COLLATE "C", r.id LIMIT $4', candidates[tier + 1], tiers[tier + 1]))
                USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted, words, is_estimate;
            GET DIAGNOSTICS got = ROW_COUNT;
            wanted := wanted - got;
        END LOOP;
    END IF;
    IF wanted = page_limit THEN
        RETURN QUERY SELECT counted, is_estimate, NULL::bigint, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::text;
    END IF;
END $$;
