import BookCatalog

/// Where the broadest short prefixes occur, stored in the index file beside the postings: four
/// bitmaps per prefix (in a book at all, in its title, first in its title, in its title or
/// author), as
/// `SearchIndexBase.places(of:)` would read them from the postings. Typing a short word after
/// other words ("the s", "war an", "history of") otherwise reads its millions of postings at
/// ten million books, longer than a key may take (`search --count 10000000`, multi-word); stored, the bitmaps are copied from the mapped file (their
/// pages belong to the page cache, not to the process) and checked against their block
/// checksums. A prefix of one to three ASCII letters or digits is stored when its postings are
/// at least a sixteenth of the books: at ten million sample books, 21 letters, 23 pairs ("an",
/// "th", "of") and 6 triples ("the", "and").
package struct StoredPrefixes: Sendable {
    package static let characters: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    package static let longest = 3

    /// The stored prefixes, ascending, each as its bytes packed big-endian into the low 24
    /// bits ("an" is 0x616E00): the place of a prefix here is the place of its bitmaps.
    package let table: IndexArray<UInt64>
    /// Per stored prefix, `bitmapsPerPrefix` bitmaps of `(count + 63) / 64` words: anywhere, in
    /// title, first, in title or author.
    package let bitmaps: IndexArray<UInt64>
    package static let bitmapsPerPrefix = 4

    /// An index built in memory stores none: it reads the postings.
    package static var none: StoredPrefixes {
        StoredPrefixes(table: IndexArray(copying: []), bitmaps: IndexArray(copying: []))
    }

    /// The code of a prefix that may be stored, or nil (too long, or a byte outside `characters`).
    package static func code(_ prefix: some Collection<UInt8>) -> UInt64? {
        let bytes = Array(prefix)
        guard (1...longest).contains(bytes.count), bytes.allSatisfy(characters.contains) else { return nil }
        return (0..<longest).reduce(0) { code, index in code << 8 | UInt64(index < bytes.count ? bytes[index] : 0) }
    }

    /// The prefixes a base stores, with their compiled words, in code order. Candidates are
    /// the beginnings of the base's own tokens, so only prefixes that occur are looked at.
    package static func chosen(for base: SearchIndexBase) -> [(code: UInt64, word: SearchIndexBase.CompiledWord)] {
        var candidates: Set<[UInt8]> = []
        for number in 0..<base.vocabularySize {
            base.withToken(number) { token in
                for length in 1...min(longest, token.count) where code(token.prefix(length)) != nil {
                    candidates.insert(Array(token.prefix(length)))
                }
            }
        }
        return candidates.compactMap { prefix -> (code: UInt64, word: SearchIndexBase.CompiledWord)? in
            guard base.postingCount(base.prefixRange(prefix)) * SearchTuning.broadShare >= base.count,
                let words = base.compile(SearchTerms(String(decoding: prefix, as: UTF8.self))), words.count == 1,
                let code = words[0].storedPrefix, code == Self.code(prefix)
            else { return nil }
            return (code, words[0])
        }.sorted { $0.code < $1.code }
    }

    /// Refuses a table and bitmaps that do not fit a base of `count` books.
    package func validate(count: Int) throws(SearchIndexDamage) {
        let perPrefix = Self.bitmapsPerPrefix * ((count + 63) / 64)
        try table.verifyAll()
        let ascending = zip(table.dropFirst(), table).allSatisfy { $0 > $1 }
        let wellFormed = table.allSatisfy { code in
            let bytes = (0..<Self.longest).map {
                UInt8(truncatingIfNeeded: code >> UInt64(8 * (Self.longest - 1 - $0)))
            }
            let length = bytes.firstIndex(of: 0) ?? Self.longest
            return code >> UInt64(8 * Self.longest) == 0 && Self.code(bytes[..<length]) == code
                && bytes[length...].allSatisfy { $0 == 0 }
        }
        let (expected, overflow) = table.count.multipliedReportingOverflow(by: perPrefix)
        guard ascending, wellFormed, !overflow, bitmaps.count == expected else {
            throw SearchIndexDamage("the snapshot's prefix bitmaps do not fit its books")
        }
    }

    /// The stored places of the prefix with `code` for a base of `count` books, copied out;
    /// nil when not stored.
    package func places(ofPrefix code: UInt64, count: Int) throws(SearchIndexDamage) -> BroadWordPlaces.Places? {
        guard let view = try view(ofPrefix: code, count: count) else { return nil }
        let (start, wordCount, perPrefix) = (view.start, view.wordCount, Self.bitmapsPerPrefix * view.wordCount)
        try bitmaps.verify(start..<start + perPrefix)
        return bitmaps.withUnsafeBufferPointer { words in
            func bitmap(_ number: Int) -> [UInt64] {
                var bitmap = Array(
                    UnsafeBufferPointer(rebasing: words[start + number * wordCount..<start + (number + 1) * wordCount]))
                // No bit past the last book, whatever the file says: every set bit becomes an ordinal.
                if count % 64 != 0 { bitmap[wordCount - 1] &= (1 << UInt64(count % 64)) - 1 }
                return bitmap
            }
            return BroadWordPlaces.Places(
                anywhere: bitmap(0), inTitle: bitmap(1), first: bitmap(2), inTitleOrAuthor: bitmap(3))
        }
    }

    /// The stored places of the prefix with `code` where they lie in the mapped file, for a
    /// search that reads them a stretch at a time: a search that settles its page and count in
    /// the first stretches (a one-letter query) neither copies nor checks the rest (`perf stat`
    /// of `bookshelf search a` at ten million books). Nil when not stored.
    package func view(ofPrefix code: UInt64, count: Int) throws(SearchIndexDamage) -> View? {
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle] < code { low = middle + 1 } else { high = middle }
        }
        guard low < table.count, table[low] == code else { return nil }
        let wordCount = (count + 63) / 64
        let perPrefix = Self.bitmapsPerPrefix * wordCount
        let start = low * perPrefix
        guard start + perPrefix <= bitmaps.count else {
            throw SearchIndexDamage("a prefix's bitmaps leave the snapshot")
        }
        return View(bitmaps: bitmaps, start: start, wordCount: wordCount, count: count)
    }

    /// One stored prefix's four bitmaps in the mapped file.
    package struct View {
        let bitmaps: IndexArray<UInt64>
        let start: Int
        let wordCount: Int
        let count: Int

        /// ORs the bitmaps' words of `slots` into buffers indexed from `slots.lowerBound`,
        /// checking the blocks they lie in first; no bit past the last book, whatever the file says.
        func fill(
            _ slots: Range<Int>, anywhere: UnsafeMutablePointer<UInt64>, inTitle: UnsafeMutablePointer<UInt64>,
            first: UnsafeMutablePointer<UInt64>?, inTitleOrAuthor: UnsafeMutablePointer<UInt64>
        ) throws(SearchIndexDamage) {
            let lastBits: UInt64 = count % 64 == 0 ? ~0 : (1 << UInt64(count % 64)) - 1
            func or(_ number: Int, into target: UnsafeMutablePointer<UInt64>?) throws(SearchIndexDamage) {
                guard let target else { return }
                let from = start + number * wordCount + slots.lowerBound
                try bitmaps.verify(from..<from + slots.count)
                bitmaps.withUnsafeBufferPointer { words in
                    for slot in 0..<slots.count {
                        let bits = words[from + slot]
                        target[slot] |= slots.lowerBound + slot == wordCount - 1 ? bits & lastBits : bits
                    }
                }
            }
            try or(0, into: anywhere)
            try or(1, into: inTitle)
            try or(2, into: first)
            try or(3, into: inTitleOrAuthor)
        }
    }
}
