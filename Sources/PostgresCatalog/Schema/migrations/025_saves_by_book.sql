-- A book's history finds the save that made each revision through an index on the book, where
-- it read every save of the catalog: a history grew slower with every save anyone made (at
-- 300,000 saves, a whole read of the table under the policy that checks each save's book, and
-- a plan costly enough for the server to compile it first). Undo's read of a batch already has
-- `saves_by_batch`.

CREATE INDEX saves_by_book ON bookshelf.saves (book_id, revision);
