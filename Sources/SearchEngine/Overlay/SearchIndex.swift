import BookCatalog
import Foundation

/// The search index of one remote: an immutable `SearchIndexBase` (one scope's books as of
/// one change marker, built or loaded from the source's stored index) plus the books changed
/// since (by anyone), read through `SearchSource.changes`.
///
/// Why in memory: a prefix of one or two letters matches hundreds of thousands of books, and
/// the answer must be ranked (`SearchTerms.sortKey`) and counted exactly. FTS5 can find them
/// but must then count and sort every match through SQL, as long as the matches are many
/// (`bookshelf-bench search`, class one letter, against `RawSQLiteSearch`); here every book has an ordinal in result order and ranking is bit
/// arithmetic over posting lists (see `SearchIndexBase`).
///
/// Rows changed after the base are kept in an overlay (the changed rows, judged on their
/// stored terms by the row matcher every path uses, `RowJudge`), and their superseded base entries
/// are hidden by a bitmap. Catching up costs one indexed read of the changed rows and one
/// binary search per row, whatever the catalog's size. Where an overlay book goes among the
/// base matches is decided only when a search needs it, by comparing title keys: the base
/// keeps no titles, so the keys of the few base books the merge compares with are read from
/// the catalog (`TitleKeyLookup`). A large overlay asks for a rebuild. A *bridge* is an index over a
/// stored base too far behind for that: it may hold a larger overlay, and serves only while
/// the rebuild it waits for runs.
package final class SearchIndex {
    package let base: SearchIndexBase
    /// How many changed rows this index may hold before it must be replaced.
    package let overlayLimit: Int
    package let isBridge: Bool
    package private(set) var syncedSequence: Int
    /// Set once the books changed since `syncedSequence` were found to be more than the overlay
    /// has room for. They only grow (a changed row stays changed), so an outgrown index never
    /// catches up again: it is not read for a catch-up any more, and waits for its replacement.
    package private(set) var isOutgrown = false
    private var hidden: Bitmap?
    private var hiddenCount = 0
    /// The ids of the changed books, and the books in result order (title key, id).
    private var overlay: Set<Int> = []
    private var ordered: [OverlayBook] = []
    /// The overlay books the last few queries matched, as places in `ordered`: a query that
    /// narrows one of them ("the se" after "the s") judges only those. Dropped when the overlay
    /// changes.
    private var recentOverlayMatches: [(words: [QueryWord], places: [Int32])] = []
    /// The base matches of the last query and the words it compiled to. Typing out the rest of
    /// a rare word compiles to the same words at every key ("murak" ... "murakami": one token of
    /// the base's), and the same words have the same base matches until a change hides a base
    /// book. Dropped when the overlay changes.
    private var lastBaseMatches: (words: [SearchIndexBase.CompiledWord], matches: SearchIndexBase.Matches)?

    package init(base: SearchIndexBase, isBridge: Bool = false) {
        self.base = base
        self.isBridge = isBridge
        overlayLimit = isBridge ? Self.bridgeLimit(bookCount: base.count) : Self.overlayLimit(bookCount: base.count)
        syncedSequence = base.sequence
    }

    package var count: Int { base.count }
    package var overlayCount: Int { overlay.count }
    /// Catching up is cheap (one binary search per changed book); what a large overlay costs
    /// is judging its books at every search, a fraction of a microsecond each once the bytes
    /// rule most out. 10,000 edits stay in place at a million books and beyond.
    package static func overlayLimit(bookCount: Int) -> Int {
        SearchTuning.overlayLeastBooks + bookCount / SearchTuning.overlayBooksPerChange
    }
    /// A stale stored index is still worth bridging a rebuild with while catching up costs less
    /// than a scan of the books table: a few hundred milliseconds, once.
    package static func bridgeLimit(bookCount: Int) -> Int {
        SearchTuning.bridgeOverlayFactor * overlayLimit(bookCount: bookCount)
    }

    fileprivate struct OverlayBook: Sendable {
        package let id: Int
        /// The key's first eight bytes as one number, in the same order: most comparisons of a
        /// sort are settled by it without reading the keys.
        package let keyPrefix: UInt64
        package let starts: TokenStarts
        /// A one-letter query's whole answer for this book (`LetterPlaces`).
        package let letters: LetterPlaces
        /// The title key, title terms, author terms and other terms, one after another: one
        /// allocation a book, not four (a bridge may hold hundreds of thousands of books).
        private let texts: [UInt8]
        private let keyEnd: UInt32
        private let titleEnd: UInt32
        private let authorEnd: UInt32

        package init(
            id: Int, key: UnsafeBufferPointer<UInt8>, titleTerms: UnsafeBufferPointer<UInt8>,
            authorTerms: UnsafeBufferPointer<UInt8>, otherTerms: UnsafeBufferPointer<UInt8>
        ) {
            self.id = id
            keyPrefix = ByteOrder.prefix(key)
            starts = TokenStarts(title: titleTerms, author: authorTerms, other: otherTerms)
            letters = LetterPlaces(title: titleTerms, author: authorTerms, other: otherTerms)
            var texts: [UInt8] = []
            texts.reserveCapacity(key.count + titleTerms.count + authorTerms.count + otherTerms.count)
            texts += key
            texts += titleTerms
            texts += authorTerms
            texts += otherTerms
            self.texts = texts
            keyEnd = UInt32(key.count)
            titleEnd = UInt32(key.count + titleTerms.count)
            authorEnd = UInt32(key.count + titleTerms.count + authorTerms.count)
        }

        /// The title key, title terms, author terms and other terms.
        package func withTexts<Result>(
            _ body: (
                _ key: UnsafeBufferPointer<UInt8>, _ title: UnsafeBufferPointer<UInt8>,
                _ author: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>
            ) throws -> Result
        ) rethrows -> Result {
            try texts.withUnsafeBufferPointer { all in
                try body(
                    UnsafeBufferPointer(rebasing: all[..<Int(keyEnd)]),
                    UnsafeBufferPointer(rebasing: all[Int(keyEnd)..<Int(titleEnd)]),
                    UnsafeBufferPointer(rebasing: all[Int(titleEnd)..<Int(authorEnd)]),
                    UnsafeBufferPointer(rebasing: all[Int(authorEnd)...]))
            }
        }

        /// Whether the title key sorts before `bound`.
        package func keyPrecedes(_ bound: [UInt8]) -> Bool {
            withTexts { key, _, _, _ in bound.withUnsafeBufferPointer { ByteOrder.compare(key, $0) < 0 } }
        }

        /// Result order among books of one rank: title key bytes, then id.
        package func sortsBefore(key otherKey: UnsafeBufferPointer<UInt8>, id otherID: Int) -> Bool {
            withTexts { key, _, _, _ in ByteOrder.precedes(key, id, otherKey, otherID) }
        }

        package func sortsBefore(_ other: OverlayBook) -> Bool {
            keyPrefix != other.keyPrefix
                ? keyPrefix < other.keyPrefix
                : other.withTexts { key, _, _, _ in sortsBefore(key: key, id: other.id) }
        }
    }

    /// `books` in result order. Positions are sorted rather than the books, and most
    /// comparisons read only the key prefixes: handing books to a comparison retains their
    /// arrays, which made sorting many changed books several times slower (`keys --cold`, stale).
    private static func inResultOrder(_ books: [OverlayBook]) -> [OverlayBook] {
        let prefixes = books.map(\.keyPrefix)
        let order = prefixes.withUnsafeBufferPointer { prefixes in
            (0..<books.count).sorted { a, b in
                prefixes[a] != prefixes[b] ? prefixes[a] < prefixes[b] : books[a].sortsBefore(books[b])
            }
        }
        return order.map { books[$0] }
    }

    // MARK: Catching up

    /// Replays rows of `scope` committed after the last sync (by anyone) into the overlay.
    /// Runs inside the caller's read transaction, at `sequence`. False, with nothing replayed,
    /// when the changed rows are more than the overlay has room for (counting a book changed
    /// again as a new one): the index must then be replaced.
    package func catchUp(from source: any SearchSource, sequence: Int) throws -> Bool {
        guard sequence > syncedSequence else { return true }
        guard !isOutgrown,
            let changes = try Self.changes(
                base: base, since: syncedSequence, room: overlayLimit - overlay.count, from: source,
                sequence: sequence)
        else {
            isOutgrown = true
            return false
        }
        apply(changes)
        return true
    }

    /// Records that a catch-up read elsewhere (`changes`, away from the owner's actor) found more
    /// changed books since `since` than the overlay has room for.
    package func outgrow(since: Int) {
        if since == syncedSequence { isOutgrown = true }
    }

    /// What a catch-up reads, and orders, before anything changes: made by `changes` on any
    /// connection and thread, so that the index's owner can go on searching meanwhile (a
    /// stale stored index bridging a rebuild may read hundreds of thousands of rows), and
    /// replayed by `apply` in a moment.
    package struct Changes: Sendable {
        /// The index's `syncedSequence` the rows were read after, and the sequence they reach.
        package let since: Int
        package let sequence: Int
        /// The changed rows, in result order.
        fileprivate let rows: [OverlayBook]
        /// The base ordinal of each changed id (ascending), nil for a book added since the base.
        fileprivate let ordinals: [(id: Int, ordinal: Int?)]
        /// The books removed (`SearchSource.removals`), with their base ordinals as `ordinals`.
        fileprivate var removed: [(id: Int, ordinal: Int?)] = []
    }

    /// How much room the overlay has left; a catch-up of more rows must replace the index.
    package var overlayRoom: Int { overlayLimit - overlay.count }

    /// The books of `source` changed after `since` as of `sequence` (the caller's read), or nil
    /// when there are more than `room`.
    package static func changes(
        base: SearchIndexBase, since: Int, room: Int, from source: any SearchSource, sequence: Int
    ) throws -> Changes? {
        guard room >= 0 else { return nil }
        guard sequence > since else { return Changes(since: since, sequence: since, rows: [], ordinals: []) }
        // The changed rows, once: at most one past the room.
        var rows: [OverlayBook] = []
        try source.changes(since: since, limit: room + 1) { book in
            rows.append(
                OverlayBook(
                    id: book.id, key: book.titleKey, titleTerms: book.titleTerms, authorTerms: book.authorTerms,
                    otherTerms: book.otherTerms))
        }
        guard rows.count <= room else { return nil }
        // A book read as changed is there now: a removal of the same id is an earlier one.
        var removedIDs: [Int] = []
        try source.removals(since: since, limit: room - rows.count + 1) { removedIDs.append($0) }
        guard rows.count + removedIDs.count <= room else { return nil }
        let present = Set(rows.map(\.id))
        removedIDs = removedIDs.filter { !present.contains($0) }.sorted()
        let removedOrdinals = try base.ordinals(ofAscendingIDs: removedIDs)
        let ids = rows.map(\.id).sorted()
        let ordinals = try base.ordinals(ofAscendingIDs: ids)
        for (id, ordinal) in zip(ids, ordinals) where ordinal == nil && id <= base.largestID {
            // Not added since, yet not listed: only if the id order is whole is it truly new.
            try base.checkIDOrder()
        }
        return Changes(
            since: since, sequence: sequence, rows: inResultOrder(rows), ordinals: Array(zip(ids, ordinals)),
            removed: Array(zip(removedIDs, removedOrdinals)))
    }

    /// Replays `changes`, read after this index's `syncedSequence` (else they would miss or
    /// repeat rows: false, and nothing changes).
    @discardableResult
    package func apply(_ changes: Changes) -> Bool {
        guard changes.since == syncedSequence, changes.rows.count + changes.removed.count <= overlayRoom else {
            return false
        }
        // Books changed or removed for the first time since the base: hide their base entries,
        // if they have them (a book removed, then added again under its id, is hidden already).
        for (id, ordinal) in changes.ordinals + changes.removed where !overlay.contains(id) {
            guard let ordinal else { continue }
            hide(ordinal)
        }
        let removed = Set(changes.removed.lazy.map(\.id).filter(overlay.contains))
        var replaced = overlay.isEmpty ? [] : Set(changes.rows.lazy.map(\.id).filter(overlay.contains))
        replaced.formUnion(removed)
        overlay.subtract(removed)
        overlay.reserveCapacity(overlay.count + changes.rows.count)
        for row in changes.rows { overlay.insert(row.id) }
        ordered = Self.merged(replaced.isEmpty ? ordered : ordered.filter { !replaced.contains($0.id) }, changes.rows)
        if !changes.rows.isEmpty || !changes.removed.isEmpty {
            recentOverlayMatches.removeAll()
            lastBaseMatches = nil
        }
        syncedSequence = changes.sequence
        return true
    }

    /// Hides a base book: changed since (the overlay holds it now) or removed.
    private func hide(_ ordinal: Int) {
        if hidden == nil { hidden = Bitmap(count: base.count) }
        guard !hidden!.contains(ordinal) else { return }
        hidden!.insert(ordinal)
        hiddenCount += 1
    }

    /// Two runs of books in result order, as one.
    private static func merged(_ first: [OverlayBook], _ second: [OverlayBook]) -> [OverlayBook] {
        guard !first.isEmpty else { return second }
        guard !second.isEmpty else { return first }
        var result: [OverlayBook] = []
        result.reserveCapacity(first.count + second.count)
        var (i, j) = (0, 0)
        while i < first.count, j < second.count {
            if first[i].sortsBefore(second[j]) {
                result.append(first[i]); i += 1
            } else {
                result.append(second[j]); j += 1
            }
        }
        result += first[i...]
        result += second[j...]
        return result
    }

    // MARK: Searching

    /// The title key of the book with an id, as the catalog stores it now; nil when the
    /// scope has no such book. Only asked for base books that no change has hidden, whose
    /// keys are the ones the base was built with.
    package typealias TitleKeyLookup = (_ id: Int) throws -> [UInt8]?

    /// How far a search counts: past `SearchPage.exactCountLimit` and past the page, by one.
    /// A larger total is reported as this, which the page shows as "at least" all the same
    /// (`TotalCount`), so counting can stop there.
    package static func countLimit(offset: Int, limit: Int) -> Int {
        max(SearchPage.exactCountLimit, offset + limit) + 1
    }

    /// The ids of the matches at `offset..<offset+limit` in result order, and the total, up
    /// to `countLimit`. `keepingBroadAnswers`: a broad word's places or a broad prefix's answer
    /// is worked out whole and kept for the searches to come (`SearchEngine.keepsBroadAnswers`).
    /// Throws `SearchIndexDamage` when a part of a stored index it reads fails its checks,
    /// and what `titleKey` throws.
    package func search(
        _ terms: SearchTerms, offset: Int, limit: Int, titleKey: TitleKeyLookup, keepingBroadAnswers: Bool = true
    ) throws -> (ids: [Int], total: Int) {
        guard !terms.hasNoSearchableWords else { return ([], 0) }
        let wanted = offset + limit
        var matches = SearchIndexBase.Matches(cap: wanted, countLimit: Self.countLimit(offset: offset, limit: limit))
        var overlayMatches: [[Int32]] = Array(repeating: [], count: BookRank.count)
        if terms.isEmpty {
            collectAll(into: &matches)
            overlayMatches[0] = Array(0..<Int32(ordered.count))
        } else {
            if let words = base.compile(terms) {
                if let last = lastBaseMatches, last.words == words, last.matches.cap == matches.cap,
                    last.matches.countLimit == matches.countLimit
                {
                    matches = last.matches
                } else if keepingBroadAnswers, terms.words.count == 1, terms.words[0].count == 1,
                    let kept = try base.broadPrefixes.matches(for: terms.words[0][0], words: words, in: base),
                    let narrowed = BroadPrefixResults.narrowed(
                        kept, hidden: hidden, hiddenCount: hiddenCount, wanted: wanted,
                        countLimit: Self.countLimit(offset: offset, limit: limit))
                {
                    matches = narrowed
                } else {
                    try base.collect(words, hidden: hidden, into: &matches, keepingBroadAnswers: keepingBroadAnswers)
                }
                lastBaseMatches = (words, matches)
            }
            let words = terms.words.map(QueryWord.init)
            // A one-letter query reads only its books' letters, and judges them all: what it
            // keeps is what a later key narrows when the base does not settle that key's page
            // ("mur", "tol": then only the changed books "m" or "t" matched are judged).
            if QueryWord.oneLetter(words) == nil,
                matches.counts.reduce(0, +) >= Self.countLimit(offset: offset, limit: limit),
                let ranges = try keyRangesHoldingThePage(words, matches, wanted: wanted, titleKey: titleKey)
            {
                overlayMatches =
                    [firstRankInOverlay(words, keyRanges: ranges)]
                    + Array(repeating: [], count: BookRank.count - 1)
            } else {
                overlayMatches = matchesInOverlay(words)
            }
        }
        var result: [Int] = []
        var position = 0
        for rank in 0..<BookRank.count where position < wanted {
            let rankEnd = position + matches.counts[rank] + overlayMatches[rank].count
            if rankEnd <= offset { position = rankEnd; continue }
            var merge = RankMerge(
                base: base, listed: matches.ordinals[rank], overlay: ordered, extra: overlayMatches[rank])
            while position < wanted && position < rankEnd {
                let id = try merge.next(titleKey: titleKey)
                if position >= offset { result.append(id) }
                position += 1
            }
            position = rankEnd
        }
        let total = matches.counts.reduce(0, +) + overlayMatches.reduce(0) { $0 + $1.count }
        return (result, min(total, Self.countLimit(offset: offset, limit: limit)))
    }

    /// The overlay's books that `words` match, by rank, in result order, as places in `ordered`:
    /// among those an earlier query matched when the words narrow it
    /// (`QueryWord.narrows`), else among all.
    /// Each is judged by the row matcher (`RowJudge`), as the books table's rows are, straight on its
    /// bytes: a bridge may hold hundreds of thousands of changed books, and a key typed over a
    /// stale index judges them all (cutting each book's text into a token list first made "an"
    /// several times slower). A book is read in place, never copied: a copy retains its texts,
    /// a wait for memory a book. Bench: `keys --count 10000000 --cold` (stale).
    private func matchesInOverlay(_ words: [QueryWord]) -> [[Int32]] {
        let earlier = recentOverlayMatches.filter { QueryWord.narrows(words, $0.words) }.min {
            $0.places.count < $1.places.count
        }
        var matches: [[Int32]] = Array(repeating: [], count: BookRank.count)
        // All of them in `ordered`'s order, what the next query narrows: a book may rank lower
        // in it, and its place must stay in result order among those of its new rank.
        var places: [Int32] = []
        let oneLetter = QueryWord.oneLetter(words)
        let required = TokenStarts(requiredByAll: words)
        var judge = RowJudge(words: words, wanted: 0, recordingUpTo: nil)
        ordered.withUnsafeBufferPointer { books in
            func offer(_ place: Int32) {
                let rank: Int?
                if let oneLetter {
                    // The first key of every word, and the broadest query: no book's text is read.
                    rank = books[Int(place)].letters.rank(ofLetter: oneLetter)
                } else if books[Int(place)].starts.admits(required) {
                    rank = books[Int(place)].withTexts { _, title, author, other in
                        judge.rank(title: title, author: author, other: other)
                    }
                } else {
                    rank = nil
                }
                guard let rank else { return }
                matches[rank].append(place)
                places.append(place)
            }
            if let earlier {
                for place in earlier.places { offer(place) }
            } else {
                for place in 0..<Int32(books.count) { offer(place) }
            }
        }
        // The same query again (a page after the first) replaces its entry.
        recentOverlayMatches.removeAll { QueryWord.narrows(words, $0.words) && QueryWord.narrows($0.words, words) }
        recentOverlayMatches.append((words, places))
        if recentOverlayMatches.count > SearchTuning.recentOverlayQueries { recentOverlayMatches.removeFirst() }
        return matches
    }

    /// The keys where every book on the page must be (`TitleOrderPage.keyRanges`), when the
    /// base's first rank fills the page with keys among them: then an overlay book elsewhere,
    /// or of a lower rank, comes after the page. Nil otherwise.
    private func keyRangesHoldingThePage(
        _ words: [QueryWord], _ matches: SearchIndexBase.Matches, wanted: Int,
        titleKey: TitleKeyLookup
    ) throws -> [KeyRange]? {
        guard wanted > 0, matches.ordinals[0].count >= wanted, let first = words.first,
            let ranges = TitleOrderPage.keyRanges(firstToken: first.exact.first ?? first.prefixBytes),
            let last = ranges.last
        else { return nil }
        // The base's last book on the page must be below the keys beginning with the word's
        // first character: a base book whose key begins with punctuation above it ("«Hymn»"
        // for "h") may be on the page, and so may a changed book before it ("¡Hola!").
        let id = try base.id(Int(matches.ordinals[0][wanted - 1]))
        guard let key = try titleKey(id), key.lexicographicallyPrecedes(Array(last.upTo.utf8)) else { return nil }
        return ranges
    }

    /// The overlay's books that `words` rank first, as places in `ordered`, for a query whose
    /// page and total the base settles alone: it has more matches than are counted, and its
    /// first rank fills the page (`keyRangesHoldingThePage`). Then no other overlay book can be
    /// on the page, and these only among the keys `keyRanges` bounds: a binary search finds
    /// each range among the keys `ordered` is sorted by, and only the books there are judged
    /// ("th" over a stale index at ten million books judged about 100,000 changed books' texts;
    /// those whose titles begin with "th" or with punctuation are a few thousand). They are not
    /// kept for a narrower query: they are not all the matches.
    private func firstRankInOverlay(_ words: [QueryWord], keyRanges: [KeyRange]) -> [Int32] {
        var judge = RowJudge(words: words, wanted: 0, recordingUpTo: nil)
        let required = TokenStarts(requiredByAll: words)
        var places: [Int32] = []
        ordered.withUnsafeBufferPointer { books in
            for range in keyRanges {
                let (from, upTo) = (Array(range.from.utf8), Array(range.upTo.utf8))
                // The first book whose key is not below the range.
                var low = 0, high = books.count
                while low < high {
                    let middle = (low + high) / 2
                    if books[middle].keyPrecedes(from) { low = middle + 1 } else { high = middle }
                }
                var place = low
                while place < books.count, books[place].keyPrecedes(upTo) {
                    if books[place].starts.admits(required),
                        books[place].withTexts({ _, title, author, other in
                            judge.rank(title: title, author: author, other: other)
                        }) == 0
                    {
                        places.append(Int32(place))
                    }
                    place += 1
                }
            }
        }
        return places
    }

    /// One rank's base matches (ordinals, in result order) and overlay matches (sorted by title
    /// key and id), merged into result order. Each overlay book the merge reaches is placed
    /// among the listed base books by a binary search over their keys, so a deep page reads a
    /// few keys per overlay book rather than one per base book before it.
    private struct RankMerge {
        package let base: SearchIndexBase
        package let listed: [Int32]
        package let overlay: [OverlayBook]
        /// Places in `overlay`.
        package let extra: [Int32]
        package var nextBase = 0
        package var nextExtra = 0
        /// Where `extra[nextExtra]` goes: before `listed[place]` (or after them all).
        package var place: Int?

        package init(base: SearchIndexBase, listed: [Int32], overlay: [OverlayBook], extra: [Int32]) {
            self.base = base
            self.listed = listed
            self.overlay = overlay
            self.extra = extra
        }

        /// The id of the next book in result order.
        package mutating func next(titleKey: TitleKeyLookup) throws -> Int {
            if nextExtra < extra.count {
                let candidate = overlay[Int(extra[nextExtra])]
                if place == nil { place = try self.place(candidate, titleKey: titleKey) }
                if place == nextBase {
                    nextExtra += 1
                    place = nil
                    return candidate.id
                }
            }
            let id = try base.id(Int(listed[nextBase]))
            nextBase += 1
            return id
        }

        /// The first listed base book from `nextBase` on that `book` sorts before.
        private func place(_ book: OverlayBook, titleKey: TitleKeyLookup) throws -> Int {
            var low = nextBase, high = listed.count
            while low < high {
                let middle = (low + high) / 2
                let id = try base.id(Int(listed[middle]))
                guard let key = try titleKey(id) else {
                    throw SearchIndexDamage("the index names book \(id), which this scope does not have")
                }
                if key.withUnsafeBufferPointer({ book.sortsBefore(key: $0, id: id) }) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            return low
        }
    }

    /// The empty query: every base book not hidden, in order; only the first `cap` are listed.
    private func collectAll(into matches: inout SearchIndexBase.Matches) {
        matches.counts[0] = base.count - hiddenCount
        guard let hidden else {
            matches.ordinals[0] = (0..<Int32(min(base.count, matches.cap))).map { $0 }
            return
        }
        var listed: [Int32] = []
        listed.reserveCapacity(min(matches.counts[0], matches.cap))
        for (slot, word) in hidden.words.enumerated() where listed.count < matches.cap {
            var free = ~word
            while free != 0 && listed.count < matches.cap {
                let ordinal = slot << 6 | free.trailingZeroBitCount
                guard ordinal < base.count else { break }
                listed.append(Int32(ordinal))
                free &= free - 1
            }
        }
        matches.ordinals[0] = listed
    }
}
