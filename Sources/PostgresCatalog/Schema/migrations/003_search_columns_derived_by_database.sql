-- The database derives an edited book's search columns itself (bookshelf.folding is written
-- by setup from SearchFolding right after this file), so an editor writing SQL by hand cannot
-- make a book unsearchable or searchable under words it does not hold.

CREATE TABLE bookshelf.folding (
    code integer PRIMARY KEY,
    kind "char" NOT NULL CHECK (kind IN ('w', 'i', 'x', 'X', 's')),
    folded text,
    folded_alone text
);

-- Title or author as SearchTerms sees it: the folded text in NFC (the title's sort key)
-- and its tokens, each preceded by one space (what BookIndexText stores).
CREATE FUNCTION bookshelf.index_text(source text, OUT sort_key text, OUT words text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
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

CREATE FUNCTION bookshelf.derive_search_columns() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    title_text record;
BEGIN
    title_text := bookshelf.index_text(NEW.title);
    NEW.title_sort := title_text.sort_key;
    NEW.title_words := title_text.words;
    NEW.author_words := (bookshelf.index_text(NEW.author)).words;
    RETURN NEW;
END $$;
-- Updates only: books arrive through setup (COPY, as the owner), which derives them
-- with the same rules in Swift; editors can only update.
CREATE TRIGGER books_derive BEFORE UPDATE OF title, author ON bookshelf.books
    FOR EACH ROW EXECUTE FUNCTION bookshelf.derive_search_columns();

REVOKE UPDATE (title_sort, title_words, author_words) ON bookshelf.books FROM bookshelf_editor;
GRANT SELECT ON bookshelf.folding TO bookshelf_reader, bookshelf_editor;
