import Foundation

/// The one definition of how text is matched, shared by every adapter and by the UI's
/// highlighting, so "what matches" never differs between stores.
///
/// Text is folded (case and diacritics removed) and cut into tokens: a run of letters or
/// digits is one token, except that each Han, kana or Hangul character is a token of its
/// own, because those scripts do not separate words with spaces, and so is each symbol
/// (emoji, "+", "€", "©"), because a title's "🌸" or "C++" is something people search for.
/// Punctuation and spaces only separate tokens. A query word matches when its tokens appear
/// consecutively in the text, the last one as a prefix: "hist" matches "History", "cafe"
/// matches "Café", "歴史" matches "日本の歴史", "🌸" matches "Spring 🌸 Haiku".
///
/// A book's searched texts are its title, its author, and its other fields: the series, the
/// publisher and each tag, each a text of its own, so a word of several tokens never spans two
/// of them. Notes are never searched. A query that is an ISBN also finds the book that has it.
public struct SearchTerms: Sendable, Hashable {
    /// One token sequence per query word.
    public let words: [[String]]
    /// The canonical ISBN-13 when the whole query is an ISBN-10 or ISBN-13 with a right check
    /// digit (hyphens and spaces allowed): the books with that ISBN come first, at rank −1.
    public let isbn: String?
    /// True when the query has text but no token at all ("...", "?!"): such a query can never
    /// match anything, so it answers nothing, and the screen says why, rather than listing
    /// every book as an empty query does.
    public let hasNoSearchableWords: Bool

    public init(_ query: String) {
        let queryWords = SearchTerms.queryWords(query)
        words = queryWords.map { SearchTerms.tokens(of: String($0)) }.filter { !$0.isEmpty }
        hasNoSearchableWords = words.isEmpty && !queryWords.isEmpty
        isbn = ISBN.looksLikeOne(query) ? try? ISBN.canonical(query).get() : nil
    }

    /// True when the query has no words: it lists every book, unless `hasNoSearchableWords`.
    public var isEmpty: Bool { words.isEmpty }

    /// What to tell a user whose query `hasNoSearchableWords`.
    public static let noSearchableWordsExplanation =
        "no searchable words (letters, digits, symbols and emoji are searched; punctuation is not)"

    /// True for the blank query, which lists every book.
    public var matchesEverything: Bool { words.isEmpty && !hasNoSearchableWords }

    /// Folded tokens of `text`, in order.
    public static func tokens(of text: String) -> [String] {
        tokenRanges(of: text).map { fold(String(text[$0])) }
    }

    /// The text an index should store for `text`: its tokens joined by single spaces.
    public static func indexText(_ text: String) -> String {
        tokens(of: text).joined(separator: " ")
    }

