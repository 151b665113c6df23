/// `SearchTerms.rank`'s rule over one book's tokens, shared by the index (which holds token
/// numbers) and the books table (token bytes), so that both rank every book alike: 0 when
/// every word is in the title and the first word begins it, 1 when every word is in the
/// title, 2 when some word needed the author, 3 when some word needed another field (the
/// series, the publisher, a tag), nil when some word is in none.
/// The one restatement of `SearchTerms.rank` on tokens, because the index holds numbers and the
/// books table bytes, neither the `String`s `SearchTerms` reads; every judge ranks through it.
package enum BookRank {
    /// The searched texts of a book, in the order a word is looked for in them.
    package enum Field { case title, author, other }

    /// How many ranks there are, 0 to 3.
    package static let count = 4

    /// - Parameters:
    ///   - words: how many query words there are.
    ///   - titleCount: the book's first `titleCount` tokens are its title's, the next
    ///     `authorCount` its author's, the rest its other fields' (`BookText.otherTerms`, whose
    ///     separators no word matches, so a word never spans two fields).
    ///   - length: how many consecutive tokens a word spans.
    ///   - matches: whether a word matches the tokens starting at a position.
    @inline(__always)
    package static func rank(
        words: Int, titleCount: Int, authorCount: Int, tokenCount: Int, length: (_ word: Int) -> Int,
        matches: (_ word: Int, _ at: Int) -> Bool
    ) -> Int? {
        func find(_ word: Int, from low: Int, to high: Int) -> Int? {
            let length = length(word)
            guard high - low >= length else { return nil }
            for at in low...(high - length) where matches(word, at) { return at }
            return nil
        }
        let authorEnd = titleCount + authorCount
        return rank(words: words) { word, field in
            switch field {
            case .title: find(word, from: 0, to: titleCount)
            case .author: find(word, from: titleCount, to: authorEnd)
            case .other: find(word, from: authorEnd, to: tokenCount)
            }
        }
    }

    /// The same rule over where each word first matches.
    /// - Parameter firstPlace: where a word first matches in a field, counted from the start of
    ///   that field's text, or nil; 0 is its first token. Only the title's place is used.
    @inline(__always)
    package static func rank(words: Int, firstPlace: (_ word: Int, _ field: Field) -> Int?) -> Int? {
        var allInTitle = true
        var allInTitleOrAuthor = true
        var firstAtStart = false
        for word in 0..<words {
            if let at = firstPlace(word, .title) {
                if word == 0 { firstAtStart = at == 0 }
            } else {
                allInTitle = false
                if firstPlace(word, .author) == nil {
                    if firstPlace(word, .other) == nil { return nil }
                    allInTitleOrAuthor = false
                }
            }
        }
        return allInTitle ? (firstAtStart ? 0 : 1) : allInTitleOrAuthor ? 2 : 3
    }
}
