-- A book is found by its series, publisher and tags (words the database derives, as for titles)
-- and by its ISBN, as SearchTerms says.

ALTER TABLE bookshelf.books ADD COLUMN other_words text NOT NULL DEFAULT '';

-- The words of the series, the publisher and each tag, each field its own text. Tags of
-- any shape (an editor's UPDATE may write a two-dimensional array, which the CHECK then
-- refuses) are read element by element.
CREATE FUNCTION bookshelf.other_words(series text, publisher text, tags text[]) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT coalesce(string_agg(w.words, E'\n' ORDER BY f.n), '')
    FROM (SELECT series, 0::bigint UNION ALL SELECT publisher, 1
          UNION ALL SELECT t.tag, 1 + t.n FROM unnest(tags) WITH ORDINALITY AS t(tag, n)) AS f(field, n)
    CROSS JOIN LATERAL bookshelf.index_text(f.field) AS w
    WHERE f.field IS NOT NULL AND w.words <> ' '
$$;

CREATE FUNCTION bookshelf.derive_other_words() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.other_words := bookshelf.other_words(NEW.series, NEW.publisher, NEW.tags);
    RETURN NEW;
END $$;
CREATE TRIGGER books_derive_other_words BEFORE UPDATE OF series, publisher, tags, other_words ON bookshelf.books
    FOR EACH ROW WHEN ((OLD.series, OLD.publisher, OLD.tags, OLD.other_words)
                       IS DISTINCT FROM (NEW.series, NEW.publisher, NEW.tags, NEW.other_words))
    EXECUTE FUNCTION bookshelf.derive_other_words();
CREATE TRIGGER books_derive_other_words_on_insert BEFORE INSERT ON bookshelf.books
    FOR EACH ROW WHEN (NEW.other_words = '' AND (NEW.series <> '' OR NEW.publisher <> '' OR NEW.tags <> '{}'))
    EXECUTE FUNCTION bookshelf.derive_other_words();

-- Each distinct series, publisher and tag is derived once and joined, as
-- bookshelf.other_words joins them: deriving is a PL/pgSQL loop per character (0.44 ms a
-- book, three quarters of this migration at 300,000 books), and a catalog holds few values.
CREATE TEMPORARY TABLE field_words ON COMMIT DROP AS
    SELECT f.field, w.words FROM (
        SELECT series FROM bookshelf.books WHERE series <> ''
        UNION SELECT publisher FROM bookshelf.books WHERE publisher <> ''
        UNION SELECT unnest(tags) FROM bookshelf.books WHERE tags <> '{}') AS f(field)
    CROSS JOIN LATERAL bookshelf.index_text(f.field) AS w
    WHERE f.field IS NOT NULL AND w.words <> ' ';
CREATE UNIQUE INDEX ON pg_temp.field_words (field);
ANALYZE pg_temp.field_words;
ALTER TABLE bookshelf.books DISABLE TRIGGER USER;
UPDATE bookshelf.books AS b SET other_words = (
    SELECT coalesce(string_agg(fw.words, E'\n' ORDER BY f.n), '')
    FROM (SELECT b.series, 0::bigint UNION ALL SELECT b.publisher, 1
          UNION ALL SELECT t.tag, 1 + t.n FROM unnest(b.tags) WITH ORDINALITY AS t(tag, n)) AS f(field, n)
    JOIN pg_temp.field_words AS fw ON fw.field = f.field)
    WHERE b.series <> '' OR b.publisher <> '' OR b.tags <> '{}';
ALTER TABLE bookshelf.books ENABLE TRIGGER USER;

