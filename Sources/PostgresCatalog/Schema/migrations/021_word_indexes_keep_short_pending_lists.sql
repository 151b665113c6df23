-- The word indexes keep a pending list again, of at most 64 kB each (GIN's least), where 013
-- gave them none. A save that changes any column writes a new version of the book's row, and
-- with it every word of the book into each word index, the title's and the author's too when
-- only a tag changed; written into the trees one entry at a time, those were most of what a
-- book of a bulk edit cost the server. Through a list they are appended, and merged into the
-- trees in sorted runs when the list passes its limit (by the save that passes it) or at
-- vacuum. Every search still reads the lists whole, as 013 says: at this limit at most eight
-- pages an index, where 013 found 191 after a burst of saves under the default limit of 4 MB.
-- Setup's import lifts the limit for its COPY and sets it back when it merges the lists.

ALTER INDEX bookshelf.books_title_vector SET (fastupdate = on, gin_pending_list_limit = 64);
ALTER INDEX bookshelf.books_search_vector SET (fastupdate = on, gin_pending_list_limit = 64);
ALTER INDEX bookshelf.books_word_vector SET (fastupdate = on, gin_pending_list_limit = 64);
