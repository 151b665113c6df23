import BookCatalog

/// Answers a search from the books table itself, for while the search index is being built
/// or caught up: the same matches, in the same order, with the same exact total as
/// `SearchIndex`, so switching to the index changes nothing but speed.
///
/// SQLite reads the table in file order (sequential; the scope index would read it in title
/// order, one random page per row, ten times slower) and narrows the rows to those holding the
/// longest token of every query word somewhere in their derived terms (`instr`, a superset);
/// each remaining row is then judged on its tokens exactly as `SearchIndexBase` judges a book
/// (`SearchTerms.rank`'s rules), and ordered by rank, `title_key` bytes, then id, as the index
/// orders its ordinals. Only the best `offset + limit` rows of each rank are kept, so memory
/// stays small for broad queries. Query text only ever reaches SQL as bound values.
///
/// For the remote that waits for its index (`recent`), the table is read once: a query that
/// narrows an earlier one is judged on that scan's matching rows (`RecentScans`), or for a page
/// alone on their first matches (`LeadingMatches`), and any other on the table's copy that the
/// first scans make (`BooksCopy`), each with the rows changed since.
struct UnindexedSearch {
    let connection: Connection
    let scope: String
    /// Earlier scans' rows, to answer a narrower query from (`RecentScans`), and the catalog's
    /// latest `change_seq` in this read transaction. A word query's matches are kept there too.
    var recent: (scans: RecentScans, sequence: Int)? = nil

    /// `source`: the books table, or with `recent`, an earlier scan's matches or the table's copy.
    typealias Found = (ids: [Int], total: Int, source: SearchAnswerSource)

