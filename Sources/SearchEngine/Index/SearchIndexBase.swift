import BookCatalog
import Foundation
import Locking

/// The immutable part of a search index: one scope's books as they were at one `change_seq`,
/// in result order, in compact arrays. Built by `SearchIndexBuilder` or loaded from the
/// snapshot file beside the catalog (`SearchIndexSnapshot`), which it then reads in place;
/// `SearchIndex` adds later changes.
///
/// Layout (`bookshelf-bench search` reports its size for a catalog):
/// - Every book has an ordinal: its position in (folded title, id) order, which is result order.
/// - Tokens are numbered in byte order, so the tokens a prefix matches are a range of numbers.
///   In the arrays they appear as *codes*, numbered by frequency, so that common tokens take
///   one byte as a `VarInt`; `numberOfCode` turns a code back into its number.
/// - `bookBytes`: per book, the number of title tokens and of author tokens, then the codes of
///   its title, author and other tokens, the other fields' separators included (the forward
///   index, for words of several tokens that must be consecutive).
/// - `postingBytes`: per token number, the books that contain it, as gaps between ordinals
///   shifted left by two, with the token's best place in the book in the low two bits
///   (0 first title token, 1 elsewhere in the title, 2 author, 3 other fields only). The
///   separator of the other fields has no postings: no query word begins with it. That place is exactly
///   what `SearchTerms.rank` needs for a word of one token, so most queries never touch the
///   forward index: they OR posting lists into bitmaps and count bits.
/// - `sortedIDs` and `ordinalOfSorted`: the ids in id order and each one's ordinal, so that
///   catching up with a changed book finds its old entry by binary search instead of a pass
///   over every id.
package final class SearchIndexBase: Sendable {
    /// The highest `change_seq` among the rows this reflects.
    package let sequence: Int
    package let count: Int
    package let vocabularyBytes: IndexArray<UInt8>
    package let vocabularyStart: IndexArray<UInt32>  // vocabularySize + 1
    package let numberOfCode: IndexArray<UInt32>  // vocabularySize
    package let bookBytes: IndexArray<UInt8>
    package let bookStart: PackedIntegers  // count + 1
    package let idBase: Int
    package let ids: PackedIntegers  // id - idBase, by ordinal
    package let sortedIDs: PackedIntegers  // id - idBase, ascending
    package let ordinalOfSorted: PackedIntegers  // the ordinal of sortedIDs[i]
    /// The largest id the scope had when this was built (the catalog's record of it, for a
    /// stored index): a changed book with a larger id was added since.
    package let largestID: Int
    /// The matches of the broadest one-word queries, once computed.
    package let broadPrefixes = BroadPrefixResults()
    /// The broad words of recent multi-word queries, as bitmaps.
    package let broadWords = BroadWordPlaces()
    package let postingBytes: IndexArray<UInt8>
    package let postingStart: IndexArray<UInt32>  // vocabularySize + 1, byte offsets by token number
    package let postingsBefore: IndexArray<UInt32>  // vocabularySize + 1, entries before each token number
    package let storedPrefixes: StoredPrefixes

    package var vocabularySize: Int { numberOfCode.count }

    /// Bytes held, for reports.
    package var byteCount: Int {
        vocabularyBytes.count + 4
            * (vocabularyStart.count + numberOfCode.count + postingStart.count + postingsBefore.count)
            + bookBytes.count + bookStart.byteCount + ids.byteCount + sortedIDs.byteCount + ordinalOfSorted.byteCount
            + postingBytes.count + 8 * (storedPrefixes.table.count + storedPrefixes.bitmaps.count)
    }

    package init(
        sequence: Int, count: Int, vocabularyBytes: IndexArray<UInt8>, vocabularyStart: IndexArray<UInt32>,
        numberOfCode: IndexArray<UInt32>, bookBytes: IndexArray<UInt8>, bookStart: PackedIntegers, idBase: Int,
        ids: PackedIntegers, sortedIDs: PackedIntegers, ordinalOfSorted: PackedIntegers, largestID: Int,
        postingBytes: IndexArray<UInt8>,
        postingStart: IndexArray<UInt32>, postingsBefore: IndexArray<UInt32>, storedPrefixes: StoredPrefixes = .none
    ) {
        self.sequence = sequence
        self.count = count
        self.vocabularyBytes = vocabularyBytes
        self.vocabularyStart = vocabularyStart
        self.numberOfCode = numberOfCode
        self.bookBytes = bookBytes
        self.bookStart = bookStart
        self.idBase = idBase
        self.ids = ids
        self.sortedIDs = sortedIDs
        self.ordinalOfSorted = ordinalOfSorted
        self.largestID = largestID
        self.postingBytes = postingBytes
        self.postingStart = postingStart
        self.postingsBefore = postingsBefore
        self.storedPrefixes = storedPrefixes
    }

    /// Checks the invariants every reader relies on, so that a damaged snapshot is rebuilt
    /// instead of read out of bounds. Checks the small arrays (vocabulary and per-token
    /// offsets) against their checksums in full; the large ones are checked where a search
    /// reads them (`IndexArray.verify`), and their contents are bounds-checked as they are read.
    package func validate() throws(SearchIndexDamage) {
        for small in [vocabularyStart, numberOfCode, postingStart, postingsBefore] { try small.verifyAll() }
        try vocabularyBytes.verifyAll()
        try bookStart.words.verify(bookStart.wordRange(0..<1))
        try bookStart.words.verify(bookStart.wordRange(count..<count + 1))
        if !bookBytes.isEmpty { try bookBytes.verify(bookBytes.count - 1..<bookBytes.count) }
        if !postingBytes.isEmpty { try postingBytes.verify(postingBytes.count - 1..<postingBytes.count) }
        guard isConsistent else { throw SearchIndexDamage("the snapshot's arrays do not fit together") }
        // Every prefix is found by binary search, and every token in its range is taken to
        // start with it: a crafted order would give wrong answers, or read past a short token.
        guard vocabularyIsInByteOrder else { throw SearchIndexDamage("the snapshot's vocabulary is out of order") }
        try storedPrefixes.validate(count: count)
    }

    /// Whether each token sorts strictly after the one before it. One pass over bytes the
    /// load has just checksummed.
    private var vocabularyIsInByteOrder: Bool {
        vocabularyBytes.withUnsafeBufferPointer { bytes in
            var previous = UnsafeBufferPointer(rebasing: bytes[0..<0])
            for number in 0..<vocabularySize {
                let token = UnsafeBufferPointer(
                    rebasing: bytes[Int(vocabularyStart[number])..<Int(vocabularyStart[number + 1])])
                if number > 0 && ByteOrder.compare(previous, token) >= 0 { return false }
                previous = token
            }
            return true
        }
    }

    private var isConsistent: Bool {
        let size = numberOfCode.count
        guard vocabularyStart.count == size + 1, postingStart.count == size + 1, postingsBefore.count == size + 1,
            bookStart.count == count + 1, ids.count == count, sortedIDs.count == count, ordinalOfSorted.count == count,
            vocabularyStart.first == 0, Int(vocabularyStart.last!) == vocabularyBytes.count,
            postingStart.first == 0, Int(postingStart.last!) == postingBytes.count, postingsBefore.first == 0,
            bookStart[0] == 0, Int(bookStart[count]) == bookBytes.count
        else { return false }
        for index in 0..<size
        where vocabularyStart[index] > vocabularyStart[index + 1]
            || postingStart[index] > postingStart[index + 1] || postingsBefore[index] > postingsBefore[index + 1]
            || numberOfCode[index] >= UInt32(size)
        { return false }
        // A varint stream must end on a final byte, or a reader would run into the next one.
        if let last = bookBytes.last, last >= 0x80 { return false }
        if let last = postingBytes.last, last >= 0x80 { return false }
        return true
    }

    /// The id of the book at `ordinal`.
    package func id(_ ordinal: Int) throws(SearchIndexDamage) -> Int {
        try ids.words.verify(ids.wordRange(ordinal..<ordinal + 1))
        return idBase + Int(ids[ordinal])
    }

    /// The ordinal of the book with `id`, or nil when the id order does not list it: a search
    /// over the ids in id order. An entry that names another book is damage.
    package func ordinal(ofID id: Int) throws(SearchIndexDamage) -> Int? {
        try ordinals(ofAscendingIDs: [id])[0]
    }

    /// The ordinals of `ids`, which must ascend, as `ordinal(ofID:)` gives them one by one. Each
    /// search starts where the one before ended and gallops forward, so a batch of changed books
    /// reads the id order once, near where it reads, instead of from the middle for every book
    /// (212,765 changed books of ten million: twenty-odd scattered steps each before).
    package func ordinals(ofAscendingIDs ids: [Int]) throws(SearchIndexDamage) -> [Int?] {
        var ordinals: [Int?] = []
        ordinals.reserveCapacity(ids.count)
        var position = 0
        func sortedID(at index: Int) throws(SearchIndexDamage) -> UInt64 {
            try sortedIDs.words.verify(sortedIDs.wordRange(index..<index + 1))
            return sortedIDs[index]
        }
        for id in ids {
            guard id >= idBase, position < count else {
                ordinals.append(nil)
                continue
            }
            let wanted = UInt64(id - idBase)
            // The first entry not below `wanted` is in position..<high.
            var low = position, step = 1, high = position
            while high < count, try sortedID(at: high) < wanted {
                low = high + 1
                high = min(count, high + step)
                step *= 2
            }
            while low < high {
                let middle = (low + high) / 2
                if try sortedID(at: middle) < wanted { low = middle + 1 } else { high = middle }
            }
            position = low
            guard low < count, try sortedID(at: low) == wanted else {
                ordinals.append(nil)
                continue
            }
            try ordinalOfSorted.words.verify(ordinalOfSorted.wordRange(low..<low + 1))
            let ordinal = Int(ordinalOfSorted[low])
            guard ordinal < count, try self.id(ordinal) == id else {
                throw SearchIndexDamage("the snapshot's id order contradicts its ids")
            }
            ordinals.append(ordinal)
        }
        return ordinals
    }

    /// Whether the id order lists every book exactly once: nil until first asked.
    private let idOrderIsSound = Locked<Bool?>(nil)

    /// Checks, once, that `sortedIDs` rises strictly and that each entry's ordinal holds that
    /// id: then it lists every book exactly once. For when a lookup misses an id the base
    /// could hold (not above `largestID`), which a crafted file could cause; a pass over both
    /// arrays, so it is not paid by catching up with edits of listed books or with new ones.
    package func checkIDOrder() throws(SearchIndexDamage) {
        let sound = idOrderIsSound.withLock { sound -> Bool in
            if let sound { return sound }
            sound = (try? checkIDOrderFully()) != nil
            return sound!
        }
        guard sound else { throw SearchIndexDamage("the snapshot's id order contradicts its ids") }
    }

    private func checkIDOrderFully() throws(SearchIndexDamage) {
        try sortedIDs.words.verifyAll()
        try ordinalOfSorted.words.verifyAll()
        try ids.words.verifyAll()
        var previous: UInt64? = nil
        for index in 0..<count {
            let id = sortedIDs[index]
            let ordinal = Int(ordinalOfSorted[index])
            guard previous.map({ $0 < id }) ?? true, ordinal < count, ids[ordinal] == id else {
                throw SearchIndexDamage("the snapshot's id order contradicts its ids")
            }
            previous = id
        }
    }

    // MARK: Vocabulary

    package func withToken<T>(_ number: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        vocabularyBytes.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[Int(vocabularyStart[number])..<Int(vocabularyStart[number + 1])]))
        }
    }

    /// The token numbers whose bytes start with `prefix`.
    package func prefixRange(_ prefix: [UInt8]) -> Range<Int> {
        var low = 0, high = vocabularySize
        while low < high {
            let middle = (low + high) / 2
            if withToken(middle, { $0.lexicographicallyPrecedes(prefix) }) { low = middle + 1 } else { high = middle }
        }
        let start = low
        high = vocabularySize
        while low < high {
            let middle = (low + high) / 2
            let before = withToken(middle) { token in
                token.prefix(prefix.count).lexicographicallyPrecedes(prefix) || token.starts(with: prefix)
            }
            if before { low = middle + 1 } else { high = middle }
        }
        return start..<low
    }

    package func exactNumber(_ token: [UInt8]) -> UInt32? {
        let range = prefixRange(token)
        for number in range where withToken(number, { $0.count }) == token.count { return UInt32(number) }
        return nil
    }

    /// How many (book, token) entries the token numbers in `range` have.
    package func postingCount(_ range: Range<Int>) -> Int {
        Int(postingsBefore[range.upperBound] - postingsBefore[range.lowerBound])
    }

    // MARK: Searching

    /// Base matches per rank: the first `cap` of each rank are listed, and all are counted, or
    /// (with a `countLimit`) until the first rank fills the listing and the counts reach the
    /// limit: the page is then all of the first rank, and the total is reported as "at least"
    /// (`SearchIndex.countLimit`), so a collection may stop there, with the counts short.
    package struct Matches {
        package let cap: Int
        package let countLimit: Int
        package var counts = Array(repeating: 0, count: BookRank.count)
        package var ordinals: [[Int32]] = Array(repeating: [], count: BookRank.count)

        package init(cap: Int, countLimit: Int = .max) {
            self.cap = cap
            self.countLimit = countLimit
        }

        /// Whether further matches would change neither the listed ones of the first rank (they
        /// come in result order) nor a total already past the limit.
        package var isSettled: Bool { counts[0] >= cap && counts[0] + counts[1] + counts[2] + counts[3] >= countLimit }

        /// How many books were judged against the forward index to collect these (the tests
        /// hold the early stop to it).
        package var booksJudged = 0

        @inline(__always)
        package mutating func add(_ ordinal: Int, rank: Int) {
            if counts[rank] < cap { ordinals[rank].append(Int32(ordinal)) }
            counts[rank] += 1
        }

        /// Adds the ordinals `slot * 64 + i` for the bits `i` set in `bits`.
        @inline(__always)
        package mutating func add(bits: UInt64, slot: Int, rank: Int) {
            guard bits != 0 else { return }
            if counts[rank] >= cap {
                counts[rank] += bits.nonzeroBitCount
                return
            }
            var bits = bits
            while bits != 0 {
                add(slot << 6 | bits.trailingZeroBitCount, rank: rank)
                bits &= bits - 1
            }
        }
    }

    /// One query word against the vocabulary: exact token numbers for all but the last token,
    /// the range of numbers the last token is a prefix of, minus the few in that range that
    /// are byte-prefixed but not character-prefixed (a combining mark after the prefix).
    package struct CompiledWord: Equatable {
        package var exact: [UInt32]
        package var range: Range<Int>
        package var excluded: Set<UInt32>
        /// The posting range a candidate must appear in, and its length.
        package var anchor: Range<Int>
        package var estimate: Int
        /// The word's `StoredPrefixes.code` when it is a prefix whose places may be stored.
        package var storedPrefix: UInt64?
    }

    /// Nil when some word cannot match any base book.
    package func compile(_ terms: SearchTerms) -> [CompiledWord]? {
        var words: [CompiledWord] = []
        for word in terms.words {
            let parts = word.map(BookText.normalized)
            var exact: [UInt32] = []
            var anchor: Range<Int>? = nil
            for part in parts.dropLast() {
                guard let number = exactNumber(Array(part.utf8)) else { return nil }
                exact.append(number)
                let range = Int(number)..<Int(number) + 1
                if anchor == nil || postingCount(range) < postingCount(anchor!) { anchor = range }
            }
            let prefix = parts.last!
            let prefixBytes = Array(prefix.utf8)
            let range = prefixRange(prefixBytes)
            guard !range.isEmpty else { return nil }
            var excluded: Set<UInt32> = []
            let asciiPrefix = prefixBytes.allSatisfy { $0 < 0x80 }
            for number in range {
                let isPrefix = withToken(number) {
                    Self.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: $0)
                }
                if !isPrefix { excluded.insert(UInt32(number)) }
            }
            guard excluded.count < range.count else { return nil }
            if anchor == nil || postingCount(range) < postingCount(anchor!) { anchor = range }
            words.append(
                CompiledWord(
                    exact: exact, range: range, excluded: excluded, anchor: anchor!, estimate: postingCount(anchor!),
                    storedPrefix: exact.isEmpty ? StoredPrefixes.code(prefixBytes) : nil))
        }
        return words
    }

    /// Whether `token`, which starts with the bytes of `prefix`, starts with its characters too:
    /// not when a combining mark follows the bytes ("e" against "é" in decomposed form).
    package static func isCharacterPrefix(
        _ prefix: String, prefixBytes: [UInt8], asciiPrefix: Bool,
        of token: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        if asciiPrefix && (token.count == prefixBytes.count || token[prefixBytes.count] < 0x80) { return true }
        return String(decoding: token, as: UTF8.self).hasPrefix(prefix)
    }

    /// Every base book matching `words`, ranked as `SearchTerms.rank` ranks, except those in
    /// `hidden` (superseded by later changes). Words of one token are read `slotsPerStretch`
    /// bitmap words at a time at least (`collectByPlaces`; tests ask for short stretches).
    /// `keepingBroadAnswers`: a multi-word query's broad words are read whole and kept
    /// (`broadWords`), for the next keys that ask for them again, and a stored prefix's bitmaps
    /// are copied whole; otherwise both are read a stretch at a time.
    package func collect(
        _ words: [CompiledWord], hidden: Bitmap?, into matches: inout Matches,
        slotsPerStretch: Int = SearchTuning.stretchSlots, keepingBroadAnswers: Bool = true
    ) throws(SearchIndexDamage) {
        if words.allSatisfy({ $0.exact.isEmpty }) {
            try collectByPlaces(
                words, hidden: hidden, into: &matches, slotsPerStretch: slotsPerStretch,
                keepingBroadAnswers: keepingBroadAnswers)
        } else {
            try collectByJudging(words, hidden: hidden, into: &matches)
        }
    }

    /// Reads the posting lists of the token numbers in `numbers`, checking them first and
    /// refusing any entry that leaves its list or names a book beyond `count`.
    private func forEachPosting(_ numbers: Range<Int>, _ body: (_ ordinal: Int, _ place: UInt32) -> Void)
        throws(SearchIndexDamage)
    {
        guard !numbers.isEmpty else { return }
        try postingBytes.verify(Int(postingStart[numbers.lowerBound])..<Int(postingStart[numbers.upperBound]))
        let damaged = postingBytes.withUnsafeBufferPointer { postings -> Bool in
            for number in numbers {
                var offset = Int(postingStart[number])
                let end = Int(postingStart[number + 1])
                var ordinal = 0
                while offset < end {
                    let value = VarInt.read(postings, at: &offset)
                    ordinal += Int(value >> 2)
                    guard ordinal < count, offset <= end else { return true }
                    body(ordinal, value & 3)
                }
            }
            return false
        }
        if damaged { throw SearchIndexDamage("a posting list leaves its bounds") }
    }

    /// Words of one token each: the places stored in the postings decide the rank.
    /// A book is rank 0 when every word is in its title and the first word is its first title
    /// token, rank 1 when every word is in its title, rank 2 when some word needed the author,
    /// rank 3 when some word needed another field.
    ///
    /// Broad words come as whole bitmaps: kept for the words of a multi-word query
    /// (`BroadWordPlaces`), stored in the file for a one-letter prefix. The others are read a
    /// stretch of ordinals at a time (`PostingStretches`), and the words are combined stretch by
    /// stretch, in result order, until the matches are settled.
    private func collectByPlaces(
        _ words: [CompiledWord], hidden: Bitmap?, into matches: inout Matches,
        slotsPerStretch: Int, keepingBroadAnswers: Bool
    ) throws(SearchIndexDamage) {
        // Per word, whole bitmaps, a stored prefix's bitmaps or its postings read a stretch at a time.
        var whole: [BroadWordPlaces.Places?] = []
        var stored: [StoredPrefixes.View?] = []
        var read: [PostingStretches?] = []
        for word in words {
            // Broad words and stored prefixes come whole, copied, only when kept for the keys to
            // come (a broad prefix's answer kept is read to its end anyway). One search reads them
            // a stretch at a time, in place, and stops where the page and the count are settled.
            var kept: BroadWordPlaces.Places?, view: StoredPrefixes.View?
            if words.count > 1 {
                kept = keepingBroadAnswers ? try broadWords.places(of: word, in: self) : nil
            } else if keepingBroadAnswers {
                kept = try storedPlaces(of: word)
            } else if let code = word.storedPrefix {
                view = try storedPrefixes.view(ofPrefix: code, count: count)
            }
            whole.append(kept)
            stored.append(view)
            read.append(kept == nil && view == nil ? try PostingStretches(word, in: self) : nil)
        }
        var storedDamage: SearchIndexDamage?
        /// ORs word `index`'s places in `slots` into buffers indexed from `slots.lowerBound`.
        func fill(
            _ index: Int, _ slots: Range<Int>, _ postings: UnsafeBufferPointer<UInt8>,
            anywhere: UnsafeMutablePointer<UInt64>, inTitle: UnsafeMutablePointer<UInt64>,
            first: UnsafeMutablePointer<UInt64>?, inTitleOrAuthor: UnsafeMutablePointer<UInt64>
        ) -> Bool {
            if let view = stored[index] {
                do {
                    try view.fill(
                        slots, anywhere: anywhere, inTitle: inTitle, first: first, inTitleOrAuthor: inTitleOrAuthor)
                    return true
                } catch {
                    storedDamage = error
                    return false
                }
            }
            guard let places = whole[index] else {
                return read[index]!.fill(
                    slots: slots, count: count, postings: postings, anywhere: anywhere, inTitle: inTitle, first: first,
                    inTitleOrAuthor: inTitleOrAuthor)
            }
            for slot in 0..<slots.count {
                anywhere[slot] |= places.anywhere[slots.lowerBound + slot]
                inTitle[slot] |= places.inTitle[slots.lowerBound + slot]
                first?[slot] |= places.first[slots.lowerBound + slot]
                inTitleOrAuthor[slot] |= places.inTitleOrAuthor[slots.lowerBound + slot]
            }
            return true
        }
        let wordCount = (count + 63) / 64
        let stretch = Self.stretchSlots(wordCount: wordCount, atLeast: slotsPerStretch, reading: read.compactMap { $0 })
        // The first word's places (found, in the title, first, in the title or author), then
        // each other word's ANDed in.
        let combined = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 4 * stretch)
        let scratch = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 3 * stretch)
        defer { combined.deallocate(); scratch.deallocate() }
        let (found, inTitle, first, inTitleOrAuthor) = (
            combined.baseAddress!, combined.baseAddress! + stretch, combined.baseAddress! + 2 * stretch,
            combined.baseAddress! + 3 * stretch
        )
        let (wordFound, wordInTitle, wordInTitleOrAuthor) = (
            scratch.baseAddress!, scratch.baseAddress! + stretch, scratch.baseAddress! + 2 * stretch
        )
        let hiddenWords = hidden?.words ?? []
        let damaged = postingBytes.withUnsafeBufferPointer { postings in
            hiddenWords.withUnsafeBufferPointer { hidden -> Bool in
                for start in stride(from: 0, to: wordCount, by: stretch) {
                    let slots = start..<min(start + stretch, wordCount)
                    combined.update(repeating: 0)
                    guard
                        fill(
                            0, slots, postings, anywhere: found, inTitle: inTitle, first: first,
                            inTitleOrAuthor: inTitleOrAuthor)
                    else { return true }
                    for index in words.indices.dropFirst() {
                        scratch.update(repeating: 0)
                        guard
                            fill(
                                index, slots, postings, anywhere: wordFound, inTitle: wordInTitle, first: nil,
                                inTitleOrAuthor: wordInTitleOrAuthor)
                        else { return true }
                        for slot in 0..<slots.count {
                            found[slot] &= wordFound[slot]
                            inTitle[slot] &= wordInTitle[slot]
                            inTitleOrAuthor[slot] &= wordInTitleOrAuthor[slot]
                        }
                    }
                    for slot in 0..<slots.count {
                        var books = found[slot]
                        if !hidden.isEmpty { books &= ~hidden[start + slot] }
                        let title = inTitle[slot] & books
                        let titleOrAuthor = inTitleOrAuthor[slot] & books
                        matches.add(bits: title & first[slot], slot: start + slot, rank: 0)
                        matches.add(bits: title & ~first[slot], slot: start + slot, rank: 1)
                        matches.add(bits: titleOrAuthor & ~title, slot: start + slot, rank: 2)
                        matches.add(bits: books & ~titleOrAuthor, slot: start + slot, rank: 3)
                    }
                    if matches.isSettled { break }
                }
                return false
            }
        }
        if let storedDamage { throw storedDamage }
        if damaged { throw SearchIndexDamage("a posting list leaves its bounds") }
    }

    /// Slots (of 64 books) per stretch: `least` (1,024 is 8 KB a bitmap, within the first-level
    /// cache), more when the words read have so many tokens that visiting each at every stretch
    /// would cost more than their entries ("q" at ten million books: thousands of rare tokens).
    private static func stretchSlots(wordCount: Int, atLeast least: Int, reading words: [PostingStretches]) -> Int {
        let tokens = words.reduce(0) { $0 + $1.tokens }, postings = words.reduce(0) { $0 + $1.postings }
        var slots = least
        while slots < wordCount && tokens * (wordCount / slots) > postings { slots *= 2 }
        return max(1, min(slots, wordCount))
    }

    /// Where a word of one token occurs: stored in the file for a broad short prefix,
    /// otherwise read from its postings.
    package func places(of word: CompiledWord) throws(SearchIndexDamage) -> BroadWordPlaces.Places {
        if let stored = try storedPlaces(of: word) { return stored }
        return try placesFromPostings(of: word)
    }

    /// Where a word of one token occurs, when the file stores it (a broad one-letter prefix).
    private func storedPlaces(of word: CompiledWord) throws(SearchIndexDamage) -> BroadWordPlaces.Places? {
        guard let code = word.storedPrefix else { return nil }
        return try storedPrefixes.places(ofPrefix: code, count: count)
    }

    /// Where a word of one token occurs, read from its postings (all of them, as one stretch).
    package func placesFromPostings(of word: CompiledWord) throws(SearchIndexDamage) -> BroadWordPlaces.Places {
        let wordCount = (count + 63) / 64
        var read = try PostingStretches(word, in: self)
        var anywhere = [UInt64](repeating: 0, count: wordCount)
        var inTitle = [UInt64](repeating: 0, count: wordCount)
        var first = [UInt64](repeating: 0, count: wordCount)
        var inTitleOrAuthor = [UInt64](repeating: 0, count: wordCount)
        let intact = postingBytes.withUnsafeBufferPointer { postings in
            anywhere.withUnsafeMutableBufferPointer { anywhere in
                inTitle.withUnsafeMutableBufferPointer { inTitle in
                    first.withUnsafeMutableBufferPointer { first in
                        inTitleOrAuthor.withUnsafeMutableBufferPointer { inTitleOrAuthor in
                            read.fill(
                                slots: 0..<wordCount, count: count, postings: postings,
                                anywhere: anywhere.baseAddress!, inTitle: inTitle.baseAddress!,
                                first: first.baseAddress!, inTitleOrAuthor: inTitleOrAuthor.baseAddress!)
                        }
                    }
                }
            }
        }
        guard intact else { throw SearchIndexDamage("a posting list leaves its bounds") }
        return BroadWordPlaces.Places(
            anywhere: anywhere, inTitle: inTitle, first: first, inTitleOrAuthor: inTitleOrAuthor)
    }

    /// Some word has several tokens that must be consecutive: take the books of the rarest
    /// token range as candidates and judge each against the forward index.
    ///
    /// Where a candidate holds its rarest token bounds its rank: a book that holds it only in
    /// its author cannot rank above 2, one that holds it only in another field not above 3. So
    /// the candidates are judged in three passes, title, author, other fields, each in result
    /// order and merged with the books an earlier pass found for its rank, and each stops once
    /// its rank holds the page and the count is past its limit: then nothing a later pass
    /// finds can change the page. Without the passes, "日本" at ten million books judged some
    /// 600,000 books that carry the tag "日本文学", and "村上" every book by 村上春樹, to count
    /// matches nobody reads past 10,000.
    private func collectByJudging(_ words: [CompiledWord], hidden: Bitmap?, into matches: inout Matches)
        throws(SearchIndexDamage)
    {
        let best = words.min { $0.estimate < $1.estimate }!
        let wordCount = (count + 63) / 64
        // The candidates by the best place of their rarest token (the title, the author,
        // elsewhere), a bitmap each; then the books an earlier pass found to rank 2 or 3.
        let candidates = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 3 * wordCount)
        let found = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 2 * wordCount)
        defer { candidates.deallocate(); found.deallocate() }
        candidates.update(repeating: 0)
        found.update(repeating: 0)
        try forEachPosting(best.anchor) { ordinal, place in
            let pass = place < 2 ? 0 : Int(place) - 1
            candidates[pass * wordCount + ordinal >> 6] |= 1 << UInt64(ordinal & 63)
        }
        for slot in 0..<wordCount {
            let title = candidates[slot], author = candidates[wordCount + slot] & ~title
            candidates[wordCount + slot] = author
            candidates[2 * wordCount + slot] &= ~(title | author)
        }
        try keepOnlyBooksHoldingEveryToken(of: words, besides: best.anchor, in: candidates)
        var judge = ForwardIndexJudge(words: words, base: self)
        var total = 0
        // Pass 0 lists ranks 0 and 1, pass 1 rank 2, pass 2 rank 3.
        for (pass, listed) in [0...1, 2...2, 3...3].enumerated() {
            let lowest = listed.lowerBound
            for slot in 0..<wordCount {
                var judged = candidates[pass * wordCount + slot]
                if let hidden { judged &= ~hidden.words[slot] }
                try judge.check(slot: slot, bits: judged)
                var bits = judged | (lowest >= 2 ? found[(lowest - 2) * wordCount + slot] : 0)
                while bits != 0 {
                    if matches.counts[lowest] >= matches.cap && total >= matches.countLimit { return }
                    let bit = bits & (~bits &+ 1)
                    bits &= bits - 1
                    let ordinal = slot << 6 | bit.trailingZeroBitCount
                    var rank = lowest
                    if judged & bit != 0 {
                        matches.booksJudged += 1
                        guard let judgedRank = try judge.rank(ordinal) else { continue }
                        rank = judgedRank
                    }
                    if listed.contains(rank) {
                        matches.add(ordinal, rank: rank)
                        total += 1
                    } else {
                        found[(rank - 2) * wordCount + slot] |= bit
                    }
                }
            }
        }
    }

    /// Leaves among `candidates` (bitmaps over the base's books, one after another) only the
    /// books that hold a token of each of the words' token ranges (a word matches only where all
    /// its tokens are), for the ranges whose books cost less to read than judging the
    /// candidates they may rule out: "日本の" at ten million books
    /// has 40,000 candidates with "の" in their titles, of which one in five holds "日" and "本",
    /// and judging one costs about as much as reading twenty postings. A broad range's books
    /// come from `broadWords` when a multi-word query kept them.
    private func keepOnlyBooksHoldingEveryToken(
        of words: [CompiledWord], besides anchor: Range<Int>, in candidates: UnsafeMutableBufferPointer<UInt64>
    ) throws(SearchIndexDamage) {
        let candidateCount = postingCount(anchor)
        var ranges: [(range: Range<Int>, excluded: Set<UInt32>)] = []
        for word in words {
            ranges += word.exact.map { (Int($0)..<Int($0) + 1, []) }
            ranges.append((word.range, word.excluded))
        }
        for (range, excluded) in ranges where range != anchor {
            guard postingCount(range) <= SearchTuning.postingsReadPerJudgement * candidateCount else { continue }
            // The candidates are bitmaps of `holding.count` words one after another.
            func keep(_ holding: UnsafeBufferPointer<UInt64>) {
                for start in stride(from: 0, to: candidates.count, by: holding.count) {
                    for slot in holding.indices { candidates[start + slot] &= holding[slot] }
                }
            }
            if let kept = broadWords.kept(BroadWordPlaces.Key(range: range, excluded: excluded)) {
                kept.anywhere.withUnsafeBufferPointer(keep)
            } else {
                // One bitmap, not the four a kept word's places are: a third of the time.
                let holding = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: (count + 63) / 64)
                defer { holding.deallocate() }
                holding.update(repeating: 0)
                try forEachPosting(range) { ordinal, _ in holding[ordinal >> 6] |= 1 << UInt64(ordinal & 63) }
                keep(UnsafeBufferPointer(holding))
            }
        }
    }

    /// Ranks one base book on its entry in the forward index (token numbers), against compiled
    /// words, exactly as `SearchTerms.rank` would: the base's counterpart of `RowJudge`, for
    /// words of several tokens.
    /// Why not `SearchTerms` itself: the base holds token numbers, not text; `BookRank` is the rule they share.
    private struct ForwardIndexJudge {
        package let words: [CompiledWord]
        package let base: SearchIndexBase
        package var tokens: [UInt32] = []

        package init(words: [CompiledWord], base: SearchIndexBase) {
            self.words = words
            self.base = base
            tokens.reserveCapacity(64)
        }

        /// The book's rank, reading its other fields' tokens only when some word is in neither
        /// its title nor its author: most books a word is judged in are decided there.
        package mutating func rank(_ ordinal: Int) throws(SearchIndexDamage) -> Int? {
            var entry = try Entry(ordinal, in: base)
            tokens.removeAll(keepingCapacity: true)
            guard entry.decode(upTo: entry.titleCount + entry.authorCount, into: &tokens, base: base) else {
                throw SearchIndexDamage("a book's entry leaves its bounds")
            }
            // Counts read from a file can be anything: within the tokens there are.
            let titleEnd = min(entry.titleCount, tokens.count)
            let authorEnd = titleEnd + min(entry.authorCount, tokens.count - titleEnd)
            var otherStart: Int? = nil
            var damaged = false
            let rank = BookRank.rank(words: words.count) { word, field in
                switch field {
                case .title: return find(words[word], from: 0, to: titleEnd)
                case .author: return find(words[word], from: titleEnd, to: authorEnd)
                case .other:
                    if otherStart == nil {
                        otherStart = tokens.count
                        damaged = !entry.decode(upTo: .max, into: &tokens, base: base)
                    }
                    return find(words[word], from: otherStart!, to: tokens.count)
                }
            }
            if damaged { throw SearchIndexDamage("a book's entry leaves its bounds") }
            return rank
        }

        /// Where `word` first matches among `tokens[low..<high]`, or nil.
        private func find(_ word: CompiledWord, from low: Int, to high: Int) -> Int? {
            let length = word.exact.count + 1
            guard high - low >= length else { return nil }
            for at in low...(high - length) where matches(word, at: at) { return at }
            return nil
        }

        /// A book's entry in the forward index: its title's and author's token counts, then
        /// its tokens (title, author, other fields), read as far as a judgement needs.
        private struct Entry {
            package let titleCount: Int
            package let authorCount: Int
            private var offset: Int
            private let end: Int

            package init(_ ordinal: Int, in base: SearchIndexBase) throws(SearchIndexDamage) {
                var offset = Int(base.bookStart[ordinal])
                let end = Int(base.bookStart[ordinal + 1])
                let counts = base.bookBytes.withUnsafeBufferPointer { bytes -> (Int, Int)? in
                    guard offset < end, end <= bytes.count else { return nil }
                    let titleCount = Int(VarInt.read(bytes, at: &offset))
                    guard offset < end else { return nil }
                    return (titleCount, Int(VarInt.read(bytes, at: &offset)))
                }
                guard let counts, offset <= end else { throw SearchIndexDamage("a book's entry leaves its bounds") }
                (titleCount, authorCount, self.offset, self.end) = (counts.0, counts.1, offset, end)
            }

            /// Appends token numbers to `tokens` until it holds `count` or the entry ends; false
            /// when the entry is damaged.
            package mutating func decode(upTo count: Int, into tokens: inout [UInt32], base: SearchIndexBase) -> Bool {
                let vocabularySize = base.numberOfCode.count
                var offset = self.offset
                defer { self.offset = offset }
                return base.bookBytes.withUnsafeBufferPointer { bytes in
                    while offset < end && tokens.count < count {
                        let code = Int(VarInt.read(bytes, at: &offset))
                        guard code < vocabularySize, offset <= end else { return false }
                        tokens.append(base.numberOfCode[code])
                    }
                    return true
                }
            }
        }

        /// Checks the forward index of the books of one bitmap slot (`bits` of it) before they
        /// are judged. Only the blocks of books judged are checked, each once: checking the whole
        /// forward index at the first such query read all of it (`search --count 10000000`).
        package func check(slot: Int, bits: UInt64) throws(SearchIndexDamage) {
            guard bits != 0 else { return }
            let low = slot << 6 | bits.trailingZeroBitCount
            let high = slot << 6 | (63 - bits.leadingZeroBitCount)
            try base.bookStart.words.verify(base.bookStart.wordRange(low..<high + 2))
            let start = Int(base.bookStart[low]), end = Int(base.bookStart[high + 1])
            guard start <= end, end <= base.bookBytes.count else {
                throw SearchIndexDamage("a book's entry leaves its bounds")
            }
            try base.bookBytes.verify(start..<end)
        }

        private func matches(_ word: CompiledWord, at start: Int) -> Bool {
            for (offset, number) in word.exact.enumerated() where tokens[start + offset] != number { return false }
            let last = tokens[start + word.exact.count]
            return last &- UInt32(word.range.lowerBound) < UInt32(word.range.count)
                && (word.excluded.isEmpty || !word.excluded.contains(last))
        }
    }
}
