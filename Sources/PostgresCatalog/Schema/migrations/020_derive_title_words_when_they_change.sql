-- A save derives a book's title and author words only when the title or the author changed.
-- Every save names the title (and the author) among its columns, so books_derive ran on every
-- save: two PL/pgSQL loops over each character, looked up in bookshelf.folding, for a tag
-- added to a book whose title stayed the same. The words are a function of the text and the
-- folding table, and the folding table changes only in a migration that derives them again
-- itself (006), so the same text needs no second derivation. As books_derive_other_words does
-- (012), an update that names the title and writes a derived column as well still runs it
-- (only the owner may write those columns), so they hold nothing but what the book says.

DROP TRIGGER books_derive ON bookshelf.books;
CREATE TRIGGER books_derive BEFORE UPDATE OF title, author ON bookshelf.books
    FOR EACH ROW WHEN ((OLD.title, OLD.author, OLD.title_sort, OLD.title_words, OLD.author_words)
                       IS DISTINCT FROM (NEW.title, NEW.author, NEW.title_sort, NEW.title_words, NEW.author_words))
    EXECUTE FUNCTION bookshelf.derive_search_columns();
