/// How `bookshelf.search_page` (schema version 2, `PostgresSchema.version2`; replaced in version 10, in
/// version 11 to return each row's details, `PostgresDetailsSchema`, and in version 12 to search
/// the other fields and the ISBN, `PostgresDetailsSearchSchema`; its indexes tuned in version 13,
/// `PostgresSteadySearchSchema`; sparse ranks walked further in version 14,
/// `PostgresSparseRankSchema`) answers a
/// keystroke on a large catalog, and the query plans that was checked against. Kept next to
/// the SQL so that whoever changes one sees the other.
///
/// ## Why the old search was slow
///
/// It counted every match (457,000 rows for "a") and sorted them all to show 50, under
/// row-level security, with trigram LIKE over the words. A page of a broad query cost a full
/// pass over most of the table; `OFFSET` paid again for every row skipped.
///
/// ## The shape now
///
/// The function runs as the owner (the policy's filter could not use the word indexes) and
/// applies the signed-in role's scope itself. For the query's words it gets:
///
/// 1. **A total.** A word query first asks the planner how many candidates the word index
///    holds (`bookshelf.estimated_candidates`, an `EXPLAIN`; the GIN statistics of
///    `word_prefixes` give most-common-lexeme frequencies, so single words are estimated
///    within a few percent). Above 2,000 the estimate is the answer, rounded to two digits and
///    labelled "about". Otherwise the matches are counted exactly (up to 10,001) in the same
///    pass that ranks them and keeps the page. Listing all books counts the title index (no
///    table rows) up to 10,001 and falls back to the estimate past that.
/// 2. **Rank 0 (title starts with the first word)** is a range of the title index read in
///    order: titles that begin with a word sort together, so `title_sort LIKE 'w%'` on
///    `books_by_title` gives them in result order and the first 51 are the page. Titles whose
///    sort key does not start with their first token ("'Salem's Lot") come from the small
///    partial index `books_odd_title_start`, merged in order.
/// 3. **Ranks 1 and 2** walk the title index (which includes `title_words` and
///    `search_words`, so no table rows are read while filtering) for at most 2,000 entries;
///    a dense rank fills the page there. A sparse one walks further when the density the
///    first walk saw says the page is near (version 14, below), then continues through the
///    word indexes (`word_prefixes` GIN), sorted, from where the walks stopped.
/// 4. **Deep pages** continue from the cursor `(rank, title_sort, id)` of the page before:
///    a row comparison in the index condition, never `OFFSET`.
///
/// `word_prefixes` stores every token's prefixes up to 12 characters as lexemes, so a query
/// word is one exact GIN entry instead of a partial-match scan over thousands of lexemes
/// ('ka:*' cost 50 ms; 'ka' costs under 2). They are expression indexes rather than stored
/// columns: stored, the vectors made the table 553 MB instead of about 190 MB, and the rows a
/// page shows no longer stayed in memory.
///
/// ## Plans relied on
///
/// 1,000,000 benchmark books in one scope, PostgreSQL 15, shared_buffers 1 GB, after VACUUM
/// ANALYZE, captured with auto_explain (log_nested_statements) as the non-owner account.
/// Times are from a 2-core machine with a load average of 6–8 from other builds: they show
/// the shape, not the floor.
///
/// "a", rank 0 (the estimate, 453,639, is the total; no counting):
/// ```
/// Merge Append  (actual time=0.110..0.254 rows=51)
///   ->  Limit
///         ->  Index Only Scan using books_by_title on books b  (actual time=0.082..0.218 rows=51)
///               Index Cond: ((scope = 'bench') AND (title_sort >= 'a') AND (title_sort < 'b'))
///               Filter: ((title_sort ~~ 'a%') AND (title_words ~~ '% a%') AND (title_words ~~ ' a%') AND starts_with(...))
///   ->  Sort
///         ->  Index Only Scan using books_odd_title_start on books b_1  (rows=0)
///               Index Cond: ((scope = 'bench') AND (title_words ~>=~ ' a') AND (title_words ~<~ ' b'))
/// whole function: 7.4 ms (of which 2.9 ms the estimate's planning of a 450,000-entry GIN key)
/// ```
///
/// "of", rank 0 is empty (its range holds no title starting with "of"), rank 1 fills from the
/// bounded walk:
/// ```
/// Index Only Scan using books_by_title on books b  (actual time=0.024..0.220 rows=51)
///   Index Cond: ((scope = 'bench') AND (ROW(title_sort, id) <= ROW('a atlas', 233869)))
///   Filter: ((title_words ~~ '% of%') AND (title_words !~~ ' of%'))
///   Rows Removed by Filter: 479
/// whole function: 4.3 ms
/// ```
///
/// "mary beard" (estimate 1,771, actual 1,878: counted, ranked and paged in one pass):
/// ```
/// CTE m
///   ->  Limit  (actual time=4.696..14.291 rows=1878)
///         ->  Bitmap Heap Scan on books b  (rows=1878)
///               Filter: ((search_words ~~ '% mary%') AND (search_words ~~ '% beard%') AND (scope = 'bench'))
///               Heap Blocks: exact=1820
///               ->  Bitmap Index Scan on books_search_vector  (actual time=4.462..4.462 rows=1878)
///                     Index Cond: (word_prefixes((title_words || author_words)) @@ '''mary'' & ''beard''')
/// Sort Key: m.rank, m.sort_key COLLATE "C", m.id   (1,878 rows, 0.9 ms)
/// whole function: 18.9 ms; the table rows of the matches are the cost (about 7 µs each here)
/// ```
///
/// All books, a deep page after the cursor ('h', 0):
/// ```
/// Index Only Scan using books_by_change on books b  (rows=10001)        -- the count, 2.2 ms
/// Index Only Scan using books_by_title on books b  (actual time=0.024..0.032 rows=51)
///   Index Cond: ((scope = 'bench') AND (ROW(title_sort, id) > ROW('h', 0)) AND (ROW(title_sort, id) <= ROW('handbook notes', ...)))
/// whole function: 5.1 ms
/// ```
///
/// ## Japanese, Chinese and Korean queries (schema version 10, issue 41)
///
/// Each Han, kana or Hangul character is a token of its own, so "歴史" is the tsquery
/// '歴' & '史'. The planner multiplies the two frequencies as if independent, but the two come
/// together (only as 歴史): it estimated 15 candidates for 4,059 matches, so the word query was
/// counted, and the count read a table row per match. "村上" (5,020 books by 村上春樹, every
/// one a rank-2 match through the author) did the same. Before, as the non-owner account, 1M
/// bench books, the second of two calls:
/// ```
/// "歴史"  estimate 15 (planning), actual 4,059
/// CTE m -> Bitmap Heap Scan on books b  (rows=4059)  Heap Blocks: exact=3763
///            -> Bitmap Index Scan on books_search_vector  (rows=4059)  Buffers: shared hit=20
/// whole function: 3,993 buffers, 57 ms;  "村上": estimate 27, 5,020 rows, 4,814 buffers, 114 ms
/// ```
/// Now the estimate of such a query is that of its rarest lexeme (an upper bound of an AND),
/// and every walk of a rank adds `search_words ~ ' [^\x01-\x7f]([ \n]|$)'`, the predicate of the
/// partial index `books_with_character_tokens` (30,113 of the 1M books, 3.7 MB): the rank-2
/// walk of "村上" meets the 村上春樹 books at once instead of 970,000 Latin titles first.
/// ```
/// "歴史"  estimate 3,900: rank 0 is the title range '歴%' (51 rows, 5 buffers)
/// whole function: 219 buffers, 2.4 ms
/// "村上"  estimate 5,167: ranks 0 and 1 empty (the range, a walk of 2,000 entries, 11 title-vector buffers), then
/// Index Only Scan using books_with_character_tokens on books b  (rows=51)
///   Filter: ... (search_words ~~ '% 村 上%') AND NOT ((title_words ~~ '% 村 上%'))   Rows Removed by Filter: 197
/// whole function: 383 buffers (204 of them the 51 rows shown)
/// ```
/// The bound costs "日本の" (130 matches; 日 3,767, 本 3,767, の 8,000): it was counted
/// exactly from 449 candidates (685 buffers) and is now "about 3,600", ranked through the walks
/// and 446 title-vector candidates (814 buffers). Lexemes for adjacent characters (日本, 本の) in
/// `word_prefixes` would make both the estimate and the candidates exact; not done yet.
///
/// ## Where the rest of the time goes (measured for issue 41, not changed yet)
///
/// - "mary beard": estimate 1,793, actual 1,878, so counted: the Bitmap Heap Scan reads 1,816
///   heap blocks (one per match) and the GIN intersection of 'mary' (48,000) and 'beard'
///   (36,000) takes 12 ms of a 56 ms function on a machine at a load average of 25. An exact
///   count below 10,000 needs a row per match while the table rows hold the scope and the LIKE
///   recheck; counting from the index alone would need the scope inside the GIN index
///   (btree_gin) and a query whose lexemes are its words (no LIKE recheck).
/// - "a his of": estimate 1,222, actual 1,700: 1,639 heap blocks, and the intersection reads
///   the posting tree of 'a' (450,000 books, 225 buffers) for 25–35 ms under that load.
/// - "tolstoy" (35,000 books, rank 2): 585 buffers in eight statements: the estimate, rank 0's
///   range, a walk of 2,000 entries for rank 1 that finds nothing (no title holds tolstoy, as the
///   title vector says in 0.1 ms), then rank 2's walk (51 rows after 1,597 removed). Asking the
///   title vector first whether a rank has any candidate would save the empty walk.
///
/// ## The series, the publisher, the tags and the ISBN (schema version 12, issue 40)
///
/// Rank 3 (some word only in another field) follows rank 2 in the same loop: a bounded walk of
/// 2,000 entries of `books_with_other_words` (the title order of the books that have other
/// words; it holds no words, so the walk reads each entry's row), then, when the rank is sparse,
/// `books_word_vector` (every word's prefixes) sorted from where the walk stopped. The count and
/// the estimate use `books_word_vector`, so they include rank 3. Rank −1 is the ISBN: its books
/// come from `books_by_isbn` once, first, and `NOT id = ANY (...)` keeps them out of the other
/// ranks (only when there are some: other queries' statements are as before).
///
/// Measured as the account, with auto_explain (log_analyze, log_buffers, nested statements):
/// 300,000 generated books in one scope (titles of one to five words from a skewed vocabulary,
/// authors, 60% with a publisher, 25% with a series, 70% with one to three tags from 150, half
/// with an ISBN), PostgreSQL 15, shared_buffers 512 MB, after VACUUM ANALYZE, the second of two
/// calls, once at version 11 and once after migrating the same catalog to 12. Times are from a
/// shared 2-core machine: compare the buffers.
///
/// Searches that match no other field keep their plans: rank 0's range, rank 1's walk and the
/// estimate read the same indexes (`books_word_vector` holds what `books_search_vector` holds for
/// these words), and rank 2's continuation still reads `books_search_vector`.
/// ```
/// "of"          v11: estimate 22,120, 270 buffers, 1.1 ms   v12: estimate 21,040, 222 buffers, 2.2 ms
/// "history"     v11: estimate 21,840, 268 buffers, 1.1 ms   v12: estimate 22,340, 221 buffers, 1.3 ms
/// "mary beard"  v11: no match, 16 buffers, 0.8 ms           v12: no match, 1.0 ms
/// Index Only Scan using books_by_title on books b  (rows=51)  -- rank 0, both versions
///   Index Cond: ((scope = 'bench') AND (title_sort >= 'of') AND (title_sort < 'og'))
/// ```
/// Rank 2's candidates stay in `books_search_vector` on purpose: from `books_word_vector`, the
/// continuation of "fiction" read the row of every book tagged fiction only to refuse it
/// (4,648 rows, 695 buffers, 7.4 ms on 20,000 books; it grows with the tag).
///
/// A tag word, rank 3 dense ("classics", 3% of books; ranks 0 to 2 empty):
/// ```
/// Index Only Scan using books_with_other_words on books b  (rows=2000)  -- the walk's end, 13 buffers
/// Index Scan using books_with_other_words on books b  (actual time=0.048..6.223 rows=51)
///   Index Cond: ((scope = 'bench') AND (ROW(title_sort, id) <= ROW('a barfikami', 94532)))
///   Filter: ((search_words !~~ '% classics%') AND ((search_words ~~ '% classics%') OR (other_words ~~ '% classics%')))
///   Rows Removed by Filter: 1279   Buffers: shared hit=1262
/// whole function: 1,738 buffers, 16 ms ("fiction", 23%: 664 buffers, 6.9 ms; "press": 560, 14 ms)
/// ```
/// A rank-3 word rarer than one book in 2,000 with other words reads the whole walk (about
/// 2,000 rows) before its candidates; an INCLUDE of the words would spare those rows, but 50
/// tags of 50 characters can pass a btree entry's 2,704 bytes, which would refuse the save.
///
/// An ISBN ("9780000099556", one book; estimate 98 candidates for its word, so counted):
/// ```
/// Index Scan using books_by_isbn on books b  (rows=1)  Buffers: shared hit=3
/// CTE m -> Index Scan using books_pkey on books b  (Index Cond: (id = ANY ('{9956}')))  (rows=1)
///       -> Bitmap Heap Scan on books b_1  (rows=0)   Filter: ((id <> ALL ('{9956}')) AND ...)
///            -> Bitmap Index Scan on books_word_vector  (rows=0)
/// whole function: 29 buffers, 1.1 ms
/// ```
///
/// Costs found, not changed:
/// - A tag of several words ("to read", on 4,863 books) is estimated at 75: the planner
///   multiplies the frequencies of 'to' and 'read', which come together. So it is counted
///   exactly, a row per match: 3,896 buffers, 33 ms. The rarest-word bound of the Japanese
///   queries would fix it, but would stop counting "mary beard"-like author queries exactly.
/// - The migration took 300 s for the 300,000 books here (210,000 with other words). Deriving
///   them (`bookshelf.other_words`, PL/pgSQL) costs 0.25 to 0.7 ms a book (10,000 books: 2.5 s
///   to 7.3 s, by load), so most of it is elsewhere, presumably the update of those rows through
///   every index and the new indexes' builds. Measured step by step later (issue 41, 300,000 bench
///   books, docs/performance-log.md): the derivation is most of it after all, 127 s of the UPDATE's
///   172 s, then 40 s for `books_word_vector`; the bench catalog holds 188 distinct field values.
///   The migration now derives each distinct value once and joins them: the UPDATE takes 85 s.
///   Imports derive the words in Swift (setup's COPY sends `other_words`); through the
///   database's trigger, left for an owner's INSERT by hand, 100,000 books took 158 s (their
///   generation included).
/// - An import of 100,000 more books (another scope) into that catalog at version 12 took 89 s,
///   generating them included, against 88 s for the first 300,000 at version 11 into an empty
///   table; not profiled yet (a third GIN index and two btrees to keep, a table not empty).
/// - Sizes at 300,000 books: table 160 MB after the migration's update, `books_word_vector`
///   71 MB beside `books_search_vector` 66 MB and `books_title_vector` 39 MB,
///   `books_with_other_words` 15 MB, `books_by_isbn` 8 MB.
///
/// ## Steady under saves, rare words counted (schema version 13, issue 41)
///
/// Measured at 1,000,000 bench books in one scope (PostgreSQL 15, shared_buffers 1 GB, as the
/// account, auto_explain with buffers), on the copy the bench had just saved 857 times to.
///
/// **Pending lists.** GIN's `fastupdate` (on by default) appends a save's entries to a pending
/// list that every scan of the index reads in full until vacuum or a 4 MB list merges it.
/// After those saves `books_word_vector` held 1,269 pending entries on 191 pages and
/// `books_title_vector` 85 pages, so a scan that finds nothing read 131 to 195 buffers (0.4 to
/// 1.2 ms) instead of 4, up to four times a search. The bench's own search table never saw it
/// (it runs right after VACUUM); sixteen people typing beside two writers did. Merged by hand,
/// ISBN queries went from 12.4 to 9.6 ms at the median and words with no match from 12.2 to 9.0.
/// Version 13 turns the lists off: a save writes the trees (11.4 ms at the median against 6.5
/// with eight writers fighting over a hundred books on two cores), and setup's import turns
/// them on for its COPY and merges them after, because 30,000 books took 22 s into the trees
/// against 9.1 s through the lists (a 256 kB list limit, the middle way, 11.0 s, but saves
/// then paid the merges: p99 72 ms).
///
/// **Rare words.** The word index's statistics kept 1,000 lexemes, the rarest at 1.28 % of
/// the books, and the planner estimates a lexeme outside the list at half that, capped at
/// 0.5 %: 5,005 books at a million. Every rare or absent word (an ISBN, a name, a typo)
/// was past the counting limit and walked all four ranks to find a handful or none:
/// ```
/// "zzqx" (no match), estimate 5,005: rank 0's range, then for ranks 1, 2 and 3 the walk's
/// end (2,000 entries, 0.5 ms each), the walk (2,000 entries: 0.7, 0.8 and 3.5 ms, rank 3
/// reading a row per entry) and the word index (0.3 to 0.5 ms, 0 rows): 12.5 ms
/// "9780000000033" (one book, rank -1), the same walks after it: 4,392 buffers, 9.1 ms
/// ```
/// With `SET STATISTICS 1000` on the index's column ANALYZE keeps 2,896 lexemes (the rarest
/// at 0.09 %) and a word outside them is estimated at 462, so it is counted and paged in one
/// pass: "9780000987655" 81 buffers, "zzqx" 10 buffers; one session at the median, ISBN
/// 8.9–9.8 → 1.0 ms and no match 9.3–9.6 → 0.9–1.2 ms. The estimates of listed
/// words barely move ("tolstoy" 37,272 → 36,167), so the other classes keep their plans.
/// The cost: ANALYZE reads ten times the rows for that column, 55 s instead of 5 at a
/// million books (and as long in autovacuum's runs). At ten million a word outside the list
/// would be estimated at about 4,600 again, past the counting limit: statistics cannot tell rare
/// from absent at that size, and those words walk the ranks as before (about 9 ms).
///
/// **Left as they were, with the reason.** Two queries are the slowest of their classes,
/// and both read a table row per match whichever path they take:
/// ```
/// "rome cycle" (a series on 4,628 books): estimate 1,270 or 3,471, by the sample
///   counted: Bitmap Heap Scan (4,628 rows, 4,392 heap blocks) 19 ms, function 21 ms
///   walked: rank 3's walk finds 3 in 2,000 rows (3.1 ms), then its word index sorted from
///   there, 4,625 rows (14.5 ms), function 28 ms
/// "mary beard" (1,878 books by her): estimate 1,668, counted, 1,878 heap rows, 12 ms
/// ```
/// The GIN intersection alone costs 3.3 to 6.5 ms for "rome" & "cycle" (estimated 13,940
/// and 249,013 books). A page in title order needs each candidate's title: a word index
/// holds no order, and `books_with_other_words` holds no words (its rows would pass a btree
/// entry's limit with 50 tags). What would serve: an ordered index of the words of books
/// whose words fit in an entry, so that rank 3's walk reads no rows, with a longer walk. Tried
/// by hand on a copy (not in the schema): `(scope, title_sort, id) INCLUDE (search_words,
/// other_words) WHERE other_words <> '' AND` the three fit in 2,400 bytes, 128 MB beside
/// `books_with_other_words`' 81 MB. Rank 3's first page from it, index only:
/// ```
/// "rome cycle"  51 rows after 13,419 removed, 3,300 buffers, 7.9 ms  (now 28 ms: walk, then 4,625 rows)
/// "fantasy"     51 rows after 937 removed, 310 buffers, 1.0 ms       (now 3.0 ms reading 988 rows)
/// ```
/// It needs a walk of about 20,000 entries for a word as sparse as "rome cycle" (its end found
/// in an index scan of its own, about 5 ms), a second walk for the few books whose words do not
/// fit, and an index kept on every save; or the scope and an order inside the word index (RUM,
/// an extension this project cannot ask every server for).
///
/// ## Sparse ranks and exact bitmaps (schema version 14, issue 41)
///
/// At ten million books (PostgreSQL 15, shared_buffers 1 GB, as the account) sixteen people
/// typing met the 30 s statement timeout twelve times, all in the continuation of rank 2 of a
/// two-word prefix. Alone and warm:
/// ```
/// "mary b", rank 2 after its walk found 16 of 51 in 2,000 entries:
///   Bitmap Heap Scan on books (candidates of word_prefixes(title_words || author_words))
///     rows=111,191, Heap Blocks: exact=63,202 lossy=33,786, Rows Removed by Index Recheck: 840,255
///   Sort (top-N) ... 71 s under auto_explain, 31 s without
/// "mary be", rank 2 after its walk found 4: 23,550 candidate rows read and sorted, 96 ms
/// ```
/// Two causes. **The bitmap turned lossy**: with `work_mem` 4 MB a bitmap of 97,000 pages keeps
/// a third of them as whole pages, and every row of such a page is checked again by computing
/// its `word_prefixes` (a SQL function with `generate_series`, 35 µs a row). With 32 MB the
/// bitmap stays exact and the same statement takes 0.3 s. **The candidates are many and thin**:
/// rank 2 of "mary be" is 0.24 % of the title order, so the page lies some 20,000 entries on,
/// and reading those entries from the title index (0.5–0.7 µs each, no table rows) costs less
/// than the 23,550 rows (4 µs each). Version 14 estimates how far: the first walk found `got`
/// books in 2,000 entries, so the rest of the page is about `1.5 × wanted × 2000 / got`
/// entries on; when that is at most 50,000 and less than five entries per candidate the planner
/// estimates for the rank (`bookshelf.estimated_rank_candidates`), the rank walks that far
/// (a LIMIT inside a subquery, index only), and only what is still missing comes from the
/// candidates past the walk's end. A rank whose first walk found none (an author's name in a
/// title, "tolkien" in rank 1) keeps its candidates, which are then few.
///
/// Rank 3's walk read a table row per entry (`books_with_other_words` holds no words), so a
/// longer walk could not cost less than its candidates. `books_with_other_words_covered` holds
/// the words of the books whose title key and words fit in 2,400 bytes (128 MB at a million
/// books, 1.28 GB at ten million; built in 30 s there), and `books_with_long_other_words` the
/// others (none in the bench); the walk reads both in title order through a `UNION ALL` the
/// planner merges (Merge Append of an Index Only Scan and an Index Scan). At a million books
/// rank 3's first walk of "rome cycle" went from 3.1 to 1.3 ms; it found 3 books in 2,000
/// entries, and the 48,000 entries that density asks for cost more than its 3,386 estimated
/// candidates, so the candidates still fill the page there (4,625 rows, 17 ms). At ten million
/// books (46,000 candidates) it walks 9,183 more entries and fills the page: 166–173 → 33 ms.
/// The longer walk limits each side of the merge on its own: limited as a whole, the planner
/// (which guesses a third of the books are long: it has no statistics for the sum of lengths)
/// appended the two, sorted 9.6 million entries and took 4.8 s.
/// ```
/// "mary be"   rank 2 walks 23,281 more entries (15.6 ms) and fills the page: 96 → 20 ms
/// "mary b"    31 s → 0.3 s (exact bitmap) → 10 ms (walks 6,563 more)
/// "mary bea"  93 → 19 ms        "tolkien" 11 → 12–14 ms (rank 1 and 2 found none: unchanged)
/// ```
///
/// ## Each rank by what its candidates cost (schema version 15, issue 41)
///
/// At a million books a tag such as "fantasy" cost 7.5 ms though its page comes from rank 3's
/// first walk: ranks 1 and 2, which no title or author fills, each looked up where a walk of
/// 2,000 entries ends (0.5–0.9 ms) and walked it (0.9 ms) to find nothing, and so did an author's
/// name in rank 1 ("tolstoy", 4.4 ms). A rank whose candidates are fewer than a walk's entries
/// cannot fill a page from a walk anyway (at most one entry in a thousand is its), so version 15
/// asks the planner first (`bookshelf.estimated_rank_candidates`, about 0.1 ms) and, below
/// 2,000, reads the candidates at once: for "fantasy" rank 1 is estimated at 607 and rank 2 at
/// 1,137 (a word outside the statistics), and the two reads find none in 4 buffers each.
/// ```
/// rank 1 of "fantasy": Aggregate -> Limit -> Bitmap Heap Scan on books (rows=0)
///   -> Bitmap Index Scan on books_title_vector (rows=0)  Buffers: shared hit=4   0.02 ms
/// ```
/// The read stops at twice the estimate and a page, and the rank is then walked as before, so a
/// wrong estimate costs a bounded read. Han, kana and Hangul queries never read at once: the
/// planner multiplies their characters' frequencies, which come together, and "日本文学" (rank 3
/// estimated at 16) read and dropped 2,001 rows, 25 ms, before this rule.
///
/// The first walk is now a `LIMIT` inside a subquery, as the longer walk was, so the walk's end is
/// looked up only when the page is not full: "of" (rank 1, filled by the first walk) 2.1 → 1.7 ms.
/// The price is paid by a rank the first walk does not fill: each entry passes through two more
/// plan nodes, 0.6 → 1.0 ms for the 2,000 entries of "日本の" under auto_explain.
///
/// The longer walk goes as far as the density the first walk saw asks, but no further than the
/// rank's candidates would cost (five entries a row); version 14 did not walk at all when the
/// density asked for more. The density of a few books is a guess, and the walk stops when the
/// page is full. Rank 3 of "rome cycle" found 3 books in 2,000 entries; the density asked for
/// 48,000, the 3,386 candidates cost 16,930, and the page was 11,470 on:
/// ```
/// Limit -> Subquery Scan -> Limit (rows=11470) -> Merge Append
///   -> Limit -> Index Only Scan using books_with_other_words_covered (rows=11470)
///   -> Limit -> Index Scan using books_with_long_other_words (rows=0)
/// 9.5 ms under auto_explain, instead of 4,625 candidate rows (17 ms)
/// ```
/// For Han, kana and Hangul the rank's estimate is raised to the total's bound (the rarest
/// character's estimate): "日本 z" found 20 of rank 3 in its first walk, and with the planner's
/// 405 (5,614 candidates in truth) the walk was limited to 2,025 entries and the rank read all
/// 5,634 candidates, 33 ms; bounded by 3,767 it walks on 7,416 entries to its page, 7 ms (36 → 16 ms
/// for the search, uninstrumented).
///
/// Not changed, with the reason: at ten million books "war and pe" (estimated 1,526, counted;
/// 37 ms in the server) spends 30 ms in the bitmap scan of `books_word_vector`, all of it on one
/// core with every page in memory:
/// ```
/// Bitmap Heap Scan on books b (actual time=30.6..31.7 rows=1680)  Buffers: shared hit=2741
///   -> Bitmap Index Scan on books_word_vector (actual time=30.4..30.4 rows=1680)  Buffers: shared hit=1067
/// ```
/// The time is set by the rarest word's entries, not by the result: "war" alone (136,558 books,
/// 47 pages of the index) takes 28.6 ms in the same scan, some 0.2 µs an entry; "war & pe" 20.9 ms.
/// Not counting does not avoid it: with counting turned off the same search took 36.3 ms, because
/// rank 0 (titles starting with "war and pe") holds 32 books and ranks 1 to 3 read the same entries
/// from their own word indexes to fill the page. Under 30 ms it would take fewer entries for the
/// rarest word (an index of word pairs is quadratic in a book's words, prefixes included) or the
/// scan spread over cores (PostgreSQL does not scan one GIN index in parallel; a table partitioned
/// by id would let parallel workers each scan a part).
/// Medians of nine calls in the server, a million bench books, version 14 → 15: "fantasy" 7.6 →
/// 3.3 ms, "gallimard" 7.5 → 3.4, "first edition" 8.8 → 4.4, "rome cycle" 21.3 → 12.5,
/// "tolstoy" 4.4 → 2.6, "日本の" 4.8 → 4.5; the first six pages of 41 queries (Japanese ones among them) identical.
///
/// The benchmark (`bookshelf-bench compare`) times the same classes through the app's stack;
/// its figures are in docs/performance.md and docs/performance-log.md.
enum PostgresSearchPlans {}
