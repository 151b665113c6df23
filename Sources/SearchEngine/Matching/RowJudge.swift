/// The row matcher every search path uses: it judges rows one at a time on their stored terms
/// (`SearchTerms.rank`'s rules, as `SearchIndexBase` judges a book through its postings), keeps
/// the best of each rank, counts them all, and, for a scan of the books table, records the
/// matching rows for `RecentScans` until they pass its budget.
///
/// Its callers: the scan of the books table and of its copy (`BooksTableSearch`), a kept scan's
/// rows (`RecentScans`, `LeadingMatches`, `MatchOrder`), the title order (`TitleOrderPage`) and
/// the books changed since an index's base (`SearchIndex`'s overlay). Each only decides which
/// rows are offered; what matches, its rank and its place come from here, so every path answers
/// alike.
/// Why not `SearchTerms` itself: it judges the stored terms, already folded and tokenised, as bytes, where `SearchTerms`
/// folds and splits each book's `String` again at every search (speed, not measured against it;
/// docs/design/search-index.md). The differential tests and `SearchDifferential` hold them equal.
package struct RowJudge {
    package let words: [QueryWord]
    private var ranks: [BestOfRank]
    private let singleTokenWords: Bool
    /// The words' prefixes in one buffer, for `singleTokenWords`.
    private let prefixes: (bytes: [UInt8], ranges: [Range<Int>], ascii: [Bool])
    /// The query's letter number when it is one ASCII letter or digit (`LetterPlaces`).
    package let oneLetter: Int?
    private var tokens = RowTokens()
    /// The table's copy the judged rows come from, if they do.
    package var copy: BooksCopy?
    /// The matching rows, until they would take more than `recordingLimit` bytes.
    package private(set) var matched: ScannedRows?
    /// The first of them in result order, with their texts, when they are recorded.
    package private(set) var leading: LeadingMatches?
    private let recordingLimit: Int

    /// - Parameters:
    ///   - recordingUpTo: how many bytes the matching rows may take; nil records none.
    ///   - keepingWholeMatchesUpTo: recorded matches up to this many are all kept in order (`LeadingMatches`).
    package init(
        words: [QueryWord], wanted: Int, recordingUpTo limit: Int?, keepingWholeMatchesUpTo wholeLimit: Int = 0
    ) {
        self.words = words
        singleTokenWords = words.allSatisfy(\.exact.isEmpty)
        var bytes: [UInt8] = []
        prefixes.ranges = words.map { word in
            bytes += word.prefixBytes
            return bytes.count - word.prefixBytes.count..<bytes.count
        }
        prefixes.bytes = bytes
        prefixes.ascii = words.map(\.asciiPrefix)
        oneLetter = QueryWord.oneLetter(words)
        ranks = Array(repeating: BestOfRank(wanted: wanted), count: BookRank.count)
        matched = limit == nil ? nil : ScannedRows(matching: words)
        leading = limit == nil ? nil : LeadingMatches(keepingWholeUpTo: wholeLimit)
        recordingLimit = limit ?? 0
    }

    /// - Parameter copiedAt: where the row is in `copy`, if it is: a match is recorded by its place.
    package mutating func offer(
        id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
        author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>, copiedAt place: BooksCopy.Place? = nil
    ) {
        guard let rank = rank(title: title, author: author, other: other) else { return }
        let prefix = ByteOrder.prefix(key)
        ranks[rank].offer(id: id, prefix: prefix) { key }
        leading?.offer(rank: rank, id: id, prefix: prefix, key: { key }, texts: { (title, author, other) })
        if let place {
            recordCopied(at: place, rank: rank, keyPrefix: prefix) { (title, author, other) }
        } else {
            matched?.append(id: id, key: key, title: title, author: author, other: other)
            dropRecordingOverLimit()
        }
    }

    /// A row of `copy` that a one-letter query matches, judged on its summary
    /// (`BooksCopy.forEach(matchingLetter:)`).
    package mutating func offer(
        id: Int, copiedAt place: BooksCopy.Place, rank: Int, keyPrefix: UInt64,
        texts: () -> BooksCopy.Texts
    ) {
        ranks[rank].offer(id: id, prefix: keyPrefix) { texts().key }
        leading?.offer(
            rank: rank, id: id, prefix: keyPrefix, key: { texts().key },
            texts: {
                let (_, title, author, other) = texts()
                return (title, author, other)
            })
        recordCopied(at: place, rank: rank, keyPrefix: keyPrefix) {
            let (_, title, author, other) = texts()
            return (title, author, other)
        }
    }

    /// `texts`: the row's terms, read for its mask (`FollowingBytes`) while rows are recorded.
    private mutating func recordCopied(
        at place: BooksCopy.Place, rank: Int, keyPrefix: UInt64,
        texts: () -> (
            title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
        )
    ) {
        guard let copy else { preconditionFailure("a place with no copy") }
        guard let following = matched?.following else { return }
        let (title, author, other) = texts()
        matched?.append(
            in: copy, at: place, mask: following.mask(title: title, author: author, other: other), rank: rank,
            keyPrefix: keyPrefix)
        dropRecordingOverLimit()
    }

    /// Past the limit, the rows' order goes first (`MatchOrder`), then the rows.
    private mutating func dropRecordingOverLimit() {
        guard let size = matched?.byteCount, size > recordingLimit else { return }
        if matched?.order != nil {
            matched?.dropOrder()
            if let size = matched?.byteCount, size <= recordingLimit { return }
        }
        matched = nil
        leading = nil
    }

    /// The query's rank of a book with these title, author and other terms (`BookRank`), or nil
    /// when it does not match.
    package mutating func rank(
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) -> Int? {
        if singleTokenWords {
            // Straight on the bytes, with no token list and no copy of a word (which would
            // retain its arrays): the usual query, judged millions of times.
            return prefixes.bytes.withUnsafeBufferPointer { bytes in
                prefixes.ranges.withUnsafeBufferPointer { ranges in
                    prefixes.ascii.withUnsafeBufferPointer { ascii in
                        BookRank.rank(words: ranges.count) { word, field in
                            QueryWord.firstPlace(
                                of: UnsafeBufferPointer(rebasing: bytes[ranges[word]]), asciiPrefix: ascii[word],
                                in: field == .title ? title : field == .author ? author : other
                            ) { words[word].isCharacterPrefix(of: $0) }
                        }
                    }
                }
            }
        }
        guard words.allSatisfy({ $0.mayMatch(title: title, author: author, other: other) }) else { return nil }
        tokens.read(title: title, author: author, other: other)
        return tokens.rank(words)
    }

    /// How many matches ranked first (the title begins with the first word).
    package var firstRankCount: Int { ranks[0].count }

    package func answer(offset: Int, limit: Int) -> (ids: [Int], total: Int) {
        let ordered = ranks.flatMap { $0.sorted().map(\.id) }
        let total = min(ranks.reduce(0) { $0 + $1.count }, SearchIndex.countLimit(offset: offset, limit: limit))
        return (Array(ordered.dropFirst(offset).prefix(limit)), total)
    }
}

