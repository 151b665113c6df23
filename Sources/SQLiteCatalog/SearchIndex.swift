import BookCatalog
import Foundation

/// An in-memory search index over one scope of a catalog, built once per connection from the
/// derived text columns and kept current by replaying rows whose `change_seq` moved.
///
/// Why in memory: a prefix of one or two letters matches hundreds of thousands of books, and
/// the answer must be ranked (`SearchTerms.sortKey`) and counted exactly. FTS5 can find them
/// but must then count and sort every match through SQL; here every book has an ordinal in
/// result order (folded title, id), tokens are small integers numbered in byte order (so a
/// prefix is a contiguous range of token numbers), and ranking is one pass over integer
/// arrays. Rare words take a posting list instead of the pass.
///
/// Writes after the build are kept in an overlay (the changed rows, judged with
/// `SearchTerms` itself) and merged into results by position; the superseded base entries are
/// tombstoned. A large overlay triggers a rebuild.
final class SearchIndex {
    // Base: books in result order. Ordinal = position in (title_key, id) order.
    private let ids: [Int]
    private let keyBytes: [UInt8]
    private let keyStart: [Int32]          // count + 1
    private let tokens: [UInt32]
    private let titleStart: [Int32]        // count + 1: title of d is titleStart[d]..<authorStart[d]
    private let authorStart: [Int32]       // author of d is authorStart[d]..<titleStart[d + 1]
    private let vocabulary: [String]       // distinct tokens, sorted by UTF-8 bytes
    private let postingStart: [Int32]      // vocabulary.count + 1
    private let postings: [Int32]          // ordinals per token, token by token
    private let ordinalsByID: [Int32]      // ordinals sorted by id, for lookup by id

    // Changes since the build.
    private(set) var syncedSequence: Int
    private var tombstones: [UInt64]
    private var tombstoneCount = 0
    private var overlay: [Int: OverlayBook] = [:]

    var count: Int { ids.count }
    var needsRebuild: Bool { overlay.count > 4_096 + ids.count / 16 }

    private struct OverlayBook {
        let id: Int
        let record: BookRecord
        let key: [UInt8]
        /// How many base books sort before this one: it goes right before that ordinal.
        let basePosition: Int

        static func sortsBefore(_ a: OverlayBook, _ b: OverlayBook) -> Bool {
            if a.basePosition != b.basePosition { return a.basePosition < b.basePosition }
            if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
            return a.id < b.id
        }
    }

    // MARK: Building

