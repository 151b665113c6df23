-- Search at typing speed: word-prefix indexes and bookshelf.search_page, a page at a time from
-- a cursor with the total counted or estimated. Change notices carry no payload: one channel says
-- that something changed, and each client asks, through row-level security, what changed since
-- its last snapshot (a per-scope channel told any role that could name a scope what was saved).

-- Notifications told every role that could name a scope the ids and revisions it
-- saved. Now one channel says only "something changed"; a client then asks for the
-- rows changed since its last snapshot, which row-level security filters.
DROP TRIGGER books_notify ON bookshelf.books;
DROP FUNCTION bookshelf.notify_book_saved();
-- Existing rows count as changed before any snapshot (xid 0); no table rewrite.
ALTER TABLE bookshelf.books ADD COLUMN changed_in xid8 NOT NULL DEFAULT '0';
ALTER TABLE bookshelf.books ALTER COLUMN changed_in SET DEFAULT pg_current_xact_id();
CREATE INDEX books_by_change ON bookshelf.books (scope, changed_in);

CREATE OR REPLACE FUNCTION bookshelf.guard_book_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.scope <> OLD.scope OR NEW.revision <> OLD.revision + 1 THEN
        RAISE EXCEPTION 'a book update must keep id and scope and move the revision up by one'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'books_revision_step';
    END IF;
    NEW.changed_in := pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE FUNCTION bookshelf.notify_books_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('bookshelf_changed', '');
    RETURN NULL;
END $$;
CREATE TRIGGER books_changed AFTER INSERT OR UPDATE ON bookshelf.books
    FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.notify_books_changed();

DROP FUNCTION bookshelf.search_books(text[], text, bigint, bigint);
DROP INDEX bookshelf.books_search_words;
-- Every token's prefixes up to 12 characters as lexemes, so that a query word is one exact
-- GIN entry (no partial-match scan over many lexemes); longer words are rechecked by LIKE.
CREATE FUNCTION bookshelf.word_prefixes(words text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog AS $$
    SELECT array_to_tsvector(coalesce(array_agg(DISTINCT left(t.word, n.length)), '{}'))
    FROM unnest(string_to_array(words, ' ')) AS t(word)
    CROSS JOIN LATERAL generate_series(1, least(char_length(t.word), 12)) AS n(length)
$$;
-- Expression indexes, not stored columns: the vectors are large and the table's pages
-- must stay in memory for the rows a page shows.
CREATE INDEX books_title_vector ON bookshelf.books USING gin (bookshelf.word_prefixes(title_words));
CREATE INDEX books_search_vector ON bookshelf.books USING gin (bookshelf.word_prefixes(title_words || author_words));
-- Titles whose folded text does not begin with their first word ("'Salem's Lot",
-- "¿Qué?"): the few rank-0 matches that the title order does not keep together.
CREATE INDEX books_odd_title_start ON bookshelf.books (scope, title_words text_pattern_ops) INCLUDE (title_sort, id)
    WHERE NOT starts_with(title_sort, split_part(ltrim(title_words, ' '), ' ', 1) COLLATE "C");
DROP INDEX bookshelf.books_by_title;
CREATE INDEX books_by_title ON bookshelf.books (scope, title_sort, id) INCLUDE (title_words, search_words);

-- The planner's estimate of a scope's books matching a word query (NULL: all of them).
-- EXPLAIN needs a volatile function; it reads no rows.
CREATE FUNCTION bookshelf.estimated_candidates(account_scope text, words tsquery) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM bookshelf.books b WHERE b.scope = $1'
            || CASE WHEN words IS NULL THEN '' ELSE ' AND bookshelf.word_prefixes(b.title_words || b.author_words) @@ $2' END
        INTO plan USING account_scope, words;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
REVOKE ALL ON FUNCTION bookshelf.estimated_candidates(text, tsquery) FROM PUBLIC;

CREATE FUNCTION bookshelf.search_page(
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
        estimate := bookshelf.estimated_candidates(account_scope, words);
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
            EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s
                            ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset)
                INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
            RETURN QUERY EXECUTE format(page_rows, tier, format(
                'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                keyset, CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
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
REVOKE ALL ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text)
    TO bookshelf_reader, bookshelf_editor;
