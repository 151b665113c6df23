/// What a book's tokens begin with, as two 64-bit masks: their first bytes and their first
/// two bytes (hashed). A word matches only at a token that begins with the word's first part
/// (an exact token, or the prefix), so a book whose masks lack that part's bits cannot match
/// it; a book whose masks have them may still not (hashes collide), and is judged on its text.
/// Lets a search skip most of a large overlay of changed books without reading their terms.
struct TokenStarts: Sendable {
    private var firstBytes: UInt64 = 0
    private var firstPairs: UInt64 = 0

    /// The masks of a book's title and author terms (tokens joined by spaces).
    init(title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>) {
        add(title)
        add(author)
    }

    private mutating func add(_ text: UnsafeBufferPointer<UInt8>) {
        TokenTable.forEachToken(text) { token in
            let (byte, pair) = Self.bits(token)
            firstBytes |= byte
            firstPairs |= pair
        }
    }

    /// The bits a book must have for `word` to match in it.
    init(requiredBy word: UnindexedSearch.Word) {
        let part = word.exact.first ?? word.prefixBytes
        part.withUnsafeBufferPointer { (firstBytes, firstPairs) = Self.bits($0) }
    }

    /// The bits a book must have for every one of `words` to match in it.
    init(requiredByAll words: [UnindexedSearch.Word]) {
        for word in words {
            let required = TokenStarts(requiredBy: word)
            firstBytes |= required.firstBytes
            firstPairs |= required.firstPairs
        }
    }

    func admits(_ required: TokenStarts) -> Bool {
        firstBytes & required.firstBytes == required.firstBytes && firstPairs & required.firstPairs == required.firstPairs
    }

    /// The first-byte bit of `bytes` (none when empty) and the first-pair bit (none when shorter than two).
    private static func bits(_ bytes: UnsafeBufferPointer<UInt8>) -> (byte: UInt64, pair: UInt64) {
        guard let first = bytes.first else { return (0, 0) }
        let byte: UInt64 = 1 << (UInt64(first) & 63)
        guard bytes.count >= 2 else { return (byte, 0) }
        // The top six bits of the product pick the bit. (Without the parentheses, `>>` binds
        // before `&*`: the shift went past 63 and every pair had no bit at all.)
        let pair: UInt64 = 1 << (((UInt64(first) << 8 | UInt64(bytes[1])) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        return (byte, pair)
    }
}