    func search(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found {
        guard !terms.hasNoSearchableWords else { return ([], 0, .booksTable) }
        if terms.isEmpty {
            // Counting stops where the page would say "at least" anyway.
            let countLimit = SearchIndex.countLimit(offset: offset, limit: limit)
            let total = try connection.queryFirst(
                "SELECT count(*) FROM (SELECT 1 FROM books WHERE scope = ?1 LIMIT ?2)", [.text(scope), .int(countLimit)]) { $0.int(0) } ?? 0
            let ids = try connection.query(
                "SELECT id FROM books WHERE scope = ?1 ORDER BY title_key, id LIMIT ?2 OFFSET ?3",
                [.text(scope), .int(limit), .int(offset)]) { $0.int(0) }
            // Both read the same snapshot: a page shorter than the count leaves room for is damage.
            // (The count goes past offset + limit, so the page is always within it.)
            guard ids.count == min(limit, max(total - offset, 0)) else { throw CatalogDamage("the title index lists \(offset + ids.count) books of \(total) counted") }
            return (ids, total, .booksTable)
        }
        let words = terms.words.map(Word.init)
        guard let (scans, sequence) = recent else {
            var judge = Judge(words: words, wanted: offset + limit, recordingUpTo: nil)
            try cancellableScan(words, into: &judge)
            let (ids, total) = judge.answer(offset: offset, limit: limit)
            return (ids, total, .booksTable)
        }
        let earlier = try scans.narrowest(holdingMatchesOf: words, at: sequence).flatMap { scan in
            scans.copyIsQuicker(than: scan) ? nil : try changedRows(since: scan.sequence).map { (scan, $0) }
        }
        // The kept scans cannot answer a query none of them narrows: their room goes to its matches.
        if earlier == nil { scans.removeKeptScans() }
        // What the new matches may take: the kept rows and these stay within the budget together.
        var judge = Judge(words: words, wanted: offset + limit, recordingUpTo: RecentScans.byteBudget - scans.byteCount,
                          keepingWholeMatchesUpTo: scans.wholeMatchesLimit)
        let source: SearchAnswerSource
        if let (scan, changed) = earlier {
            let changedIDs = Set(changed.ids)
            judge.copy = scan.rows.copy
            try scan.rows.forEach(mayMatch: words) { id, key, title, author, place in
                if changedIDs.isEmpty || !changedIDs.contains(id) { judge.offer(id: id, key: key, title: title, author: author, copiedAt: place) }
            }
            try changed.forEach { id, key, title, author, _ in judge.offer(id: id, key: key, title: title, author: author) }
            source = .earlierScan
        } else if let copied = try copiedRows(into: &judge, scans: scans, sequence: sequence) {
            source = copied
        } else {
            try cancellableScan(words, into: &judge)
            source = .booksTable
        }
        if var matched = judge.matched {
            let leading = judge.leading?.ordered ?? FirstMatches()
            // A narrower query's page is among the first matches when they are all of them;
            // otherwise it is found by walking all of them in result order (`MatchOrder`).
            if leading.isWhole { matched.dropOrder() } else { matched.sortOrder() }
            scans.keep(RecentScans.Scan(words: words, sequence: sequence, rows: matched, leading: leading))
        }
        let (ids, total) = judge.answer(offset: offset, limit: limit)
        return (ids, total, source)
    }

    /// The page alone, its count to follow, from the first matches of a kept scan the query
    /// narrows, when they hold it (`LeadingMatches`), with the matches seen as the total; nil
    /// otherwise. A scan of no more rows than a scan's first matches are (1,024) is left to
    /// `search`, as quick, and counted.
    func pageFromFirstMatches(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found? {
        try page(narrowing: terms, offset: offset, limit: limit, source: .leadingMatches) { scan, changed, judge in
            try LeadingMatches.page(among: scan.leading, changed: changed, judge: &judge, offset: offset, limit: limit)
        }
    }

    /// The same from all the matches of that scan, walked in result order (`MatchOrder`), when
    /// they are in order. Asked after the title order (`TitleOrderPage`): the walk passes over
    /// rows on their token starts, which tell little of a query whose words are a letter or
    /// two ("mu" after "m" judged every title beginning "ma" to "mo" at a million books, 19 ms).
    func pageFromOrderedMatches(_ terms: SearchTerms, offset: Int, limit: Int) throws -> Found? {
        try page(narrowing: terms, offset: offset, limit: limit, source: .orderedMatches) { scan, changed, judge in
            try MatchOrder.page(of: scan.rows, changed: changed, judge: &judge, offset: offset, limit: limit)
        }
    }

    /// The page `find` finds among the kept scan the query narrows, as it is now.
    private func page(narrowing terms: SearchTerms, offset: Int, limit: Int, source: SearchAnswerSource,
                      find: (RecentScans.Scan, _ changed: ScannedRows, inout Judge) throws -> (ids: [Int], seen: Int)?) throws -> Found? {
        guard !terms.isEmpty, !terms.hasNoSearchableWords, let (scans, sequence) = recent else { return nil }
        let words = terms.words.map(Word.init)
        guard let scan = scans.narrowest(holdingMatchesOf: words, at: sequence),
              scan.rows.count > min(scan.leading.count, LeadingMatches.capacity),
              let changed = try changedRows(since: scan.sequence)
        else { return nil }
        var judge = Judge(words: words, wanted: offset + limit, recordingUpTo: nil)
        guard let (ids, seen) = try find(scan, changed, &judge) else { return nil }
        return (ids, seen, source)
    }

    /// Whether the query narrows a kept scan of at most `count` rows: judging them all, and
    /// counting, is then as quick as any way to the page alone.
    func narrowsAKeptScan(ofAtMost count: Int, _ terms: SearchTerms) -> Bool {
        guard !terms.isEmpty, !terms.hasNoSearchableWords, let (scans, sequence) = recent else { return false }
        return scans.narrowest(holdingMatchesOf: terms.words.map(Word.init), at: sequence).map { $0.rows.count <= count } ?? false
    }

    /// Judges every row from the copy of the table (`BooksCopy`), reading from the table only
    /// what is not copied yet (and copying it). `.booksCopy` when the copy was whole already,
    /// `.booksTable` when the table was read; nil when there is no copy to be had.
    private func copiedRows(into judge: inout Judge, scans: RecentScans, sequence: Int) throws -> SearchAnswerSource? {
        var changed: ScannedRows?
        if let copy = scans.copy, copy.sequence <= sequence { changed = try changedRows(since: copy.sequence) }
        if changed == nil {
            // None yet, or too far behind to catch up: a new one, read from the start.
            scans.copy = BooksCopy(sequence: sequence, memory: scans.memory)
            changed = ScannedRows()
        }
        guard let copy = scans.copy, let changed else { return nil }
        // Rows changed since the copy began are judged as they are now, never from the copy.
        let changedIDs = Set(changed.ids)
        judge.copy = copy
        if let letter = judge.oneLetter {
            try copy.forEach(matchingLetter: letter) { id, place, rank, keyPrefix, texts in
                if changedIDs.isEmpty || !changedIDs.contains(id) { judge.offer(id: id, copiedAt: place, rank: rank, keyPrefix: keyPrefix, texts: texts) }
            }
        } else {
            try copy.forEach(admitting: TokenStarts(requiredByAll: judge.words)) { id, place, key, title, author in
                if changedIDs.isEmpty || !changedIDs.contains(id) { judge.offer(id: id, key: key, title: title, author: author, copiedAt: place) }
            }
        }
        // Of the rest, those the copy holds are judged now; a whole copy holds every row (added
        // ones too, though not in it), an unfinished one reads those after it from the table.
        let copiedUpTo = copy.isComplete ? Int.max : copy.lastID ?? Int.min
        try changed.forEach { id, key, title, author, _ in
            if id <= copiedUpTo { judge.offer(id: id, key: key, title: title, author: author) }
        }
        if copy.isComplete { return .booksCopy }
        // The rest of the table, in id order, copied as it is read: a scan cancelled by the
        // next key leaves what it read for the next one.
        try connection.cancellable {
            let statement = try connection.statement(
                "SELECT id, title_key, title_terms, author_terms FROM books NOT INDEXED WHERE scope = ?1 AND id > ?2 ORDER BY id")
            try statement.bind([.text(scope), .int(copiedUpTo)])
            defer { statement.reset() }
            var copying = true
            while try statement.step() {
                let (id, key, title, author) = (statement.int(0), statement.bytes(1), statement.bytes(2), statement.bytes(3))
                let place = copying ? copy.append(id: id, key: key, title: title, author: author) : nil
                if copying && place == nil {
                    // The disk is full: search on without a copy.
                    scans.copy = nil
                    copying = false
                }
                judge.offer(id: id, key: key, title: title, author: author, copiedAt: place)
            }
            if copying { copy.complete() }
        }
        return .booksTable
    }

    /// A scan takes a while (a third of a second at a million books): a search replaced by
    /// the next key stops at once instead of keeping the connection from the next search.
    private func cancellableScan(_ words: [Word], into judge: inout Judge) throws {
        try connection.cancellable { try scanTable(words, into: &judge) }
    }

    /// The most changed rows an earlier scan is brought up to date with; more, and the table is read.
    static let changedRowLimit = 4_096

    /// The scope's rows changed since `sequence`, or nil when there are too many.
    private func changedRows(since sequence: Int) throws -> ScannedRows? {
        let statement = try connection.statement(
            "SELECT id, title_key, title_terms, author_terms FROM books WHERE change_seq > ?1 AND +scope = ?2 LIMIT ?3")
        try statement.bind([.int(sequence), .text(scope), .int(Self.changedRowLimit + 1)])
        defer { statement.reset() }
        var rows = ScannedRows()
        while try statement.step() {
            guard rows.count < Self.changedRowLimit else { return nil }
            rows.append(id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2), author: statement.bytes(3))
        }
        return rows
    }

    /// Reads the table in file order, narrowed in SQL to the rows holding each word's longest token.
    private func scanTable(_ words: [Word], into judge: inout Judge) throws {
        let filters = words.indices.map { "(instr(title_terms, ?\($0 + 2)) OR instr(author_terms, ?\($0 + 2)))" }
        let statement = try connection.statement(
            "SELECT id, title_key, title_terms, author_terms FROM books NOT INDEXED WHERE scope = ?1 AND "
                + filters.joined(separator: " AND "))
        try statement.bind([.text(scope)] + words.map { .text(String(decoding: $0.longestToken, as: UTF8.self)) })
        defer { statement.reset() }
        while try statement.step() {
            judge.offer(id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2), author: statement.bytes(3))
        }
    }

