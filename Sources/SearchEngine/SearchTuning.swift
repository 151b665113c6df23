import Foundation

/// Every tuning constant of the search engine, in one place: what each bounds, why it has its
/// value, and the bench row that shows it (`bookshelf-bench`; the figures measured are in
/// docs/performance-log.md, never here). The SQLite store's own are `SQLiteTuning`. None changes an answer: every path
/// answers exactly what `SearchTerms` gives, and these only decide how quickly and with how much
/// memory. Constants of the index file's format (its magic, version, block size, the longest
/// stored prefix) are not tuning and stay with the format (`SearchIndexSnapshot`,
/// `MappedIndexMemory`, `StoredPrefixes`). docs/design/search-index.md, "Tuning", is this
/// table by hand.
package enum SearchTuning {
    // MARK: The index (Index/)

    /// Bitmap words (64 books each) that one pass over a word's postings fills at least: 65,536
    /// books, 8 KB a bitmap, within the core's first-level cache: a whole bitmap of a large
    /// catalog, set at scattered bits, misses the caches at every posting. Words of very many tokens get longer stretches (`SearchIndexBase.stretchSlots`).
    /// Bench: `search --count 10000000`, class one letter and two letters.
    package static let stretchSlots = 1_024

    /// A word of one token is broad when its postings are at least the books divided by this
    /// (a sixteenth: "a", "th", "of"). Its answers are kept (`BroadPrefixResults`), its places
    /// kept (`BroadWordPlaces`), and a short prefix this broad has its places stored in the
    /// file (`StoredPrefixes`). Bench: `search --count 10000000`, classes one letter and multi-word ("a his of").
    package static let broadShare = 16
    /// Fewer postings than this are never broad, whatever the catalog's size: reading them is
    /// quick enough, and a small catalog would otherwise keep answers for every short prefix.
    /// (Unrelated to the other 4,096s below.) Bench: none alone; `search --count 1000000`,
    /// class one letter, is where the kept answers start to matter.
    package static let broadLeastPostings = 4_096
    /// First matches of each rank a broad prefix's kept answer lists: as deep as the bench's
    /// deepest one-letter page, so that page comes from the kept answer too. Bench: `search --count 1000000`, classes one letter and deep page.
    package static let broadListedPerRank = 8_192
    /// Broad prefixes whose answers are kept per base, each up to 3 × `broadListedPerRank`
    /// ordinals; once full, later ones are computed at each search. Room for every single
    /// letter and digit (36, computed when the index is ready) and the broad pairs and triples
    /// typed since. A bound on memory, not a measured optimum. Bench: `search --count 10000000`, class two letters.
    package static let broadPrefixesKept = 128
    /// Broad words whose places (four bitmaps of one bit a book) are kept for multi-word
    /// queries, most recently used: "a his of" reads the postings of "a" and "of" once rather
    /// than at every key. A bound on memory; the count itself was not measured against others. Bench: `search --count
    /// 10000000`, class multi-word.
    package static let broadWordPlacesKept = 6
    /// Postings of another token of a word of several tokens worth reading to rule out one
    /// candidate before it is judged in the forward index (`keepOnlyBooksHoldingEveryToken`):
    /// reading a posting is a step along one list, judging a book a few waits for memory.
    /// Bench: `search --count 10000000 --class CJK` ("日本の").
    package static let postingsReadPerJudgement = 20

    // MARK: The books changed since the base (Overlay/)

    /// The changed books an index holds beside its base: at least this many, plus one per
    /// `overlayBooksPerChange` books. Catching up costs one binary search a changed book;
    /// what a large overlay costs is judging its books at every search, a fraction of a
    /// microsecond each once the token starts rule most out. Bench: `keys --count 10000000
    /// --cold` (stale: changed books spread over the catalog; time to the next search).
    package static let overlayLeastBooks = 1_024
    /// One changed book of room per this many books of the base: 10,000 edits stay in place at
    /// a million books and beyond. Bench: as `overlayLeastBooks`.
    package static let overlayBooksPerChange = 96
    /// A replacement index is prepared once the overlay holds more than its limit divided by
    /// this (half full), so that it is ready before the overlay is full and searches would go
    /// without an index. Bench: none alone; `keys --cold` (stale), shows the overlay's cost.
    package static let overlayShareBeforeReplacing = 2
    /// How many times the usual overlay a stale stored index may hold while it bridges its
    /// rebuild: worth it while catching up costs less than a scan of the books table (once),
    /// and keys answered over the bridge stay within a frame. Bench: `keys --count
    /// 10000000 --cold` (stale).
    package static let bridgeOverlayFactor = 4
    /// Queries whose matches among the changed books are remembered (4 bytes a match), so that
    /// one that narrows them ("the se" after "the s") judges only those. Bench: `keys --count 1000000
    /// --cold` (stale).
    package static let recentOverlayQueries = 4

    // MARK: The lifecycle (Lifecycle/, Engine/)

    /// More changed rows than this are read away from the host's actor (`startCatchUp`), and
    /// meanwhile pages come from the title order, so the first key does not wait for a long
    /// read. Fewer are read in the search itself. Bench: `keys --count 10000000 --cold` (stale), open → first
    /// results.
    package static let backgroundCatchUpRows = 4_096
    /// How much the background thread lowers its scheduling priority (Linux nice value): on
    /// two cores the build, the search and the screen want three, and keys typed during a
    /// build waited for a core.
    /// Bench: `keys --count 1000000 --no-index`.
    package static let backgroundNiceness: Int32 = 10
    /// The longest a background thread waits for the searches running to end each time it
    /// gives way (`ForegroundWork`): a stream of searches slows the build rather than stops it.
    /// Bench: `keys --count 10000000 --cold` (stale), beside the rebuild.
    package static let givingWayAtMost: TimeInterval = 0.25
    /// Rows between a build's checks for cancellation and for searches to give way to, in its
    /// scans of the books and its forward index: about a millisecond of work each. A power of
    /// two (checked with a mask). Bench: as `givingWayAtMost`.
    package static let buildCheckpointRows = 4_096
    /// Books between the same checks in the build's postings pass; a power of two. Bench: as
    /// `givingWayAtMost`.
    package static let buildCheckpointBooks = 16_384

    // MARK: Answers while no index can answer (WhileIndexing/)

    /// What the kept scans' rows, first matches and orders may take together; the oldest scans
    /// go first. A scan that would pass it keeps nothing (a first letter at ten million
    /// books). Bench: `keys --count 10000000 --no-index`, RssAnon.
    package static let keptScansBytes = 24 << 20
    /// So few kept rows that judging them is quick wherever they lie in the copy. Bench: `keys
    /// --count 1000000 --no-index`.
    package static let fewKeptRows = 16_384
    /// A kept scan of more than `fewKeptRows` and more than the copy's rows divided by this (an
    /// eighth) is narrowed by reading the copy in order instead: its rows would be read out of
    /// order, a cache miss a row ("m" for "mu").
    /// Bench: `keys --count 1000000 --no-index`.
    package static let keptScanShareOfCopy = 8
    /// Rows of the title index read for a page before its count before giving up: a page that
    /// needs more is left to the whole answer, which the count reads anyway. About as many rows
    /// as a page at any size ("h", "hist", "日本", "日", with no stored index: the page at once,
    /// its count after). Titles beginning with a one-word query are all
    /// its first rank, so only a page of several words needs more than its own rows. A kept
    /// scan of no more rows is answered whole from there instead, counted. Bench: `keys --count 1000000 --no-index`.
    package static let titleOrderRows = 1_024
    /// The most changed rows an earlier scan is brought up to date with; more, and the table is
    /// read again (unrelated to `broadLeastPostings`). Bench: `keys --no-index`.
    package static let keptScanChangedRows = 4_096
    /// First matches a kept scan keeps in result order, with their texts, for a narrower query's
    /// page before its count (`LeadingMatches`). Bench: `keys --count 10000000 --no-index`
    /// ("mura" after "mur": 358,358 books, a page of rows judged instead of all of them).
    package static let leadingMatches = 1_024
    /// Books of one group (a rank before the last, one title key, one title) kept among the
    /// first matches; the last is marked, so that "war a" after "war" looks past a thousand
    /// books titled "War" to "War and Peace". Bench: none alone; `keys --no-index`.
    package static let leadingGroupBooks = 4
    /// A scan of at most this many matches keeps them all, so a narrower page anywhere in it
    /// comes from there ("mur" after "mu" at a million books).
    /// Bench: `keys --count 1000000 --no-index`.
    package static let wholeMatches = 65_536
    /// The most matches of a kept scan put in result order (`MatchOrder`: 12 bytes a match,
    /// 16 while it is sorted, beside the kept scans); broader scans are narrowed by a letter or
    /// two, whose pages come from the title order. Two-letter prefixes at ten million books fit
    /// under it ("mur" after "mu" walks the order rather than judging every row); one letter's
    /// matches in order only slowed a query with no page to find early ("zz"). Bench: `keys --count 10000000 --no-index`.
    package static let orderedMatches = 1 << 19
    /// Matches in result order a walk picks by their masks at a time, so a walk that stops
    /// early reads few masks. Bench: as `orderedMatches`.
    package static let orderedWalkStretch = 16_384
    /// Rows ahead of the one it judges that a walk over kept rows asks for their token starts
    /// to be brought into the cache, and half as far for their bytes (`shim_prefetch`; not the
    /// bytes of a row its starts do not admit). The kept rows lie far apart in the copy (an
    /// author's books, one in thirty rows), each a wait for memory; asked for ahead, the waits
    /// overlap ("mur" at a million books). Bench: `keys
    /// --count 1000000 --no-index`.
    package static let copyReadAhead = 16
    /// Bytes each of the copy's scratch files starts with; they grow by doubling, remapped in
    /// place, so the first size only saves the first few remappings. Bench: none alone.
    package static let copyFirstBytes = 16 << 20
    /// Rows between a walk's checks that the search was cancelled by the next key (a count that
    /// walks the whole copy of a large catalog is long); a power of two. Bench: `keys --count
    /// 10000000 --no-index`.
    package static let walkCancellationRows = 16_384

    // MARK: The row matcher (Matching/)

    /// Candidates the row matcher keeps past twice the page before it trims them to the best
    /// (`BestOfRank`): trimming costs a sort, so it runs once per about as many rows as a page
    /// and this. Bench: none alone; every path that judges rows.
    package static let bestOfRankSlack = 64
}
