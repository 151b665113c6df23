-- The word indexes' pending lists may hold 256 kB each, where 021 allowed GIN's least, 64 kB.
-- A save that changes any indexed column writes a new version of the row (not a HOT update),
-- and with it every word of the book into each word index: about 110 entries a book, however
-- little it changed. The save that fills a list merges it into the trees key by key, one
-- descent per distinct key. A bulk edit's statement of a thousand books filled a 64 kB list
-- some thirty times; four times the list shares each descent among four times the entries,
-- mostly the short prefixes every title holds, and a bulk edit's statement costs about two
-- thirds of what it did (`bookshelf-bench bulk --postgres --count 100000`; the figures are in
-- docs/performance-log.md). A search reads the lists whole: at most 32 pages an index, where
-- 021 kept 8 and 013 found 191 under the default limit of 4 MB. Setup's import still lifts the
-- limit for its COPY and sets it back when it merges the lists.

ALTER INDEX bookshelf.books_title_vector SET (gin_pending_list_limit = 256);
ALTER INDEX bookshelf.books_search_vector SET (gin_pending_list_limit = 256);
ALTER INDEX bookshelf.books_word_vector SET (gin_pending_list_limit = 256);
