-- Batches (issue 61): a number for the saves of one bulk edit or undo, kept on the operation
-- record of each save it made (bookshelf.saves), so that history names the batch of a revision
-- and an undo finds the revisions to revert. A batch belongs to the scope and the account that
-- began it, under row-level security as the books are: an account sees the batches of its own
-- scope, only an editor begins one (in its own scope and name), and a save names only a batch
-- its own account began. A policy of batches may not read batches itself (PostgreSQL refuses
-- the recursion), so that an undo names a batch of the same scope is the program's check.

CREATE TABLE bookshelf.batches (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope text NOT NULL,
    started_by text NOT NULL DEFAULT current_user,
    started_at timestamptz NOT NULL DEFAULT now(),
    undoes bigint REFERENCES bookshelf.batches (id)
);
ALTER TABLE bookshelf.batches ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON bookshelf.batches FROM PUBLIC;

ALTER TABLE bookshelf.saves ADD COLUMN batch bigint REFERENCES bookshelf.batches (id);
CREATE INDEX saves_by_batch ON bookshelf.saves (batch) WHERE batch IS NOT NULL;

DO $$
DECLARE
    reader_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'reader');
    editor_group text := (SELECT g.name FROM bookshelf.groups g WHERE g.role = 'editor');
BEGIN
    EXECUTE format('CREATE POLICY batches_in_scope ON bookshelf.batches FOR SELECT TO %I, %I
        USING (scope = (SELECT a.scope FROM bookshelf.accounts a WHERE a.name = current_user))',
        reader_group, editor_group);
    EXECUTE format('CREATE POLICY batches_begun_by_self ON bookshelf.batches FOR INSERT TO %I
        WITH CHECK (started_by = current_user
            AND scope = (SELECT a.scope FROM bookshelf.accounts a
                         WHERE a.name = current_user AND a.role = ''editor''))',
        editor_group);
    EXECUTE format('CREATE POLICY saves_into_own_batch ON bookshelf.saves AS RESTRICTIVE FOR INSERT TO %I
        WITH CHECK (batch IS NULL OR EXISTS (
            SELECT 1 FROM bookshelf.batches b WHERE b.id = batch AND b.started_by = current_user))',
        editor_group);
    EXECUTE format('GRANT SELECT ON bookshelf.batches TO %I, %I', reader_group, editor_group);
    EXECUTE format('GRANT INSERT (scope, undoes) ON bookshelf.batches TO %I', editor_group);
END $$;
