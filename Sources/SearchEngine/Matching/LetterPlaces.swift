/// Where a book's tokens begin with each ASCII letter or digit as a whole character ("c" begins
/// "cafe" and "c", not "c̈x"): in the title, first in the title, in the author, in another
/// field. That is all a one-letter query asks of a book, so `BooksCopy` answers the first key of
/// a word, its broadest query, from these 16 bytes a book, without reading the book's text.
/// Walks of the copy are bound by memory, so the fourth place is packed into the spare bits
/// rather than growing a book to 24 bytes.
package struct LetterPlaces: BitwiseCopyable {
    /// Bits 0–35: bit n for the letter or digit numbered n (`number(of:)`) beginning a title
    /// token; bits 36–57: the other fields' letters 0–21; bits 58–63: the first title token's
    /// letter number + 1, or 0.
    private var title: UInt64 = 0
    /// Bits 0–35: the author's letters; bits 36–49: the other fields' letters 22–35.
    private var author: UInt64 = 0

    package init(
        title titleTerms: UnsafeBufferPointer<UInt8>, author authorTerms: UnsafeBufferPointer<UInt8>,
        other otherTerms: UnsafeBufferPointer<UInt8>
    ) {
        var first = true
        TokenTable.forEachToken(titleTerms) { token in
            let letter = Self.letter(beginning: token)
            if let letter { title |= 1 << letter }
            if first, let letter { title |= UInt64(letter + 1) << 58 }
            first = false
        }
        TokenTable.forEachToken(authorTerms) { token in
            if let letter = Self.letter(beginning: token) { author |= 1 << letter }
        }
        TokenTable.forEachToken(otherTerms) { token in
            guard let letter = Self.letter(beginning: token) else { return }
            if letter < Self.otherLettersInTitleWord {
                title |= 1 << (36 + letter)
            } else {
                author |= 1 << (36 + letter - Self.otherLettersInTitleWord)
            }
        }
    }

    /// How many of the other fields' letters the title's word holds; the author's holds the rest.
    private static let otherLettersInTitleWord = 22

    /// `BookRank`'s rank of this book for a query of the one letter numbered `letter`.
    /// Not `BookRank` over the tokens: a one-letter query ranks every row of the copy, and the bits
    /// answer without reading its text (speed; `keys --no-index`, one letter).
    package func rank(ofLetter letter: Int) -> Int? {
        if title >> 58 == UInt64(letter + 1) { return 0 }
        if title & 1 << letter != 0 { return 1 }
        if author & 1 << letter != 0 { return 2 }
        let inOther =
            letter < Self.otherLettersInTitleWord
            ? title & 1 << (36 + letter) : author & 1 << (36 + letter - Self.otherLettersInTitleWord)
        return inOther != 0 ? 3 : nil
    }

    /// 0–25 for a–z, 26–35 for 0–9; nil for any other byte.
    package static func number(of byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): 26 + Int(byte - UInt8(ascii: "0"))
        default: nil
        }
    }

    /// The number of the letter that is the token's first character, if it is one.
    private static func letter(beginning token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = token.first, let number = number(of: first) else { return nil }
        if token.count == 1 || token[1] < 0x80 { return number }
        let prefix = [first]
        let isCharacter = SearchIndexBase.isCharacterPrefix(
            String(decoding: prefix, as: UTF8.self), prefixBytes: prefix,
            asciiPrefix: true, of: token)
        return isCharacter ? number : nil
    }
}
