-- Titles and authors bounded in UTF-8 bytes, and a title needs a character that is neither
-- whitespace nor invisible. The character classes are BookValidation's rules as they stood when
-- this version was written, frozen here. NOT VALID, as in version 5.

ALTER TABLE bookshelf.books DROP CONSTRAINT books_title_valid;
ALTER TABLE bookshelf.books ADD CONSTRAINT books_title_valid CHECK (
    octet_length(title) <= 2000 AND title = btrim(title)
    AND title !~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e-\u200f\u2028-\u202e\u2066-\u2069]'
    AND title ~ '[^\u0009-\u000d\u0020\u0085\u00a0\u00ad\u034f\u061c\u115f-\u1160\u1680\u17b4-\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\ufffe-\uffff\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U0001fffe-\U0001ffff\U0002fffe-\U0002ffff\U0003fffe-\U0003ffff\U0004fffe-\U0004ffff\U0005fffe-\U0005ffff\U0006fffe-\U0006ffff\U0007fffe-\U0007ffff\U0008fffe-\U0008ffff\U0009fffe-\U0009ffff\U000afffe-\U000affff\U000bfffe-\U000bffff\U000cfffe-\U000cffff\U000dfffe-\U000e0fff\U000efffe-\U000effff\U000ffffe-\U000fffff\U0010fffe-\U0010ffff]') NOT VALID;
ALTER TABLE bookshelf.books DROP CONSTRAINT books_author_valid;
ALTER TABLE bookshelf.books ADD CONSTRAINT books_author_valid CHECK (
    octet_length(author) <= 800
    AND author !~ '[\u0001-\u001f\u007f-\u009f\u061c\u200e-\u200f\u2028-\u202e\u2066-\u2069]') NOT VALID;