/// One row's title, author and other tokens (views into the statement's current row; the other
/// fields' separators included), for the words of several tokens, which `RowJudge` cannot judge
/// straight on the bytes.
/// Why not `SearchTerms` itself: as `RowJudge`, the stored terms as bytes, never a `String` per book.
package struct RowTokens {
    package var all: [UnsafeBufferPointer<UInt8>] = []
    package var titleCount = 0
    package var authorCount = 0

    package mutating func read(
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) {
        all.removeAll(keepingCapacity: true)
        TokenTable.forEachToken(title) { all.append($0) }
        titleCount = all.count
        TokenTable.forEachToken(author) { all.append($0) }
        authorCount = all.count - titleCount
        TokenTable.forEachToken(other) { all.append($0) }
    }

    /// The rank `SearchTerms.rank` gives, or nil when some word matches nowhere.
    package func rank(_ words: [QueryWord]) -> Int? {
        BookRank.rank(
            words: words.count, titleCount: titleCount, authorCount: authorCount, tokenCount: all.count,
            length: { words[$0].exact.count + 1 },
            matches: { words[$0].matches(all[$1..<$1 + words[$0].exact.count + 1]) })
    }
}

/// The first `wanted` of one rank's matches in (title_key bytes, id) order, and how many there
/// were: `RowJudge` keeps one per rank.
package struct BestOfRank {
    package let wanted: Int
    package private(set) var count = 0
    private var kept: [(key: [UInt8], id: Int)] = []
    /// Once `kept` was trimmed, anything not before this entry can never be among the first
    /// `wanted`; its key's first eight bytes (`ByteOrder.prefix`) settle most comparisons.
    /// (Not optional: binding it for every offer would retain its key each time.)
    private var isTrimmed = false
    private var worst: (key: [UInt8], id: Int) = ([], .max)
    private var worstPrefix = UInt64.max

    package init(wanted: Int) { self.wanted = wanted }

    /// - Parameters:
    ///   - prefix: the key's first eight bytes (`ByteOrder.prefix`).
    ///   - key: the whole key, asked only when the prefix does not settle it.
    package mutating func offer(id: Int, prefix: UInt64, key: () -> UnsafeBufferPointer<UInt8>) {
        count += 1
        guard wanted > 0 else { return }
        if isTrimmed {
            // Most offers of a broad query come after the kept ones and end here.
            if prefix > worstPrefix { return }
            if prefix == worstPrefix,
                !worst.key.withUnsafeBufferPointer({ ByteOrder.precedes(key(), id, $0, worst.id) })
            {
                return
            }
        }
        kept.append((Array(key()), id))
        if kept.count >= 2 * wanted + SearchTuning.bestOfRankSlack { trim() }
    }

    package func sorted() -> [(key: [UInt8], id: Int)] {
        Array(kept.sorted { ByteOrder.precedes($0.key, $0.id, $1.key, $1.id) }.prefix(wanted))
    }

    private mutating func trim() {
        kept = sorted()
        isTrimmed = true
        worst = kept.last!
        worstPrefix = worst.key.withUnsafeBufferPointer(ByteOrder.prefix)
    }
}
