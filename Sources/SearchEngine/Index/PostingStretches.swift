/// Where one word of one token occurs (`SearchIndexBase.CompiledWord`, every token number its
/// range covers), read from its posting lists one stretch of ordinals at a time into bitmaps of
/// that stretch only.
///
/// Why by stretches: at ten million books a whole bitmap is 1.25 MB, and setting the bits of a
/// few hundred thousand postings in three of them (four now) missed the core's caches at every posting
/// (a word like "history": `search --count 10000000`). The
/// bitmaps of one stretch stay in the first-level cache, and a search that has its page and
/// its count before the last stretch stops there (`SearchIndexBase.Matches.isSettled`).
///
/// Each token's list is ascending by ordinal, so each keeps a cursor: the entry it read ahead,
/// the first at or past the stretch being filled.
package struct PostingStretches {
    private struct Cursor {
        /// The offset of the entry after `ordinal`'s, and the end of the token's list.
        package var offset: Int
        package let end: Int
        package var ordinal: Int
        package var place: UInt32
    }

    /// The tokens with entries left, in no order.
    private var cursors: [Cursor] = []
    /// Entries in all, for choosing a stretch length.
    package let postings: Int
    package var tokens: Int { cursors.count }

    /// Starts at the first entry of every token of `word`'s range it does not exclude.
    /// Throws when the lists fail their checks or an entry names a book past `base.count`.
    package init(_ word: SearchIndexBase.CompiledWord, in base: SearchIndexBase) throws(SearchIndexDamage) {
        let numbers = word.range
        postings = word.estimate
        guard !numbers.isEmpty else { return }
        try base.postingBytes.verify(
            Int(base.postingStart[numbers.lowerBound])..<Int(base.postingStart[numbers.upperBound]))
        cursors.reserveCapacity(numbers.count - word.excluded.count)
        let count = base.count
        let damaged = base.postingBytes.withUnsafeBufferPointer { postings -> Bool in
            for number in numbers where word.excluded.isEmpty || !word.excluded.contains(UInt32(number)) {
                var offset = Int(base.postingStart[number])
                let end = Int(base.postingStart[number + 1])
                guard offset < end else { continue }
                let value = VarInt.read(postings, at: &offset)
                guard Int(value >> 2) < count, offset <= end else { return true }
                cursors.append(Cursor(offset: offset, end: end, ordinal: Int(value >> 2), place: value & 3))
            }
            return false
        }
        if damaged { throw SearchIndexDamage("a posting list leaves its bounds") }
    }

    /// Sets, for the entries of the slots `slots` (64 ordinals each), the bit of each book in
    /// `anywhere`, in `inTitle` when the token is in its title, in `first` when it is its first
    /// title token, in `inTitleOrAuthor` unless it is only in the book's other fields. The buffers hold `slots.count` words, indexed from `slots.lowerBound`, and
    /// are only ORed into. Stretches must be asked for in ascending order. False when an entry
    /// leaves its list or names a book past `count` (the index is damaged).
    package mutating func fill(
        slots: Range<Int>, count: Int, postings: UnsafeBufferPointer<UInt8>,
        anywhere: UnsafeMutablePointer<UInt64>, inTitle: UnsafeMutablePointer<UInt64>,
        first: UnsafeMutablePointer<UInt64>?, inTitleOrAuthor: UnsafeMutablePointer<UInt64>
    ) -> Bool {
        let end = slots.upperBound << 6
        let base = slots.lowerBound
        var index = 0
        while index < cursors.count {
            var cursor = cursors[index]
            var exhausted = false
            while cursor.ordinal < end {
                let slot = (cursor.ordinal >> 6) - base
                let bit: UInt64 = 1 << UInt64(cursor.ordinal & 63)
                // Without branches: places come in no order a predictor could learn.
                anywhere[slot] |= bit
                inTitle[slot] |= cursor.place <= 1 ? bit : 0
                first?[slot] |= cursor.place == 0 ? bit : 0
                inTitleOrAuthor[slot] |= cursor.place <= 2 ? bit : 0
                guard cursor.offset < cursor.end else { exhausted = true; break }
                let value = VarInt.read(postings, at: &cursor.offset)
                cursor.ordinal += Int(value >> 2)
                cursor.place = value & 3
                guard cursor.ordinal < count, cursor.offset <= cursor.end else { return false }
            }
            if exhausted {
                cursors.swapAt(index, cursors.count - 1)
                cursors.removeLast()
            } else {
                cursors[index] = cursor
                index += 1
            }
        }
        return true
    }
}
