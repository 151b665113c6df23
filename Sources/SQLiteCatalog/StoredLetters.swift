import BookCatalog

/// Where the broadest one-letter prefixes occur, stored in the index file beside the postings:
/// three bitmaps per letter (in a book at all, in its title, first in its title), as
/// `SearchIndexBase.places(of:)` would read them from the postings. Typing a letter after
/// other words ("the s", "war a") otherwise reads that letter's millions of postings at ten
/// million books (30–45 ms); stored, the bitmaps are copied from the mapped file (their pages
/// belong to the page cache, not to the process) and checked against their block checksums.
/// A letter is stored when its postings are at least a sixteenth of the books.
struct StoredLetters: Sendable {
    static let letters: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// Per letter of `letters`: 0 when it is not stored, else 1 + its place among the stored ones.
    let table: IndexArray<UInt64>
    /// Per stored letter, three bitmaps of `(count + 63) / 64` words: anywhere, in title, first.
    let bitmaps: IndexArray<UInt64>

    /// An index built in memory stores none: it reads the postings.
    static var none: StoredLetters { StoredLetters(table: IndexArray(copying: []), bitmaps: IndexArray(copying: [])) }

    /// The letters a base stores, with their compiled words, in `letters` order.
    static func chosen(for base: SearchIndexBase) -> [(letter: Int, word: SearchIndexBase.CompiledWord)] {
        letters.indices.compactMap { letter in
            guard let words = base.compile(SearchTerms(String(UnicodeScalar(letters[letter])))), words.count == 1,
                  words[0].letter == letters[letter], base.postingCount(words[0].range) * 16 >= base.count
            else { return nil }
            return (letter, words[0])
        }
    }

    /// The table written for `chosen`.
    static func table(for chosen: [(letter: Int, word: SearchIndexBase.CompiledWord)]) -> [UInt64] {
        var table = [UInt64](repeating: 0, count: letters.count)
        for (place, entry) in chosen.enumerated() { table[entry.letter] = UInt64(place + 1) }
        return table
    }

    /// Refuses a table and bitmaps that do not fit a base of `count` books.
    func validate(count: Int) throws(SearchIndexDamage) {
        guard !table.isEmpty || bitmaps.isEmpty else { throw SearchIndexDamage("the snapshot's letter bitmaps have no table") }
        guard !table.isEmpty else { return }
        let perLetter = 3 * ((count + 63) / 64)
        let stored = perLetter == 0 ? 0 : bitmaps.count / perLetter
        try table.verifyAll()
        guard table.count == Self.letters.count, bitmaps.count == stored * perLetter, table.allSatisfy({ $0 <= UInt64(stored) })
        else { throw SearchIndexDamage("the snapshot's letter bitmaps do not fit its books") }
    }

    /// The stored places of `letter` for a base of `count` books, copied out; nil when not stored.
    func places(ofLetter letter: UInt8, count: Int) throws(SearchIndexDamage) -> BroadWordPlaces.Places? {
        guard !table.isEmpty, let index = Self.letters.firstIndex(of: letter), table[index] != 0 else { return nil }
        let wordCount = (count + 63) / 64
        let start = (Int(table[index]) - 1) * 3 * wordCount
        guard start + 3 * wordCount <= bitmaps.count else { throw SearchIndexDamage("a letter's bitmaps leave the snapshot") }
        try bitmaps.verify(start..<start + 3 * wordCount)
        return bitmaps.withUnsafeBufferPointer { words in
            func bitmap(_ number: Int) -> [UInt64] {
                var bitmap = Array(UnsafeBufferPointer(rebasing: words[start + number * wordCount..<start + (number + 1) * wordCount]))
                // No bit past the last book, whatever the file says: every set bit becomes an ordinal.
                if count % 64 != 0 { bitmap[wordCount - 1] &= (1 << UInt64(count % 64)) - 1 }
                return bitmap
            }
            return BroadWordPlaces.Places(anywhere: bitmap(0), inTitle: bitmap(1), first: bitmap(2))
        }
    }
}
