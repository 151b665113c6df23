/// What a book's tokens begin with, as three 64-bit masks: their first bytes, their first
/// two bytes and their first three bytes (hashed). A word matches only at a token that begins
/// with the word's first part (an exact token, or the prefix), so a book whose masks lack that
/// part's bits cannot match it; a book whose masks have them may still not (hashes collide),
/// and is judged on its text. Lets a search skip most of a large overlay of changed books, or
/// of an earlier scan's matches, without reading their terms.
///
/// A token beginning beyond ASCII is told by its whole first character instead: its first
/// byte is shared by thousands of characters (every CJK character from U+6000 to U+6FFF begins
/// with 0xE6), and as a bit it was the bit of "f". Its first-byte bit is one of the 26 that
/// folded terms never use (those of the capitals), picked by the character, and its pair bit
/// too: "日" is no longer admitted by the books whose tokens begin with "f" or with "旦".
/// (A word's first part is whole characters, so it begins with the same character as every
/// token it matches, and picks the same bits.)
/// Not the rule itself but a mask that only rules rows out before `RowJudge` judges them: a row
/// it keeps may still not match, and one it drops cannot (the differential tests check both).
package struct TokenStarts: Sendable, BitwiseCopyable {
    private var firstBytes: UInt64 = 0
    private var firstPairs: UInt64 = 0
    private var firstTriples: UInt64 = 0

    /// The masks of a book's title, author and other terms (tokens joined by spaces). The other
    /// fields' separator only sets the bit of its byte, which lets a few more books through and
    /// rules none out.
    package init(
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) {
        add(title)
        add(author)
        add(other)
    }

    private mutating func add(_ text: UnsafeBufferPointer<UInt8>) {
        TokenTable.forEachToken(text) { token in
            let (byte, pair, triple) = Self.bits(token)
            firstBytes |= byte
            firstPairs |= pair
            firstTriples |= triple
        }
    }

    /// The bits a book must have for `word` to match in it.
    package init(requiredBy word: QueryWord) {
        let part = word.exact.first ?? word.prefixBytes
        part.withUnsafeBufferPointer { (firstBytes, firstPairs, firstTriples) = Self.bits($0) }
    }

    /// The bits a book must have for every one of `words` to match in it.
    package init(requiredByAll words: [QueryWord]) {
        for word in words {
            let required = TokenStarts(requiredBy: word)
            firstBytes |= required.firstBytes
            firstPairs |= required.firstPairs
            firstTriples |= required.firstTriples
        }
    }

    /// The first-byte bits alone (`FollowingBytes`).
    package var firstByteBits: UInt64 { firstBytes }

    package func admits(_ required: TokenStarts) -> Bool {
        firstBytes & required.firstBytes == required.firstBytes
            && firstPairs & required.firstPairs == required.firstPairs
            && firstTriples & required.firstTriples == required.firstTriples
    }

    /// The first-byte bit of `bytes` (none when empty), the first-pair bit (none when shorter
    /// than two) and the first-triple bit (none when shorter than three).
    private static func bits(_ bytes: UnsafeBufferPointer<UInt8>) -> (byte: UInt64, pair: UInt64, triple: UInt64) {
        guard let first = bytes.first else { return (0, 0, 0) }
        // Three bytes of a token beginning beyond ASCII are its first character or part of it:
        // the same bytes begin every token a word beginning with them matches.
        let triple: UInt64 =
            bytes.count < 3 ? 0 : Self.twoBits(UInt64(first) << 16 | UInt64(bytes[1]) << 8 | UInt64(bytes[2]))
        if first >= 0x80 {
            var character: UInt64 = 0
            for byte in bytes.prefix(Self.utf8Length(leadingByte: first)) { character = character << 8 | UInt64(byte) }
            let mixed = character &* 0x9E37_79B9_7F4A_7C15
            // Bits 1...26: where the capitals' first bytes (0x41-0x5A) would go; terms are folded.
            return (1 << (1 + (mixed >> 32) % 26), 1 << (mixed >> 58), triple)
        }
        let byte: UInt64 = 1 << (UInt64(first) & 63)
        guard bytes.count >= 2 else { return (byte, 0, 0) }
        return (byte, Self.bit(UInt64(first) << 8 | UInt64(bytes[1])), triple)
    }

    /// One of 64 bits, picked by the top six bits of the product. (Without the parentheses,
    /// `>>` binds before `&*`: the shift went past 63 and every pair had no bit at all.)
    private static func bit(_ value: UInt64) -> UInt64 {
        1 << ((value &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    /// Two of 64 bits (the same one, now and then), picked by two sixes of the product's top
    /// bits. A book has a dozen tokens of three bytes or more: with one bit each, a word's
    /// triple was mistaken for another's in one book in eight; with two, in one in twenty
    /// ("mur" after "mu", at ten million books, judged 15,000 of "mu"'s 119,000 title matches,
    /// then 8,300).
    private static func twoBits(_ value: UInt64) -> UInt64 {
        let mixed = value &* 0x9E37_79B9_7F4A_7C15
        return 1 << (mixed >> 58) | 1 << ((mixed >> 52) & 63)
    }

    /// How many bytes the UTF-8 character beginning with `byte` (0x80 or above) takes.
    private static func utf8Length(leadingByte byte: UInt8) -> Int {
        byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    }
}