    /// Lowercase without diacritics ("Café" -> "cafe"), and without emoji variation selectors,
    /// so "❤" and "❤️" are one symbol.
    public static func fold(_ text: String) -> String {
        // ASCII folds to its lowercase, byte for byte: most titles and authors, and on every
        // paint, every word of every row shown is folded to find what to highlight.
        if isASCII(text) {
            return String(decoding: text.utf8.map { $0 &+ (0x41...0x5A ~= $0 ? 0x20 : 0) }, as: UTF8.self)
        }
        // Letters that do not decompose ("ø", "ł", "æ", "ß") are transliterated before and
        // after Foundation's folding: before, so its case folding never rewrites them first
        // ("ŉ" to "ʼn"), and after, for those its case folding produces.
        let folded = transliterated(
            transliterated(text)
                .folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil))
        guard folded.unicodeScalars.contains(where: isVariationSelector) else { return folded }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: folded.unicodeScalars.filter { !isVariationSelector($0) })
        return String(scalars)
    }

    /// `text` with every letter of `transliterations` replaced by its lowercase ASCII.
    private static func transliterated(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { transliterations[$0.value] != nil }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let ascii = transliterations[scalar.value] {
                scalars.append(contentsOf: ascii.unicodeScalars)
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// Latin letters that do not decompose into a letter and accents, and their lowercase
    /// ASCII, as ICU's Latin-ASCII transliteration has them (without its apostrophes and
    /// middle dots: "ŉ" is "n", "ŀ" is "l"). Upper- and lowercase alike.
    static let transliterations: [UInt32: String] = {
        let pairs: [(String, String)] = [
            ("Ææ", "ae"), ("Ðð", "d"), ("Øø", "o"), ("Þþ", "th"), ("ßẞ", "ss"), ("Đđ", "d"), ("Ħħ", "h"), ("ı", "i"),
            ("Ĳĳ", "ij"), ("ĸ", "q"), ("Ŀŀ", "l"), ("Łł", "l"), ("ŉ", "n"), ("Ŋŋ", "n"), ("Œœɶ", "oe"), ("ſ", "s"),
            ("Ŧŧ", "t"), ("ƀɃ", "b"), ("Ɓɓ", "b"), ("Ƃƃ", "b"), ("Ƈƈ", "c"), ("Ɖɖ", "d"), ("Ɗɗ", "d"), ("Ƌƌ", "d"),
            ("Ɛɛ", "e"), ("Ƒƒ", "f"), ("Ɠɠ", "g"), ("ƕ", "hv"), ("Ɩɩ", "i"), ("Ɨɨ", "i"), ("Ƙƙ", "k"), ("ƚȽ", "l"),
            ("Ɲɲ", "n"), ("ƞȠ", "n"), ("Ƣƣ", "oi"), ("Ƥƥ", "p"), ("ƫ", "t"), ("Ƭƭ", "t"), ("Ʈʈ", "t"), ("Ʋʋ", "v"),
            ("Ƴƴ", "y"), ("Ƶƶ", "z"), ("ǄǅǆǱǲǳʣʥ", "dz"), ("Ǉǈǉ", "lj"), ("Ǌǋǌ", "nj"), ("Ȥȥ", "z"), ("ȡ", "d"),
            ("ȴ", "l"), ("ȵ", "n"), ("ȶ", "t"), ("ȷ", "j"), ("ȸ", "db"), ("ȹ", "qp"), ("Ⱥⱥ", "a"), ("Ȼȼ", "c"),
            ("Ⱦⱦ", "t"), ("ȿ", "s"), ("ɀ", "z"), ("Ʉʉ", "u"), ("Ɇɇ", "e"), ("Ɉɉ", "j"), ("Ɍɍ", "r"), ("Ɏɏ", "y"),
            ("ɕ", "c"), ("ɟʝ", "j"), ("ɡɢ", "g"), ("ɦɧʜ", "h"), ("ɪ", "i"), ("Ɫɫɬɭʟ", "l"), ("Ɱɱ", "m"), ("ɳɴ", "n"),
            ("ɼɽɾʀ", "r"), ("ʂ", "s"), ("ʏ", "y"), ("ʐʑ", "z"), ("ʙ", "b"), ("ʛ", "g"), ("ʠ", "q"), ("ʦ", "ts"),
            ("ʪ", "ls"), ("ʫ", "lz"), ("ﬀ", "ff"), ("ﬁ", "fi"), ("ﬂ", "fl"), ("ﬃ", "ffi"), ("ﬄ", "ffl"), ("ﬅﬆ", "st"),
        ]
        var table: [UInt32: String] = [:]
        for (letters, ascii) in pairs {
            for scalar in letters.unicodeScalars { table[scalar.value] = ascii }
        }
        return table
    }()

    private static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0E || scalar.value == 0xFE0F
    }

    /// True when every query word matches `record`'s title, author or another searched field,
    /// or when the query is `record`'s ISBN; always for the blank query, never for one with no
    /// searchable words.
    public func matches(_ record: BookRecord) -> Bool {
        guard !hasNoSearchableWords else { return false }
        if isISBN(of: record) { return true }
        let texts = SearchedTexts(record)
        return words.allSatisfy { texts.place(of: $0) != nil }
    }

    /// Lower ranks first: −1 for the book whose ISBN the query is; 0 when the title begins with
    /// the first query word and all words are in the title; 1 when all words are in the title;
    /// 2 when the author was needed; 3 when some word is only in the series, the publisher or a
    /// tag.
    public func rank(_ record: BookRecord) -> Int {
        if isISBN(of: record) { return -1 }
        let texts = SearchedTexts(record)
        let inTitle = words.map { SearchTerms.find($0, in: texts.title) }
        if inTitle.allSatisfy({ $0 != nil }) { return inTitle.first == 0 ? 0 : 1 }
        return words.allSatisfy { (texts.place(of: $0) ?? .other) != .other } ? 2 : 3
    }

    private func isISBN(of record: BookRecord) -> Bool {
        isbn != nil && record.details.isbn == isbn
    }

    /// The order of results: rank, then title as folded, then id.
    public func sortKey(_ record: BookRecord) -> (Int, String, Int) {
        (rank(record), SearchTerms.fold(record.title), record.id)
    }

    /// Ranges of `text` to highlight: for each matching query word, the matched characters.
    public func highlightRanges(in text: String) -> [Range<String.Index>] {
        let ranges = SearchTerms.tokenRanges(of: text)
        let folded = ranges.map { SearchTerms.fold(String(text[$0])) }
        var result: [Range<String.Index>] = []
        for word in words {
            var start = 0
            while let at = SearchTerms.find(word, in: folded, from: start) {
                let last = ranges[at + word.count - 1]
                let end = SearchTerms.end(ofPrefix: word.last!.count, in: text[last])
                result.append(ranges[at].lowerBound..<end)
                start = at + 1
            }
        }
        return result.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Where the first `length` folded characters of `token` end in the original: after the
    /// whole letter that folds to the last of them ("stras" in "Straße" ends after "ß").
    private static func end(ofPrefix length: Int, in token: Substring) -> String.Index {
        if token.utf8.allSatisfy({ $0 < 0x80 }) {
            return token.index(token.startIndex, offsetBy: length, limitedBy: token.endIndex) ?? token.endIndex
        }
        var folded = 0
        var index = token.startIndex
        while index < token.endIndex && folded < length {
            folded += fold(String(token[index])).count
            index = token.index(after: index)
        }
        return index
    }

    /// Index of the first token where `word` matches, or nil.
    static func find(_ word: [String], in tokens: [String], from start: Int = 0) -> Int? {
        guard !word.isEmpty, tokens.count >= word.count, start <= tokens.count - word.count else { return nil }
        for at in start...(tokens.count - word.count) {
            var matched = true
            for (offset, part) in word.enumerated() {
                let token = tokens[at + offset]
                let isLast = offset == word.count - 1
                if isLast ? !token.hasPrefix(part) : token != part {
                    matched = false
                    break
                }
            }
            if matched { return at }
        }
        return nil
    }

    /// The folded tokens of each text a book is searched by, and which of them holds a word.
    private struct SearchedTexts {
        enum Place { case title, author, other }
        let title: [String]
        let author: [String]
        let others: [[String]]

        init(_ record: BookRecord) {
            title = SearchTerms.tokens(of: record.title)
            author = SearchTerms.tokens(of: record.author)
            let details = record.details
            others = ([details.series, details.publisher] + details.tags).map(SearchTerms.tokens(of:))
        }

        func place(of word: [String]) -> Place? {
            if SearchTerms.find(word, in: title) != nil { return .title }
            if SearchTerms.find(word, in: author) != nil { return .author }
            return others.contains { SearchTerms.find(word, in: $0) != nil } ? .other : nil
        }
    }

    private static func queryWords(_ query: String) -> [Substring] {
        query.split(whereSeparator: { $0.isWhitespace })
    }

    private static func tokenRanges(of text: String) -> [Range<String.Index>] {
        if isASCII(text) { return asciiTokenRanges(of: text) }
        var ranges: [Range<String.Index>] = []
        var runStart: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            let character = text[index]
            if isIdeographic(character) || isSymbol(character) {
                if let start = runStart { ranges.append(start..<index); runStart = nil }
                ranges.append(index..<next)
            } else if isWordCharacter(character) {
                if runStart == nil { runStart = index }
            } else if let start = runStart {
                ranges.append(start..<index)
                runStart = nil
            }
            index = next
        }
        if let start = runStart { ranges.append(start..<text.endIndex) }
        return ranges
    }

    /// `tokenRanges` of ASCII text, byte by byte: its letters and digits make words, and its
    /// symbols (`isSymbol`: + < = > | ~ $) are tokens of their own.
    private static func asciiTokenRanges(of text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var runStart: String.Index?
        let bytes = text.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let next = bytes.index(after: index)
            switch bytes[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                if runStart == nil { runStart = index }
            case let byte:
                if let start = runStart { ranges.append(start..<index); runStart = nil }
                if asciiSymbols.contains(byte) { ranges.append(index..<next) }
            }
            index = next
        }
        if let start = runStart { ranges.append(start..<text.endIndex) }
        return ranges
    }

    private static let asciiSymbols = Set("+<=>|~$".utf8)

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// Whether a character beginning with `scalar` is part of a token (a letter or digit, a Han,
    /// kana or Hangul character, a symbol) rather than something that only separates tokens:
    /// a title whose first character separates may still begin with any token after it.
    public static func beginsAToken(_ scalar: Unicode.Scalar) -> Bool {
        isIdeographic(scalar) || isSymbol(scalar) || isWordCharacter(scalar)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.unicodeScalars.first.map(isWordCharacter) ?? false
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// Symbols, emoji included, are tokens of their own; punctuation is not.
    static func isSymbol(_ character: Character) -> Bool {
        character.unicodeScalars.first.map(isSymbol) ?? false
    }

    private static func isSymbol(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .mathSymbol, .currencySymbol, .otherSymbol:
            return true
        default:
            return scalar.properties.isEmojiPresentation
        }
    }

    static func isIdeographic(_ character: Character) -> Bool {
        character.unicodeScalars.first.map(isIdeographic) ?? false
    }

    private static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF,  // Hiragana, Katakana
            0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F,  // Han
            0xAC00...0xD7AF, 0x1100...0x11FF,  // Hangul
            0x31F0...0x31FF, 0xFF66...0xFF9F:  // Katakana extensions, half-width
            return true
        default:
            return false
        }
    }
}