    /// Judges rows one at a time: keeps the best of each rank, counts them all, and records the
    /// matching rows for `RecentScans` until they pass its budget.
    struct Judge {
        let words: [Word]
        private var ranks: [Best]
        private let singleTokenWords: Bool
        /// The words' prefixes in one buffer, for `singleTokenWords`.
        private let prefixes: (bytes: [UInt8], ranges: [Range<Int>], ascii: [Bool])
        /// The query's letter number when it is one ASCII letter or digit (`LetterPlaces`).
        let oneLetter: Int?
        private var tokens = Tokens()
        /// The table's copy the judged rows come from, if they do.
        var copy: BooksCopy?
        /// The matching rows, until they would take more than `recordingLimit` bytes.
        private(set) var matched: ScannedRows?
        /// The first of them in result order, with their texts, when they are recorded.
        private(set) var leading: LeadingMatches?
        private let recordingLimit: Int

        /// - Parameters:
        ///   - recordingUpTo: how many bytes the matching rows may take; nil records none.
        ///   - keepingWholeMatchesUpTo: recorded matches up to this many are all kept in order (`LeadingMatches`).
        init(words: [Word], wanted: Int, recordingUpTo limit: Int?, keepingWholeMatchesUpTo wholeLimit: Int = 0) {
            self.words = words
            singleTokenWords = words.allSatisfy(\.exact.isEmpty)
            var bytes: [UInt8] = []
            prefixes.ranges = words.map { word in
                bytes += word.prefixBytes
                return bytes.count - word.prefixBytes.count..<bytes.count
            }
            prefixes.bytes = bytes
            prefixes.ascii = words.map(\.asciiPrefix)
            oneLetter = Word.oneLetter(words)
            ranks = Array(repeating: Best(wanted: wanted), count: 3)
            matched = limit == nil ? nil : ScannedRows(matching: words)
            leading = limit == nil ? nil : LeadingMatches(keepingWholeUpTo: wholeLimit)
            recordingLimit = limit ?? 0
        }

