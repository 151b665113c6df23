/// One word of a query (`SearchTerms.words`) as every search path matches it: exact tokens, then a
/// prefix, NFC-normalised as the stored terms are (`BookText`). `RowJudge` matches rows with it,
/// and it says when one query narrows another (`narrows`), which is what lets a path answer
/// from an earlier query's matches.
package struct QueryWord {
    package let exact: [[UInt8]]
    package let prefix: String
    package let prefixBytes: [UInt8]
    package let asciiPrefix: Bool

    package init(_ parts: [String]) {
        let normalized = parts.map(BookText.normalized)
        exact = normalized.dropLast().map { Array($0.utf8) }
        prefix = normalized.last!
        prefixBytes = Array(prefix.utf8)
        asciiPrefix = prefixBytes.allSatisfy { $0 < 0x80 }
    }

    /// Whether every book `words` match is matched by `earlier` too: each earlier word is
    /// matched by the word in its place, its tokens the same and its prefix a prefix of the
    /// next token or prefix ("his" → "hist", "o" → "o'b"), and words may be added after.
    /// Not the rule but a consequence of it (`SearchTerms` has no notion of an earlier query);
    /// `MatchingTests` pins it case by case, and the differential tests check every answer it gives.
    package static func narrows(_ words: [QueryWord], _ earlier: [QueryWord]) -> Bool {
        words.count >= earlier.count && zip(words, earlier).allSatisfy { $0.narrows($1) }
    }

    private func narrows(_ earlier: QueryWord) -> Bool {
        guard exact.count >= earlier.exact.count, exact.starts(with: earlier.exact) else { return false }
        let next = exact.count > earlier.exact.count ? exact[earlier.exact.count] : prefixBytes
        return next.starts(with: earlier.prefixBytes)
            && next.withUnsafeBufferPointer {
                SearchIndexBase.isCharacterPrefix(
                    earlier.prefix, prefixBytes: earlier.prefixBytes, asciiPrefix: earlier.asciiPrefix, of: $0)
            }
    }

    /// The letter number (`LetterPlaces`) of a query that is one ASCII letter or digit, the
    /// first key of every word: `LetterPlaces` alone ranks a book for it.
    package static func oneLetter(_ words: [QueryWord]) -> Int? {
        guard words.count == 1, words[0].exact.isEmpty, words[0].prefixBytes.count == 1 else { return nil }
        return LetterPlaces.number(of: words[0].prefixBytes[0])
    }

    /// The token that narrows the rows most cheaply: any match holds its bytes.
    package var longestToken: [UInt8] { (exact + [prefixBytes]).max { $0.count < $1.count }! }

    /// Whether the word's prefix begins `token` (which begins with its bytes) as characters.
    package func isCharacterPrefix(of token: UnsafeBufferPointer<UInt8>) -> Bool {
        SearchIndexBase.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: token)
    }

    /// For a word of one token, with the prefix bytes `wanted`: the byte offset of the first
    /// token of `text` (tokens joined by single spaces) that it begins, or nil; 0 is the
    /// text's first token. `isCharacterPrefix` is asked only of a token that begins with the
    /// bytes and goes on with a byte outside ASCII.
    package static func firstPlace(
        of wanted: UnsafeBufferPointer<UInt8>, asciiPrefix: Bool, in text: UnsafeBufferPointer<UInt8>,
        isCharacterPrefix: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Int? {
        guard let base = text.baseAddress else { return nil }
        // A byte loop: tokens and prefixes are a few bytes, too short to pay for calls.
        let (length, count) = (wanted.count, text.count)
        var start = 0
        while start + length <= count {
            var matched = 0
            while matched < length && base[start + matched] == wanted[matched] { matched += 1 }
            var end = start + matched
            if matched == length && asciiPrefix && (end == count || base[end] < 0x80) { return start }
            while end < count && base[end] != 0x20 { end += 1 }
            if matched == length && isCharacterPrefix(UnsafeBufferPointer(rebasing: text[start..<end])) { return start }
            start = end + 1
        }
        return nil
    }

    /// False when some token of the word is nowhere in the text as bytes, so it cannot
    /// match: a quick test before the text is cut into tokens.
    /// Not the rule but a test it implies (every token of a match is in the text), so a row it
    /// rejects cannot match; the rule itself is `matches` and `RowJudge`.
    package func mayMatch(
        title: UnsafeBufferPointer<UInt8>, author: UnsafeBufferPointer<UInt8>, other: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        func occurs(_ needle: [UInt8]) -> Bool {
            Self.occurs(needle, in: title) || Self.occurs(needle, in: author) || Self.occurs(needle, in: other)
        }
        return occurs(prefixBytes) && exact.allSatisfy(occurs)
    }

    private static func occurs(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) where text[start] == first {
            var matched = 1
            while matched < needle.count && text[start + matched] == needle[matched] { matched += 1 }
            if matched == needle.count { return true }
        }
        return false
    }

    /// Why not `SearchTerms` itself: as `RowTokens`, the stored tokens as bytes, never a `String`.
    package func matches(_ tokens: ArraySlice<UnsafeBufferPointer<UInt8>>) -> Bool {
        for (token, part) in zip(tokens, exact) where !token.elementsEqual(part) { return false }
        let last = tokens[tokens.startIndex + exact.count]
        guard last.starts(with: prefixBytes) else { return false }
        return SearchIndexBase.isCharacterPrefix(prefix, prefixBytes: prefixBytes, asciiPrefix: asciiPrefix, of: last)
    }
}