    static func build(connection: Connection, scope: String, sequence: Int) throws -> SearchIndex {
        var builder = Builder()
        let statement = try connection.statement(
            "SELECT id, title_key, title_terms, author_terms FROM books WHERE scope = ?1 ORDER BY title_key, id")
        try statement.bind([.text(scope)])
        defer { statement.reset() }
        while try statement.step() {
            builder.add(id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2), author: statement.bytes(3))
        }
        return SearchIndex(builder, sequence: sequence)
    }

    private struct Builder {
        var ids: [Int] = []
        var keyBytes: [UInt8] = []
        var keyStart: [Int32] = [0]
        var tokens: [UInt32] = []
        var titleStart: [Int32] = []
        var authorStart: [Int32] = []
        var numbers: [String: UInt32] = [:]
        var vocabulary: [String] = []

        mutating func add(id: Int, key: UnsafeBufferPointer<UInt8>, title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) {
            ids.append(id)
            keyBytes.append(contentsOf: key)
            keyStart.append(Int32(keyBytes.count))
            titleStart.append(Int32(tokens.count))
            addTokens(title)
            authorStart.append(Int32(tokens.count))
            addTokens(author)
        }

        private mutating func addTokens(_ text: UnsafeBufferPointer<UInt8>) {
            var start = 0
            for index in 0...text.count where index == text.count || text[index] == 0x20 {
                if index > start {
                    let token = String(decoding: UnsafeBufferPointer(rebasing: text[start..<index]), as: UTF8.self)
                    if let number = numbers[token] {
                        tokens.append(number)
                    } else {
                        let number = UInt32(vocabulary.count)
                        numbers[token] = number
                        vocabulary.append(token)
                        tokens.append(number)
                    }
                }
                start = index + 1
            }
        }
    }

    private init(_ builder: Builder, sequence: Int) {
        let count = builder.ids.count
        // Renumber tokens in byte order so that a prefix is a range of numbers.
        let order = builder.vocabulary.indices.sorted {
            builder.vocabulary[$0].utf8.lexicographicallyPrecedes(builder.vocabulary[$1].utf8)
        }
        var renumber = [UInt32](repeating: 0, count: order.count)
        for (rank, old) in order.enumerated() { renumber[old] = UInt32(rank) }
        var tokens = builder.tokens
        for index in tokens.indices { tokens[index] = renumber[Int(tokens[index])] }

        var titleStart = builder.titleStart
        titleStart.append(Int32(tokens.count))

        // Posting lists by counting sort: ordinals for token 0, then token 1, ...
        var postingStart = [Int32](repeating: 0, count: order.count + 1)
        for token in tokens { postingStart[Int(token) + 1] += 1 }
        for index in 1..<postingStart.count { postingStart[index] += postingStart[index - 1] }
        var fill = postingStart
        var postings = [Int32](repeating: 0, count: tokens.count)
        for ordinal in 0..<count {
            for position in Int(titleStart[ordinal])..<Int(titleStart[ordinal + 1]) {
                let token = Int(tokens[position])
                postings[Int(fill[token])] = Int32(ordinal)
                fill[token] += 1
            }
        }

        ids = builder.ids
        keyBytes = builder.keyBytes
        keyStart = builder.keyStart
        self.tokens = tokens
        self.titleStart = titleStart
        authorStart = builder.authorStart
        vocabulary = order.map { builder.vocabulary[$0] }
        self.postingStart = postingStart
        self.postings = postings
        let ids = builder.ids
        ordinalsByID = (0..<Int32(count)).sorted { ids[Int($0)] < ids[Int($1)] }
        syncedSequence = sequence
        tombstones = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    // MARK: Catching up

    /// Replays rows of `scope` committed after the last sync (by anyone) into the overlay.
    func catchUp(connection: Connection, scope: String, sequence: Int) throws {
        guard sequence > syncedSequence else { return }
        let rows = try connection.query(
            "SELECT id, title, author, revision, title_key FROM books WHERE change_seq > ?1 AND scope = ?2",
            [.int(syncedSequence), .text(scope)]
        ) { row in
            (BookRecord(id: row.int(0), title: row.text(1), revision: row.int(3), author: row.text(2)), Array(row.bytes(4)))
        }
        for (record, key) in rows {
            if let ordinal = ordinal(ofID: record.id), !isTombstoned(ordinal) {
                tombstones[ordinal >> 6] |= 1 << UInt64(ordinal & 63)
                tombstoneCount += 1
            }
            overlay[record.id] = OverlayBook(id: record.id, record: record, key: key,
                                             basePosition: basePosition(key: key, id: record.id))
        }
        syncedSequence = sequence
    }

    private func ordinal(ofID id: Int) -> Int? {
        var low = 0, high = ordinalsByID.count
        while low < high {
            let middle = (low + high) / 2
            if ids[Int(ordinalsByID[middle])] < id { low = middle + 1 } else { high = middle }
        }
        guard low < ordinalsByID.count, ids[Int(ordinalsByID[low])] == id else { return nil }
        return Int(ordinalsByID[low])
    }

    private func isTombstoned(_ ordinal: Int) -> Bool {
        tombstones[ordinal >> 6] & (1 << UInt64(ordinal & 63)) != 0
    }

    /// The number of base books whose (key, id) sorts before (key, id).
    private func basePosition(key: [UInt8], id: Int) -> Int {
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if baseSortsBefore(middle, key: key, id: id) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func baseSortsBefore(_ ordinal: Int, key: [UInt8], id: Int) -> Bool {
        let start = Int(keyStart[ordinal]), end = Int(keyStart[ordinal + 1])
        let comparison = keyBytes[start..<end].lexicographicallyPrecedes(key) ? -1 : (keyBytes[start..<end].elementsEqual(key) ? 0 : 1)
        return comparison < 0 || (comparison == 0 && ids[ordinal] < id)
    }

    // MARK: Searching

    /// The ids of the matches at `offset..<offset+limit` in result order, and the total.
    func search(_ terms: SearchTerms, offset: Int, limit: Int) -> (ids: [Int], total: Int) {
        let wanted = offset + limit
        var base = BaseMatches(cap: wanted)
        var overlayMatches: [[OverlayBook]] = [[], [], []]
        if terms.isEmpty {
            collectAll(into: &base)
            overlayMatches[0] = Array(overlay.values)
        } else {
            if let words = compile(terms) { collect(words, into: &base) }
            for book in overlay.values where terms.matches(book.record) {
                overlayMatches[terms.rank(book.record)].append(book)
            }
        }
        var result: [Int] = []
        var position = 0
        for rank in 0..<3 where position < wanted {
            let extra = overlayMatches[rank].sorted(by: OverlayBook.sortsBefore)
            let rankEnd = position + base.counts[rank] + extra.count
            if rankEnd <= offset { position = rankEnd; continue }
            let listed = base.ordinals[rank]
            var nextBase = 0, nextExtra = 0
            while position < wanted && position < rankEnd {
                let takeExtra = nextExtra < extra.count
                    && (nextBase >= listed.count || extra[nextExtra].basePosition <= Int(listed[nextBase]))
                let id: Int
                if takeExtra {
                    id = extra[nextExtra].id
                    nextExtra += 1
                } else {
                    id = ids[Int(listed[nextBase])]
                    nextBase += 1
                }
                if position >= offset { result.append(id) }
                position += 1
            }
            position = rankEnd
        }
        let total = base.counts.reduce(0, +) + overlayMatches.reduce(0) { $0 + $1.count }
        return (result, total)
    }

    /// Base matches per rank: all are counted, the first `cap` of each rank are listed.
    private struct BaseMatches {
        let cap: Int
        var counts = [0, 0, 0]
        var ordinals: [[Int32]] = [[], [], []]

        init(cap: Int) { self.cap = cap }

        @inline(__always)
        mutating func add(_ ordinal: Int, rank: Int) {
            if counts[rank] < cap { ordinals[rank].append(Int32(ordinal)) }
            counts[rank] += 1
        }
    }

    private func collectAll(into base: inout BaseMatches) {
        if tombstoneCount == 0 {
            base.counts[0] = ids.count
            base.ordinals[0] = (0..<Int32(min(ids.count, base.cap))).map { $0 }
            return
        }
        for ordinal in 0..<ids.count where !isTombstoned(ordinal) { base.add(ordinal, rank: 0) }
    }

    /// One query word against the vocabulary: exact token numbers for all but the last token,
    /// the range of numbers the last token is a prefix of, minus the few in that range that
    /// are byte-prefixed but not character-prefixed (a combining mark after the prefix).
    private struct CompiledWord {
        var exact: [UInt32]
        var low: UInt32
        var high: UInt32
        var excluded: Set<UInt32>
        /// The posting range a candidate must appear in, and its length.
        var anchor: Range<Int>
        var estimate: Int
    }

    /// Nil when some word cannot match any base book.
    private func compile(_ terms: SearchTerms) -> [CompiledWord]? {
        var words: [CompiledWord] = []
        for word in terms.words {
            let parts = word.map(BookText.normalized)
            var exact: [UInt32] = []
            var anchor: Range<Int>? = nil
            for part in parts.dropLast() {
                guard let number = exactNumber(part) else { return nil }
                exact.append(number)
                let range = Int(number)..<Int(number) + 1
                if anchor == nil || postingLength(range) < postingLength(anchor!) { anchor = range }
            }
            let prefix = parts.last!
            let range = prefixRange(prefix)
            guard !range.isEmpty else { return nil }
            var excluded: Set<UInt32> = []
            let asciiPrefix = prefix.utf8.allSatisfy { $0 < 0x80 }
            let prefixLength = prefix.utf8.count
            for number in range {
                let token = vocabulary[number]
                if asciiPrefix {
                    let utf8 = token.utf8
                    if utf8.count == prefixLength || utf8[utf8.index(utf8.startIndex, offsetBy: prefixLength)] < 0x80 { continue }
                }
                if !token.hasPrefix(prefix) { excluded.insert(UInt32(number)) }
            }
            guard excluded.count < range.count else { return nil }
            if anchor == nil || postingLength(range) < postingLength(anchor!) { anchor = range }
            words.append(CompiledWord(exact: exact, low: UInt32(range.lowerBound), high: UInt32(range.upperBound),
                                      excluded: excluded, anchor: anchor!, estimate: postingLength(anchor!)))
        }
        return words
    }

    private func postingLength(_ range: Range<Int>) -> Int {
        Int(postingStart[range.upperBound] - postingStart[range.lowerBound])
    }

    private func exactNumber(_ token: String) -> UInt32? {
        let range = prefixRange(token)
        for number in range where vocabulary[number].utf8.count == token.utf8.count { return UInt32(number) }
        return nil
    }

    /// The vocabulary numbers whose bytes start with `prefix`'s bytes.
    private func prefixRange(_ prefix: String) -> Range<Int> {
        let bytes = Array(prefix.utf8)
        var low = 0, high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle].utf8.lexicographicallyPrecedes(bytes) { low = middle + 1 } else { high = middle }
        }
        let start = low
        high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle].utf8.prefix(bytes.count).lexicographicallyPrecedes(bytes)
                || vocabulary[middle].utf8.starts(with: bytes) { low = middle + 1 } else { high = middle }
        }
        return start..<low
    }

    private func collect(_ words: [CompiledWord], into base: inout BaseMatches) {
        let best = words.min { $0.estimate < $1.estimate }!
        let tokens = self.tokens, titleStart = self.titleStart, authorStart = self.authorStart
        tokens.withUnsafeBufferPointer { tokens in
            titleStart.withUnsafeBufferPointer { titleStart in
                authorStart.withUnsafeBufferPointer { authorStart in
                    let judge = Judge(words: words, tokens: tokens, titleStart: titleStart, authorStart: authorStart)
                    let checkTombstones = tombstoneCount > 0
                    if best.estimate * 3 >= ids.count {
                        for ordinal in 0..<ids.count {
                            if checkTombstones && isTombstoned(ordinal) { continue }
                            if let rank = judge.rank(ordinal) { base.add(ordinal, rank: rank) }
                        }
                    } else {
                        var marks = [UInt64](repeating: 0, count: (ids.count + 63) / 64)
                        for index in Int(postingStart[best.anchor.lowerBound])..<Int(postingStart[best.anchor.upperBound]) {
                            let ordinal = Int(postings[index])
                            marks[ordinal >> 6] |= 1 << UInt64(ordinal & 63)
                        }
                        for (wordIndex, var word) in marks.enumerated() {
                            while word != 0 {
                                let ordinal = wordIndex << 6 | word.trailingZeroBitCount
                                word &= word - 1
                                if checkTombstones && isTombstoned(ordinal) { continue }
                                if let rank = judge.rank(ordinal) { base.add(ordinal, rank: rank) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Ranks one base book against compiled words, exactly as `SearchTerms.rank` would.
    private struct Judge {
        let words: [CompiledWord]
        let tokens: UnsafeBufferPointer<UInt32>
        let titleStart: UnsafeBufferPointer<Int32>
        let authorStart: UnsafeBufferPointer<Int32>

        @inline(__always)
        func rank(_ ordinal: Int) -> Int? {
            let titleLow = Int(titleStart[ordinal]), titleHigh = Int(authorStart[ordinal])
            let authorHigh = Int(titleStart[ordinal + 1])
            var allInTitle = true
            var firstAtStart = false
            for (index, word) in words.enumerated() {
                if let at = find(word, low: titleLow, high: titleHigh) {
                    if index == 0 { firstAtStart = at == titleLow }
                } else {
                    allInTitle = false
                    if find(word, low: titleHigh, high: authorHigh) == nil { return nil }
                }
            }
            return allInTitle ? (firstAtStart ? 0 : 1) : 2
        }

        @inline(__always)
        private func find(_ word: CompiledWord, low: Int, high: Int) -> Int? {
            let length = word.exact.count + 1
            guard high - low >= length else { return nil }
            let span = word.high &- word.low
            for at in low...(high - length) {
                var matched = true
                for (offset, number) in word.exact.enumerated() where tokens[at + offset] != number {
                    matched = false
                    break
                }
                guard matched else { continue }
                let last = tokens[at + length - 1]
                if last &- word.low < span && (word.excluded.isEmpty || !word.excluded.contains(last)) { return at }
            }
            return nil
        }
    }
}