        /// - Parameter copiedAt: where the row is in `copy`, if it is: a match is recorded by its place.
        mutating func offer(id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>,
                            author: UnsafeBufferPointer<UInt8>, copiedAt place: BooksCopy.Place? = nil) {
            guard let rank = rank(title: title, author: author) else { return }
            let prefix = ByteOrder.prefix(key)
            ranks[rank].offer(id: id, prefix: prefix) { key }
            leading?.offer(rank: rank, id: id, prefix: prefix, key: { key }, texts: { (title, author) })
            if let place {
                recordCopied(at: place, rank: rank, keyPrefix: prefix) { (title, author) }
            } else {
                matched?.append(id: id, key: key, title: title, author: author)
                dropRecordingOverLimit()
            }
        }

        /// A row of `copy` that a one-letter query matches, judged on its summary
        /// (`BooksCopy.forEach(matchingLetter:)`).
        mutating func offer(id: Int, copiedAt place: BooksCopy.Place, rank: Int, keyPrefix: UInt64,
                            texts: () -> BooksCopy.Texts) {
            ranks[rank].offer(id: id, prefix: keyPrefix) { texts().key }
            leading?.offer(rank: rank, id: id, prefix: keyPrefix, key: { texts().key }, texts: { (texts().title, texts().author) })
            recordCopied(at: place, rank: rank, keyPrefix: keyPrefix) {
                let (_, title, author) = texts()
                return (title, author)
            }
        }

