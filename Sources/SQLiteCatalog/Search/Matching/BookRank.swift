/// `SearchTerms.rank`'s rule over one book's tokens, shared by the index (which holds token
/// numbers) and the books table (token bytes), so that both rank every book alike: 0 when
/// every word is in the title and the first word begins it, 1 when every word is in the
/// title, 2 when some word needed the author, nil when some word is in neither.
enum BookRank {
    /// - Parameters:
    ///   - words: how many query words there are.
    ///   - titleCount: the book's first `titleCount` tokens are its title's, the rest its author's.
    ///   - length: how many consecutive tokens a word spans.
    ///   - matches: whether a word matches the tokens starting at a position.
    @inline(__always)
    static func rank(
        words: Int, titleCount: Int, tokenCount: Int, length: (_ word: Int) -> Int,
        matches: (_ word: Int, _ at: Int) -> Bool
    ) -> Int? {
        func find(_ word: Int, from low: Int, to high: Int) -> Int? {
            let length = length(word)
            guard high - low >= length else { return nil }
            for at in low...(high - length) where matches(word, at) { return at }
            return nil
        }
        return rank(words: words) { word, inTitle in
            inTitle ? find(word, from: 0, to: titleCount) : find(word, from: titleCount, to: tokenCount)
        }
    }

    /// The same rule over where each word first matches.
    /// - Parameter firstPlace: where a word first matches in the title (`inTitle`) or in the
    ///   author, counted from the start of that text, or nil; 0 is its first token.
    @inline(__always)
    static func rank(words: Int, firstPlace: (_ word: Int, _ inTitle: Bool) -> Int?) -> Int? {
        var allInTitle = true
        var firstAtStart = false
        for word in 0..<words {
            if let at = firstPlace(word, true) {
                if word == 0 { firstAtStart = at == 0 }
            } else {
                allInTitle = false
                if firstPlace(word, false) == nil { return nil }
            }
        }
        return allInTitle ? (firstAtStart ? 0 : 1) : 2
    }
}
