-- A book's other words (its series, publisher and tags, a line each) are worked out in one
-- pass over all its fields when they are ASCII, and ASCII text is cut into words without a
-- query. Schema 23 folded each field by calling index_text, whose words came from a query
-- over regexp_matches: each call pinned its search path again and started an executor, four
-- or five times a book. The triggers were a fifth of what a bulk edit's statement cost the
-- server (`perf record -a` beside `bookshelf edit --search the --add-tag t`), and other_words
-- took about 47 µs a book of the bench's catalog; in one pass it takes about 27 µs (`SELECT
-- count(bookshelf.other_words(series, publisher, tags)) FROM bookshelf.books`).
--
-- The pass, for fields of ASCII without a line feed (which joins them): A-Z folded; each of
-- $ + < = > | ~ spaced off as a word of its own; every run of other characters but the line
-- feed made one space; then the spaces at either end of a line dropped, the lines without
-- words dropped, and each line led by one space. A book with any other field has each field
-- cut alone, as before. The answers are the same, so the columns made by the old functions stay valid: a
-- test holds other_words to schema 22's query on every ASCII character and pair, the sample
-- and the Unicode corpus; it was also checked equal on every book of the bench's catalog.

CREATE OR REPLACE FUNCTION bookshelf.index_text(source text, OUT sort_key text, OUT words text) RETURNS record
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF source !~ '[^\x01-\x7f]' THEN
        sort_key := translate(source, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
        words := ' ' || btrim(regexp_replace(regexp_replace(sort_key, '([$+<=>|~])', ' \1 ', 'g'),
            '[^a-z0-9$+<=>|~]+', ' ', 'g'), ' ');
    ELSE
        SELECT t.sort_key, t.words INTO sort_key, words FROM bookshelf.index_text_by_characters(source) AS t;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION bookshelf.other_words(series text, publisher text, tags text[]) RETURNS text
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    fields text[] := ARRAY[series, publisher];
    field text;
    words text;
    found_words text[] := '{}';
BEGIN
    -- Tags of more than one dimension (the books_tags_valid check refuses them) are flattened,
    -- as unnest did, so that the check is what refuses them.
    IF array_ndims(tags) > 1 THEN
        fields := fields || ARRAY(SELECT unnest(tags));
    ELSIF tags IS NOT NULL THEN
        fields := fields || tags;
    END IF;
    IF array_to_string(fields, '') !~ '[^\x01-\x09\x0b-\x7f]' THEN
        words := regexp_replace(regexp_replace(
            translate(array_to_string(fields, E'\n'), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
            '([$+<=>|~])', ' \1 ', 'g'), '[^a-z0-9$+<=>|~\n]+', ' ', 'g');
        words := btrim(regexp_replace(btrim(regexp_replace(words, ' *\n *', E'\n', 'g'), ' '), '\n{2,}', E'\n', 'g'),
            E'\n');
        RETURN CASE WHEN words = '' THEN '' ELSE ' ' || replace(words, E'\n', E'\n ') END;
    END IF;
    FOREACH field IN ARRAY fields LOOP
        CONTINUE WHEN field IS NULL;
        words := (bookshelf.index_text(field)).words;
        IF words <> ' ' THEN
            found_words := found_words || words;
        END IF;
    END LOOP;
    RETURN array_to_string(found_words, E'\n');
END $$;
