-- Every committed revision of every book, written by a trigger so that a save by hand-written
-- SQL is recorded too, with the account that signed in (session_user, which no one can forge).
-- Books already in the catalog start their history at their current revision.

CREATE TABLE bookshelf.book_revisions (
    book_id bigint NOT NULL,
    revision bigint NOT NULL,
    scope text NOT NULL,
    title text NOT NULL,
    author text NOT NULL,
    account text,
    saved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (book_id, revision)
);
INSERT INTO bookshelf.book_revisions (book_id, revision, scope, title, author, account)
    SELECT id, revision, scope, title, author, NULL FROM bookshelf.books;

-- Runs as the owner: accounts may not write history themselves, only cause it.
CREATE FUNCTION bookshelf.record_revisions() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO bookshelf.book_revisions (book_id, revision, scope, title, author, account)
    SELECT n.id, n.revision, n.scope, n.title, n.author,
           CASE WHEN TG_OP = 'UPDATE' THEN session_user::text END
    FROM changed_rows AS n;
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION bookshelf.record_revisions() FROM PUBLIC;
-- Statement triggers with transition tables: a million-book COPY is one INSERT here.
CREATE TRIGGER books_history_insert AFTER INSERT ON bookshelf.books
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.record_revisions();
CREATE TRIGGER books_history_update AFTER UPDATE ON bookshelf.books
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bookshelf.record_revisions();

ALTER TABLE bookshelf.book_revisions ENABLE ROW LEVEL SECURITY;
CREATE POLICY revisions_in_scope ON bookshelf.book_revisions FOR SELECT
    TO bookshelf_reader, bookshelf_editor
    USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user));
REVOKE ALL ON bookshelf.book_revisions FROM PUBLIC;
GRANT SELECT ON bookshelf.book_revisions TO bookshelf_reader, bookshelf_editor;
