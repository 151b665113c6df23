-- A text of ASCII characters alone (most titles, authors, series, publishers and tags) is
-- folded and cut into words by two built-in functions instead of the PL/pgSQL loop over each
-- character and its row of bookshelf.folding, which was most of what deriving a book's other
-- words cost a save that added a tag. The folding table says, for ASCII: A-Z fold to a-z,
-- letters and digits make words, each of $ + < = > | ~ is a word of its own (kind 'i'), and
-- every other character separates words and folds to itself; already NFC. The loop is kept
-- whole, under its own name, for every other text. A test holds the two to the same answers
-- for every ASCII character, alone and in pairs, and to the folding table's ASCII rows.

CREATE FUNCTION bookshelf.index_text_by_characters(source text, OUT sort_key text, OUT words text) RETURNS record
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    piece record;
    token text;
    token_is_ideograph boolean := false;
    -- A zero-width joiner, or the first of two regional indicators (a flag), makes the
    -- next character part of the same grapheme, so of the same token, as in Swift.
    joins_next boolean := false;
    folded_text text := '';
    tokens text[] := '{}';
BEGIN
    FOR piece IN
        SELECT CASE WHEN c.n = 1 AND f.kind = 'X' THEN 'w' WHEN c.n = 1 AND f.kind = 'x' THEN 's'
                    ELSE coalesce(f.kind, 's') END AS kind,
               CASE WHEN c.n = 1 AND f.kind IN ('x', 'X') THEN coalesce(f.folded_alone, c.ch)
                    ELSE coalesce(f.folded, c.ch) END AS folded,
               ascii(c.ch) AS code
        FROM unnest(regexp_split_to_array(source, '')) WITH ORDINALITY AS c(ch, n)
        LEFT JOIN bookshelf.folding AS f ON f.code = ascii(c.ch)
        ORDER BY c.n
    LOOP
        folded_text := folded_text || piece.folded;
        IF joins_next AND token IS NOT NULL AND piece.kind IN ('i', 'w') THEN
            token := token || piece.folded;
            joins_next := false;
            CONTINUE;
        END IF;
        joins_next := piece.code = 8205 OR (piece.code BETWEEN 127462 AND 127487 AND NOT joins_next);
        IF piece.kind IN ('x', 'X') THEN
            -- Part of the character before: of its token, if it is in one.
            IF token IS NOT NULL THEN token := token || piece.folded; END IF;
        ELSIF piece.kind = 'i' THEN
            IF token IS NOT NULL THEN tokens := tokens || token; END IF;
            token := piece.folded;
            token_is_ideograph := true;
        ELSIF piece.kind = 'w' THEN
            IF token IS NOT NULL AND token_is_ideograph THEN
                tokens := tokens || token;
                token := NULL;
            END IF;
            token := coalesce(token, '') || piece.folded;
            token_is_ideograph := false;
        ELSE
            IF token IS NOT NULL THEN tokens := tokens || token; END IF;
            token := NULL;
            token_is_ideograph := false;
        END IF;
    END LOOP;
    IF token IS NOT NULL THEN tokens := tokens || token; END IF;
    sort_key := normalize(folded_text, NFC);
    words := ' ' || array_to_string(tokens, ' ');
END $$;

CREATE OR REPLACE FUNCTION bookshelf.index_text(source text, OUT sort_key text, OUT words text) RETURNS record
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF source !~ '[^\x01-\x7f]' THEN
        sort_key := translate(source, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
        words := ' ' || array_to_string(ARRAY(
            SELECT m.token[1] FROM regexp_matches(sort_key, '[a-z0-9]+|[$+<=>|~]', 'g') WITH ORDINALITY AS m(token, n)
            ORDER BY m.n), ' ');
    ELSE
        SELECT t.sort_key, t.words INTO sort_key, words FROM bookshelf.index_text_by_characters(source) AS t;
    END IF;
END $$;
