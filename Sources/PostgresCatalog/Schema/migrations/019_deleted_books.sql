-- Books an import deleted because they were gone from its source (`import --remove-missing`,
-- issue 60). The book's row is deleted (ids come from a sequence, so none is given again) with
-- its provenance; its revisions stay in bookshelf.book_revisions, under their own policy, so
-- `history ID` still shows what was there. This table says whose the book was, its last
-- revision, when and by which source's import (its stamp, as in
-- bookshelf.import_provenance) it went. A deletion is a change every open
-- program is told of, as an insert or an update is.
--
-- Only the database owner imports, so only the owner writes these rows. An account reads the
-- rows of its own scope, as it reads its books.

CREATE TABLE bookshelf.deleted_books (
    book_id bigint PRIMARY KEY,
    scope text NOT NULL,
    revision bigint NOT NULL,
    deleted_at timestamp with time zone NOT NULL DEFAULT pg_catalog.now(),
    source text NOT NULL CHECK (octet_length(source) BETWEEN 1 AND 40),
    import_stamp bigint NOT NULL
);

ALTER TABLE bookshelf.deleted_books ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON bookshelf.deleted_books FROM PUBLIC;

DO $$
DECLARE
    reader_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'reader');
    editor_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'editor');
BEGIN
    EXECUTE pg_catalog.format(
        'CREATE POLICY deleted_books_in_scope ON bookshelf.deleted_books FOR SELECT TO %I, %I '
        'USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user))',
        reader_group, editor_group);
    EXECUTE pg_catalog.format('GRANT SELECT ON bookshelf.deleted_books TO %I, %I', reader_group, editor_group);
END $$;

CREATE TRIGGER books_deleted AFTER DELETE ON bookshelf.books
    FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.notify_books_changed();
