-- The word indexes keep no pending list, so a search costs the same however much was saved
-- lately, and the word index keeps ten times the statistics, so a rare word is counted instead of
-- walked. Setup runs ANALYZE after this version commits.

ALTER INDEX bookshelf.books_title_vector SET (fastupdate = off);
ALTER INDEX bookshelf.books_search_vector SET (fastupdate = off);
ALTER INDEX bookshelf.books_word_vector SET (fastupdate = off);
SELECT gin_clean_pending_list('bookshelf.books_title_vector'), gin_clean_pending_list('bookshelf.books_search_vector'),
       gin_clean_pending_list('bookshelf.books_word_vector');
ALTER INDEX bookshelf.books_word_vector ALTER COLUMN 1 SET STATISTICS 1000;
