-- Every function and trigger of the catalog runs with search_path pinned to pg_catalog, pg_temp,
-- so a caller's search path cannot put its own functions or tables in place of the ones they use.
-- The update guard and the change notice ran under the caller's path: an editor who put a
-- schema of their own first could make a save record a change no snapshot sees and announce
-- nothing, so other sessions missed it (issue 55, item 17). The two are restated whole, calling
-- what they call by its schema; the others pinned pg_catalog alone, which searches pg_temp first
-- for tables.

CREATE OR REPLACE FUNCTION bookshelf.guard_book_update() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.scope <> OLD.scope OR NEW.revision <> OLD.revision + 1 THEN
        RAISE EXCEPTION 'a book update must keep id and scope and move the revision up by one'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'books_revision_step';
    END IF;
    NEW.changed_in := pg_catalog.pg_current_xact_id();
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION bookshelf.notify_books_changed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pg_catalog.pg_notify('bookshelf_changed', '');
    RETURN NULL;
END $$;

ALTER FUNCTION bookshelf.account_group_follows_role() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.are_valid_tags(text[]) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.book_words(text, text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.is_isbn13(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.latest_year() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.refuse_late_year() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION bookshelf.word_prefixes(text) SET search_path = pg_catalog, pg_temp;