        /// `texts`: the row's terms, read for its mask (`FollowingBytes`) while rows are recorded.
        private mutating func recordCopied(at place: BooksCopy.Place, rank: Int, keyPrefix: UInt64,
                                           texts: () -> (title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>)) {
            guard let copy else { preconditionFailure("a place with no copy") }
            guard let following = matched?.following else { return }
            let (title, author) = texts()
            matched?.append(in: copy, at: place, mask: following.mask(title: title, author: author), rank: rank, keyPrefix: keyPrefix)
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

        /// The query's rank of a book with these title and author terms (`BookRank`), or nil when it does not match.
        mutating func rank(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) -> Int? {
            if singleTokenWords {
                // Straight on the bytes, with no token list and no copy of a word (which would
                // retain its arrays): the usual query, judged millions of times.
                return prefixes.bytes.withUnsafeBufferPointer { bytes in
                    prefixes.ranges.withUnsafeBufferPointer { ranges in
                        prefixes.ascii.withUnsafeBufferPointer { ascii in
                            BookRank.rank(words: ranges.count) { word, inTitle in
                                Word.firstPlace(of: UnsafeBufferPointer(rebasing: bytes[ranges[word]]), asciiPrefix: ascii[word],
                                                in: inTitle ? title : author) { words[word].isCharacterPrefix(of: $0) }
                            }
                        }
                    }
                }
            }
            guard words.allSatisfy({ $0.mayMatch(title: title, author: author) }) else { return nil }
            tokens.read(title: title, author: author)
            return tokens.rank(words)
        }

        /// How many matches ranked first (the title begins with the first word).
        var firstRankCount: Int { ranks[0].count }

        func answer(offset: Int, limit: Int) -> (ids: [Int], total: Int) {
            let ordered = ranks.flatMap { $0.sorted().map(\.id) }
            let total = min(ranks.reduce(0) { $0 + $1.count }, SearchIndex.countLimit(offset: offset, limit: limit))
            return (Array(ordered.dropFirst(offset).prefix(limit)), total)
        }
    }

    /// One query word as the index compiles it: exact tokens, then a prefix.
    struct Word {
        let exact: [[UInt8]]
        let prefix: String
        let prefixBytes: [UInt8]
        let asciiPrefix: Bool

        init(_ parts: [String]) {
            let normalized = parts.map(BookText.normalized)
            exact = normalized.dropLast().map { Array($0.utf8) }
            prefix = normalized.last!
            prefixBytes = Array(prefix.utf8)
            asciiPrefix = prefixBytes.allSatisfy { $0 < 0x80 }
        }

        /// Whether every book `words` match is matched by `earlier` too: each earlier word is
        /// matched by the word in its place, its tokens the same and its prefix a prefix of the
        /// next token or prefix ("his" → "hist", "o" → "o'b"), and words may be added after.
        static func narrows(_ words: [Word], _ earlier: [Word]) -> Bool {
            words.count >= earlier.count && zip(words, earlier).allSatisfy { $0.narrows($1) }
        }

        private func narrows(_ earlier: Word) -> Bool {
            guard exact.count >= earlier.exact.count, exact.starts(with: earlier.exact) else { return false }
            let next = exact.count > earlier.exact.count ? exact[earlier.exact.count] : prefixBytes
            return next.starts(with: earlier.prefixBytes) && next.withUnsafeBufferPointer {
                SearchIndexBase.isCharacterPrefix(earlier.prefix, prefixBytes: earlier.prefixBytes, asciiPrefix: earlier.asciiPrefix, of: $0)
            }
        }

        /// The letter number (`LetterPlaces`) of a query that is one ASCII letter or digit, the
        /// first key of every word: `LetterPlaces` alone ranks a book for it.
        static func oneLetter(_ words: [Word]) -> Int? {
            guard words.count == 1, words[0].exact.isEmpty, words[0].prefixBytes.count == 1 else { return nil }
            return LetterPlaces.number(of: words[0].prefixBytes[0])
        }

        /// The token that narrows the rows most cheaply: any match holds its bytes.
        var longestToken: [UInt8] { (exact + [prefixBytes]).max { $0.count < $1.count }! }

        /// Whether the word's prefix begins `token` (which begins with its bytes) as characters.
        func isCharacterPrefix(of token: UnsafeBufferPointer<UInt8>) -> Bool {
            SearchIndexBase.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: token)
        }

        /// For a word of one token, with the prefix bytes `wanted`: the byte offset of the first
        /// token of `text` (tokens joined by single spaces) that it begins, or nil; 0 is the
        /// text's first token. `isCharacterPrefix` is asked only of a token that begins with the
        /// bytes and goes on with a byte outside ASCII.
        static func firstPlace(of wanted: UnsafeBufferPointer<UInt8>, asciiPrefix: Bool, in text: UnsafeBufferPointer<UInt8>,
                               isCharacterPrefix: (UnsafeBufferPointer<UInt8>) -> Bool) -> Int? {
            guard let base = text.baseAddress else { return nil }
            // A byte loop: tokens and prefixes are a few bytes, too short to pay for calls.
            let (length, count) = (wanted.count, text.count)
            var start = 0
            while start + length <= count {
                var matched = 0
                while matched < length && base[start + matched] == wanted[matched] { matched += 1 }
                var end = start + matched
                if matched == length && asciiPrefix && (end == count || base[end] < 0x80) { return start }
                while end < count && base[end] != 0x20 { end += 1 }
                if matched == length && isCharacterPrefix(UnsafeBufferPointer(rebasing: text[start..<end])) { return start }
                start = end + 1
            }
            return nil
        }

