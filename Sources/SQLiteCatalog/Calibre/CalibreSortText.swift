/// The sort texts calibre derives from a title and an author, as its default tweaks make them
/// (calibre's `ebooks/metadata/__init__.py`: `title_sort` with the English articles, and
/// `author_to_author_sort` with the "comma" method), so that a book Bookshelf saves sorts in
/// calibre where calibre would have put it.
enum CalibreSortText {
    /// "The Hobbit" → "Hobbit, The": a leading "A", "An" or "The" (any case, then white space)
    /// moves to the end, after a comma; a quote around the whole title is dropped first.
    static func titleSort(_ raw: String) -> String {
        var title = trimmed(raw)
        title = withoutQuotes(title)
        let scalars = Array(title.unicodeScalars)
        for article in articles {
            let word = Array(article.unicodeScalars)
            guard scalars.count > word.count,
                zip(scalars, word).allSatisfy({ lowered($0) == $1 }),
                scalars[word.count].properties.isWhitespace
            else { continue }
            var end = word.count
            while end < scalars.count, scalars[end].properties.isWhitespace { end += 1 }
            let prefix = String(String.UnicodeScalarView(scalars[..<end]))
            let rest = String(String.UnicodeScalarView(scalars[end...]))
            return trimmed(withoutQuotes(rest + ", " + prefix))
        }
        return trimmed(title)
    }

    /// "J. R. R. Tolkien" → "Tolkien, J. R. R."; a name with a comma, one word, or a word of
    /// `copyWords` ("Acme Inc.") is kept as it is; titles before it and suffixes after it stay
    /// out of the surname ("Dr Jane Smith Jr" → "Smith, Jane Jr").
    static func authorSort(_ author: String) -> String {
        guard !author.isEmpty else { return "" }
        let bare = trimmed(withoutBracketedText(author))
        if bare.contains(",") { return author }
        var tokens = bare.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard tokens.count >= 2 else { return author }
        if tokens.contains(where: { copyWords.contains($0.lowercased()) }) { return author }
        guard let first = tokens.firstIndex(where: { !prefixes.contains($0.lowercased()) }) else { return author }
        guard let last = tokens.lastIndex(where: { !suffixes.contains($0.lowercased()) }), last >= first else {
            return author
        }
        let suffix = tokens[(last + 1)...].joined(separator: " ")
        var sorted = [tokens[last]] + tokens[first..<last]
        let names = sorted.count
        if !suffix.isEmpty { sorted.append(suffix) }
        if names > 1 { sorted[0] += "," }
        tokens = sorted
        return tokens.joined(separator: " ")
    }

    /// calibre's default `per_language_title_sort_articles` for English.
    private static let articles = ["a", "the", "an"]
    private static let copyWords: Set<String> = Set(
        [
            "Agency", "Corporation", "Company", "Co.", "Council", "Committee", "Inc.", "Institute", "National",
            "Society", "Club", "Team", "Software", "Games", "Entertainment", "Media", "Studios",
        ].map { $0.lowercased() })
    private static let prefixes: Set<String> = withPeriods(["mr", "mrs", "ms", "dr", "prof"])
    private static let suffixes: Set<String> = withPeriods(
        ["jr", "sr", "inc", "ph.d", "phd", "md", "m.d", "i", "ii", "iii", "iv", "junior", "senior"])

    private static func withPeriods(_ words: [String]) -> Set<String> { Set(words + words.map { $0 + "." }) }

    /// calibre's `quote_pairs`: an opening quote and the closing ones that match it.
    private static let quotePairs: [Character: Set<Character>] = [
        "\"": ["\""], "'": ["'"], "“": ["”", "“"], "”": ["”"], "„": ["”", "“"], "‚": ["’", "‘"], "’": ["’", "‘"],
        "‘": ["’", "‘"], "‹": ["›"], "›": ["‹"], "《": ["》"], "〈": ["〉"], "»": ["«", "»"], "«": ["«", "»"],
        "「": ["」"], "『": ["』"],
    ]

    private static func withoutQuotes(_ text: String) -> String {
        guard let first = text.first, let closing = quotePairs[first] else { return text }
        var rest = text.dropFirst()
        if let last = rest.last, closing.contains(last) { rest = rest.dropLast() }
        return String(rest)
    }

    /// The text outside (), [] and {} (calibre's `remove_bracketed_text`).
    private static func withoutBracketedText(_ text: String) -> String {
        let closers: [Character: Character] = [")": "(", "]": "[", "}": "{"]
        var open: [Character: Int] = ["(": 0, "[": 0, "{": 0]
        var total = 0
        var kept = ""
        for character in text {
            if open[character] != nil {
                open[character]! += 1
                total += 1
            } else if let opener = closers[character] {
                if open[opener]! > 0 {
                    open[opener]! -= 1
                    total -= 1
                }
            } else if total < 1 {
                kept.append(character)
            }
        }
        return kept
    }

    private static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        scalar.properties.lowercaseMapping.unicodeScalars.count == 1
            ? scalar.properties.lowercaseMapping.unicodeScalars.first! : scalar
    }

    /// Python's `str.strip()`: white space off both ends.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
