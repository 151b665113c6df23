-- Where each imported book came from, and the values that import brought (issue 60): a second
-- import of the same source finds the book again by the source's own id (Goodreads' Book Id, a
-- Calibre uuid…) and merges three ways against these values instead of adding it twice. One
-- row per book and source; a source's id names one book of a scope. import_stamp is the import
-- that last brought the book, so the books an import did not bring are found by one query.
--
-- Only the database owner imports, so only the owner writes these rows. An account may read the
-- rows of the books it may read, under the same policy as the books (scope = the account's).

CREATE TABLE bookshelf.import_provenance (
    book_id bigint NOT NULL REFERENCES bookshelf.books (id),
    source text NOT NULL CHECK (octet_length(source) BETWEEN 1 AND 40),
    scope text NOT NULL,
    source_id text CHECK (source_id IS NULL OR octet_length(source_id) BETWEEN 1 AND 200),
    import_stamp bigint NOT NULL,
    title text NOT NULL,
    author text NOT NULL,
    isbn text,
    year integer,
    publisher text NOT NULL,
    series text NOT NULL,
    series_index numeric,
    tags text[] NOT NULL,
    notes text NOT NULL,
    PRIMARY KEY (book_id, source)
);
CREATE UNIQUE INDEX import_provenance_by_source_id
    ON bookshelf.import_provenance (scope, source, source_id) WHERE source_id IS NOT NULL;
CREATE INDEX import_provenance_by_stamp ON bookshelf.import_provenance (scope, source, import_stamp);

ALTER TABLE bookshelf.import_provenance ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON bookshelf.import_provenance FROM PUBLIC;

-- The groups are this catalog's own (bookshelf.groups, migration 008), so their names are read.
DO $$
DECLARE
    reader_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'reader');
    editor_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'editor');
BEGIN
    EXECUTE pg_catalog.format(
        'CREATE POLICY provenance_in_scope ON bookshelf.import_provenance FOR SELECT TO %I, %I '
        'USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user))',
        reader_group, editor_group);
    EXECUTE pg_catalog.format('GRANT SELECT ON bookshelf.import_provenance TO %I, %I', reader_group, editor_group);
END $$;
