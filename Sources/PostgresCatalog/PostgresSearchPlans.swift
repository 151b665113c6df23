/// How `bookshelf.search_page` (schema version 2, `PostgresSchema.version2`) answers a
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
///    a dense rank fills the page there. A sparse one continues through the word indexes
///    (`word_prefixes` GIN), sorted, from where the walk stopped.
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
/// The benchmark (`bookshelf-bench compare`) times the same classes through the app's stack;
/// its figures are in docs/performance.md and docs/performance-log.md.
enum PostgresSearchPlans {}
