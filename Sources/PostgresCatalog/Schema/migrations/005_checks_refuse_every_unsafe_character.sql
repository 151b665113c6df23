-- The CHECKs refuse every character the terminal must not receive (U+061C, U+200E/F and
-- U+2028/9 were missing). NOT VALID: rows stored before stay, every new or changed row is checked.

ALTER TABLE bookshelf.books DROP CONSTRAINT books_title_valid;
ALTER TABLE bookshelf.books ADD CONSTRAINT books_title_valid CHECK (
    char_length(title) BETWEEN 1 AND 500 AND title = btrim(title)
    AND title !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
ALTER TABLE bookshelf.books DROP CONSTRAINT books_author_valid;
ALTER TABLE bookshelf.books ADD CONSTRAINT books_author_valid CHECK (
    char_length(author) <= 200
    AND author !~ '[\x01-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]') NOT VALID;
