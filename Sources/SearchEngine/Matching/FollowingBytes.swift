/// What a kept scan keeps beside each of its rows (`ScannedRows`, 8 bytes), so that a narrower
/// query's walk of them passes over most rows on it, read in order, without reading the rows
/// where they lie in the table's copy: which bytes follow the scan's last word in the row's
/// tokens. A query typed after "z" is "zz", "ze" or "zo": a row whose tokens beginning with
/// "z" go on with no "z" cannot match "zz".
///
/// Why: "zz" after "z", at ten million books, read the token starts of the 924,000 rows "z"
/// matched where they lie in the copy (`keys --count 10000000 --no-index`). A mask of every token's first two bytes
/// (hashed) still let 65,000 of them through to be read; this lets through the rows with a
/// token beginning "zz", and those whose byte after "z" shares its six low bits with "z"'s.
///
/// Only a last word of one or two bytes is followed: one of three or more (a whole word, as
/// often as not) is followed by a word, and the mask is then of every token's first byte
/// (`TokenStarts`), for that word's first byte.
/// Not the rule itself but a mask that only rules rows out, as `TokenStarts`: a row it drops
/// cannot match, and the differential tests check that it never drops one that does.
package struct FollowingBytes {
    /// Where the followed word is among the scan's words, and its bytes; nil when the mask is of first bytes.
    private let anchor: (word: Int, bytes: [UInt8])?

    /// For the rows matched by `words`.
    package init(narrowing words: [QueryWord]) {
        guard let last = words.last, last.exact.isEmpty, (1...2).contains(last.prefixBytes.count) else {
            anchor = nil
            return
        }
        anchor = (words.count - 1, last.prefixBytes)
    }

    /// A row's mask: a bit for each byte that follows the anchor in a token beginning with it,
    /// or for each token's first byte.
    package func mask(
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) -> UInt64 {
        guard let (_, bytes) = anchor else {
            return TokenStarts(title: title, author: author, other: other).firstByteBits
        }
        var mask: UInt64 = 0
        func add(_ text: UnsafeBufferPointer<UInt8>) {
            TokenTable.forEachToken(text) { token in
                guard token.count > bytes.count, token.starts(with: bytes) else { return }
                mask |= Self.bit(token[bytes.count])
            }
        }
        add(title)
        add(author)
        add(other)
        return mask
    }

    /// The bits a row's mask must have for `words`, a query narrowing the scan's, to match in it
    /// (none, when the mask tells nothing of them). Each word matches at a token that begins
    /// with the word's first part (`TokenStarts`); the followed word's first part goes on
    /// after the anchor, when it is longer, and so does that token.
    package func required(by words: [QueryWord]) -> UInt64 {
        guard let (word, bytes) = anchor else { return TokenStarts(requiredByAll: words).firstByteBits }
        guard word < words.count else { return 0 }
        let part = words[word].exact.first ?? words[word].prefixBytes
        return part.count > bytes.count ? Self.bit(part[bytes.count]) : 0
    }

    /// The numbers of the rows whose masks (`masks`, one a row, by number) have `required`, in
    /// order. One tight pass: a lazy filter, asked again at each step of a walk's read-ahead,
    /// took a third of "zz"'s walk.
    package static func rows(_ masks: ArraySlice<UInt64>, having required: UInt64) -> [UInt32] {
        var rows: [UInt32] = []
        for row in masks.indices where masks[row] & required == required { rows.append(UInt32(row)) }
        return rows
    }

    /// A byte's bit, by its six low bits: each lowercase letter has one of its own (the digits
    /// share those of "p" to "y").
    private static func bit(_ byte: UInt8) -> UInt64 { 1 << (UInt64(byte) & 63) }
}