        /// False when some token of the word is nowhere in the text as bytes, so it cannot
        /// match: a quick test before the text is cut into tokens.
        func mayMatch(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) -> Bool {
            func occurs(_ needle: [UInt8]) -> Bool { Self.occurs(needle, in: title) || Self.occurs(needle, in: author) }
            return occurs(prefixBytes) && exact.allSatisfy(occurs)
        }

        private static func occurs(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let first = needle.first else { return true }
            guard text.count >= needle.count else { return false }
            for start in 0...(text.count - needle.count) where text[start] == first {
                var matched = 1
                while matched < needle.count && text[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            return false
        }

        func matches(_ tokens: ArraySlice<UnsafeBufferPointer<UInt8>>) -> Bool {
            for (token, part) in zip(tokens, exact) where !token.elementsEqual(part) { return false }
            let last = tokens[tokens.startIndex + exact.count]
            guard last.starts(with: prefixBytes) else { return false }
            return SearchIndexBase.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: last)
        }
    }

    /// One row's title and author tokens (views into the statement's current row).
    struct Tokens {
        var all: [UnsafeBufferPointer<UInt8>] = []
        var titleCount = 0

        mutating func read(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) {
            all.removeAll(keepingCapacity: true)
            TokenTable.forEachToken(title) { all.append($0) }
            titleCount = all.count
            TokenTable.forEachToken(author) { all.append($0) }
        }

        /// The rank `SearchTerms.rank` gives, or nil when some word matches nowhere.
        func rank(_ words: [Word]) -> Int? {
            BookRank.rank(words: words.count, titleCount: titleCount, tokenCount: all.count,
                          length: { words[$0].exact.count + 1 },
                          matches: { words[$0].matches(all[$1..<$1 + words[$0].exact.count + 1]) })
        }
    }

    /// The first `wanted` of one rank's matches in (title_key bytes, id) order, and how many there were.
    struct Best {
        let wanted: Int
        private(set) var count = 0
        private var kept: [(key: [UInt8], id: Int)] = []
        /// Once `kept` was trimmed, anything not before this entry can never be among the first
        /// `wanted`; its key's first eight bytes (`ByteOrder.prefix`) settle most comparisons.
        /// (Not optional: binding it for every offer would retain its key each time.)
        private var isTrimmed = false
        private var worst: (key: [UInt8], id: Int) = ([], .max)
        private var worstPrefix = UInt64.max

        init(wanted: Int) { self.wanted = wanted }

        /// - Parameters:
        ///   - prefix: the key's first eight bytes (`ByteOrder.prefix`).
        ///   - key: the whole key, asked only when the prefix does not settle it.
        mutating func offer(id: Int, prefix: UInt64, key: () -> UnsafeBufferPointer<UInt8>) {
            count += 1
            guard wanted > 0 else { return }
            if isTrimmed {
                // Most offers of a broad query come after the kept ones and end here.
                if prefix > worstPrefix { return }
                if prefix == worstPrefix, !worst.key.withUnsafeBufferPointer({ ByteOrder.precedes(key(), id, $0, worst.id) }) { return }
            }
            kept.append((Array(key()), id))
            if kept.count >= 2 * wanted + 64 { trim() }
        }

        func sorted() -> [(key: [UInt8], id: Int)] {
            Array(kept.sorted { ByteOrder.precedes($0.key, $0.id, $1.key, $1.id) }.prefix(wanted))
        }

        private mutating func trim() {
            kept = sorted()
            isTrimmed = true
            worst = kept.last!
            worstPrefix = worst.key.withUnsafeBufferPointer(ByteOrder.prefix)
        }
    }
}