-- Every word of a book as token prefixes (version 2's word_prefixes), the line feeds
-- between other fields dropped: each field's words begin with a space already.
CREATE FUNCTION bookshelf.book_words(title_words text, author_words text, other_words text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog AS $$
    SELECT bookshelf.word_prefixes(title_words || author_words || replace(other_words, E'\n', ''))
$$;
CREATE INDEX books_word_vector ON bookshelf.books
    USING gin (bookshelf.book_words(title_words, author_words, other_words));
CREATE INDEX books_with_other_words ON bookshelf.books (scope, title_sort, id) WHERE other_words <> '';
CREATE INDEX books_by_isbn ON bookshelf.books (scope, isbn) WHERE isbn IS NOT NULL;

CREATE OR REPLACE FUNCTION bookshelf.estimated_candidates(account_scope text, words tsquery) RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) SELECT 1 FROM bookshelf.books b WHERE b.scope = $1'
            || CASE WHEN words IS NULL THEN '' ELSE ' AND bookshelf.book_words(b.title_words, b.author_words, b.other_words) @@ $2' END
        INTO plan USING account_scope, words;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;

DROP FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text);

CREATE FUNCTION bookshelf.search_page(
    patterns text[], first_at_start text, page_limit integer,
    after_rank integer, after_sort text, after_id bigint, count_limit integer, words tsquery, title_start text,
    wanted_isbn text DEFAULT NULL)
RETURNS TABLE (total bigint, total_is_estimate boolean, id bigint, title text, revision bigint, author text, rank integer, title_sort text,
              isbn text, year integer, publisher text, series text, series_index numeric, tags text[], notes text)
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
    -- Every word in the title, the author or another field.
    all_fields text := 'true';
    rank_of text := '0';
    -- Conditions and candidates of ranks -1 to 3, at index rank + 2.
    tiers text[];
    candidates text[];
    counted bigint;
    wanted integer := page_limit;
    got integer;
    from_rank integer := coalesce(after_rank, -1);
    keyset text;
    walk_end_sort text;
    walk_end_id bigint;
    -- Empty, or the condition that restricts a walk of ranks 1 and 2 to books_with_character_tokens.
    walk_filter text := '';
    -- The condition of the walk of rank 3: books_with_other_words.
    other_filter constant text := ' AND b.other_words <> ''''';
    lexeme text;
    -- The books of the scope with the ISBN the query is (rank -1), and the condition that
    -- keeps them out of the other ranks ($13); empty when there are none.
    isbn_ids bigint[] := '{}';
    not_isbn text := '';
    book_words constant text := 'bookshelf.book_words(b.title_words, b.author_words, b.other_words)';
    page_rows text := 'SELECT $9::bigint, $11, o.id, o.title, o.revision, o.author, %s, o.title_sort::text,
        o.isbn, o.year, o.publisher, o.series, o.series_index, o.tags, o.notes FROM (%s) AS k JOIN bookshelf.books o ON o.id = k.id ORDER BY o.title_sort, o.id';
BEGIN
    SELECT a.scope INTO account_scope FROM bookshelf.accounts a WHERE a.name = session_user::text;
    IF account_scope IS NULL THEN
        RETURN;
    END IF;
    IF wanted_isbn IS NOT NULL THEN
        isbn_ids := ARRAY(SELECT b.id FROM bookshelf.books b WHERE b.scope = account_scope AND b.isbn = wanted_isbn);
        IF cardinality(isbn_ids) > 0 THEN
            not_isbn := ' AND NOT b.id = ANY ($13)';
        END IF;
    END IF;
    FOR i IN 1 .. word_count LOOP
        all_text := all_text || format(' AND b.search_words LIKE $1[%s]', i);
        all_title := all_title || format(' AND b.title_words LIKE $1[%s]', i);
        all_fields := all_fields || format(' AND (b.search_words LIKE $1[%1$s] OR b.other_words LIKE $1[%1$s])', i);
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
        rank_of := format('CASE WHEN %s THEN CASE WHEN b.title_words LIKE $2 THEN 0 ELSE 1 END WHEN %s THEN 2 ELSE 3 END',
                          all_title, all_text);
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
        estimate := estimate + cardinality(isbn_ids);
        IF estimate <= counted_rows THEN
            -- Counting reads every match, so the same pass ranks them and keeps the
            -- page: one read of the table rows, whatever the page.
            FOR found IN EXECUTE format(
                'WITH m AS MATERIALIZED (
                    %s
                    (SELECT b.id, %s AS rank, b.title_sort::text AS sort_key FROM bookshelf.books b
                     WHERE b.scope = $3 AND %s @@ $5 AND %s%s)
                    LIMIT $4)
                 SELECT n.total, p.id, p.rank, p.sort_key
                 FROM (SELECT count(*) AS total FROM m) AS n
                 LEFT JOIN LATERAL (SELECT * FROM m WHERE %s ORDER BY m.rank, m.sort_key COLLATE "C", m.id LIMIT $6) AS p ON true',
                CASE WHEN not_isbn = '' THEN '' ELSE
                    '(SELECT b.id, -1 AS rank, b.title_sort::text AS sort_key FROM bookshelf.books b WHERE b.id = ANY ($13)) UNION ALL' END,
                rank_of, book_words, all_fields, not_isbn,
                CASE WHEN after_sort IS NULL THEN 'true' ELSE '(m.rank, m.sort_key COLLATE "C", m.id) > ($9, $7, $8)' END)
                USING patterns, first_at_start, account_scope, count_limit + 1, words, page_limit, after_sort, after_id, from_rank,
                      NULL::text, NULL::text, NULL::text, isbn_ids
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
                RETURN QUERY SELECT counted, false, o.id, o.title, o.revision, o.author, r.rank, r.sort_key,
                        o.isbn, o.year, o.publisher, o.series, o.series_index, o.tags, o.notes
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
        -- Few matches: rank and order all of them. Only a listing comes here (a word
        -- query was counted and paged above, or is past few_rows), so no ISBN either.
        RETURN QUERY EXECUTE format(
            'SELECT $9::bigint, $12, r.id, r.title, r.revision, r.author, r.rank, r.title_sort,
                r.isbn, r.year, r.publisher, r.series, r.series_index, r.tags, r.notes FROM (
                SELECT b.id, b.title, b.revision, b.author, %s AS rank, b.title_sort::text AS title_sort,
                    b.isbn, b.year, b.publisher, b.series, b.series_index, b.tags, b.notes
                FROM bookshelf.books b WHERE b.scope = $3 AND %s AND %s OFFSET 0) AS r
             WHERE %s ORDER BY r.rank, r.title_sort COLLATE "C", r.id LIMIT $4',
            rank_of, CASE WHEN word_count = 0 THEN 'true' ELSE book_words || ' @@ $10' END, all_fields,
            CASE WHEN after_sort IS NULL THEN 'true' ELSE '(r.rank, r.title_sort COLLATE "C", r.id) > ($11, $5, $6)' END)
            USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint, counted,
                  words, from_rank, is_estimate;
        GET DIAGNOSTICS got = ROW_COUNT;
        wanted := wanted - got;
    ELSE
        -- Many matches: each rank in title order. A bounded walk of the title index (which
        -- holds the words, so no table rows are read) fills the page when the rank is dense;
        -- otherwise the rest of the rank comes through the word indexes. Rank 3 walks the
        -- books that have other words, reading their rows (its index holds no words).
        IF word_count = 0 THEN
            tiers := ARRAY[NULL, 'true', NULL, NULL, NULL];
            candidates := ARRAY[NULL, 'true', NULL, NULL, NULL];
        ELSE
            tiers := ARRAY[
                CASE WHEN not_isbn = '' THEN NULL ELSE 'b.id = ANY ($13)' END,
                all_title || ' AND b.title_words LIKE $2' || not_isbn,
                all_title || ' AND NOT b.title_words LIKE $2' || not_isbn,
                all_text || ' AND NOT (' || all_title || ')' || not_isbn,
                all_fields || ' AND NOT (' || all_text || ')' || other_filter || not_isbn];
            candidates := ARRAY[NULL, NULL, 'bookshelf.word_prefixes(b.title_words) @@ $10',
                                'bookshelf.word_prefixes(b.title_words || b.author_words) @@ $10', book_words || ' @@ $10'];
        END IF;
        FOR tier IN from_rank .. 3 LOOP
            EXIT WHEN wanted <= 0;
            CONTINUE WHEN tiers[tier + 2] IS NULL;
            keyset := CASE WHEN tier = from_rank AND after_sort IS NOT NULL
                           THEN ' AND (b.title_sort, b.id) > ($5, $6)' ELSE '' END;
            IF tier = -1 THEN
                RETURN QUERY EXECUTE format(page_rows, -1, format(
                    'SELECT b.id FROM bookshelf.books b WHERE %s%s ORDER BY b.title_sort, b.id LIMIT $4', tiers[1], keyset))
                    USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                          counted, NULL::tsquery, is_estimate, NULL::text, isbn_ids;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
                CONTINUE;
            END IF;
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
                    tiers[2]))
                    USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, NULL::text, NULL::bigint,
                          counted, NULL::tsquery, is_estimate, title_start, isbn_ids;
                GET DIAGNOSTICS got = ROW_COUNT;
                wanted := wanted - got;
                CONTINUE;
            END IF;
            EXECUTE format('SELECT b.title_sort, b.id FROM bookshelf.books b WHERE b.scope = $3%s%s
                            ORDER BY b.title_sort, b.id OFFSET $4 LIMIT 1', keyset,
                           CASE WHEN tier = 3 THEN other_filter ELSE walk_filter END)
                INTO walk_end_sort, walk_end_id USING patterns, first_at_start, account_scope, walk_rows - 1, after_sort, after_id;
            RETURN QUERY EXECUTE format(page_rows, tier, format(
                'SELECT b.id FROM bookshelf.books b WHERE b.scope = $3%s%s%s AND %s ORDER BY b.title_sort, b.id LIMIT $4',
                keyset, CASE WHEN tier = 3 THEN '' ELSE walk_filter END,
                CASE WHEN walk_end_sort IS NULL THEN '' ELSE ' AND (b.title_sort, b.id) <= ($7, $8)' END,
                tiers[tier + 2]))
                USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted,
                      NULL::tsquery, is_estimate, NULL::text, isbn_ids;
            GET DIAGNOSTICS got = ROW_COUNT;
            wanted := wanted - got;
            CONTINUE WHEN wanted <= 0 OR walk_end_sort IS NULL;
            RETURN QUERY EXECUTE format(page_rows, tier, format(
                'SELECT r.id FROM (SELECT b.id, b.title_sort FROM bookshelf.books b
                 WHERE b.scope = $3 AND (b.title_sort, b.id) > ($7, $8) AND %s AND %s OFFSET 0) AS r
                 ORDER BY r.title_sort COLLATE "C", r.id LIMIT $4', candidates[tier + 2], tiers[tier + 2]))
                USING patterns, first_at_start, account_scope, wanted, after_sort, after_id, walk_end_sort, walk_end_id, counted,
                      words, is_estimate, NULL::text, isbn_ids;
            GET DIAGNOSTICS got = ROW_COUNT;
            wanted := wanted - got;
        END LOOP;
    END IF;
    IF wanted = page_limit THEN
        RETURN QUERY SELECT counted, is_estimate, NULL::bigint, NULL::text, NULL::bigint, NULL::text, NULL::integer, NULL::text,
        NULL::text, NULL::integer, NULL::text, NULL::text, NULL::numeric, NULL::text[], NULL::text;
    END IF;
END $$;

REVOKE ALL ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text, text) FROM PUBLIC;
DO $$ BEGIN
    EXECUTE format('GRANT EXECUTE ON FUNCTION bookshelf.search_page(text[], text, integer, integer, text, bigint, integer, tsquery, text, text) TO %I, %I',
        (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'reader'),
        (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'editor'));
END $$;

ANALYZE bookshelf.books;
