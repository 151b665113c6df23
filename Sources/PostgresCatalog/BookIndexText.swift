import BookCatalog
import Foundation

/// The derived columns a book row stores so the database can match and order exactly as
/// `SearchTerms` does. Folding happens here, in Swift, because the database's own case and
/// accent folding differs from Foundation's; the database only compares the results.
///
/// `titleWords` and `authorWords` are the folded tokens, each preceded by one space
/// (" the history of rome"), so "a query word matches" becomes "the text contains a space,
/// the word's tokens joined by spaces, anything": a LIKE pattern (see `SearchPattern`).
/// `titleSort` is the folded title in NFC, whose UTF-8 byte order (COLLATE "C") is Swift's
/// String order. `otherWords` are the series', the publisher's and the tags' words.
struct BookIndexText: Sendable, Equatable {
    let titleSort: String
    let titleWords: String
    let authorWords: String

    init(title: String, author: String) {
        titleSort = SearchTerms.fold(title).precomposedStringWithCanonicalMapping
        titleWords = BookIndexText.words(title)
        authorWords = BookIndexText.words(author)
    }

    static func words(_ text: String) -> String {
        " " + SearchTerms.indexText(text)
    }

    /// The words of the series, the publisher and each tag (schema version 12's `other_words`,
    /// as `bookshelf.other_words` derives them): each field as `words`, fields without a token
    /// left out, the rest one a line. No query word holds a line feed, so none spans two fields.
    static func otherWords(_ details: BookDetails) -> String {
        ([details.series, details.publisher] + details.tags).map(SearchTerms.indexText).filter { !$0.isEmpty }
            .map { " " + $0 }.joined(separator: "\n")
    }
}

/// LIKE patterns for one search: every value is bound as a parameter, with LIKE's own
/// wildcards (`%`, `_`) and the escape character in the user's text escaped.
struct SearchPattern: Sendable, Equatable {
    /// One per query word: the word anywhere in the text, at token boundaries.
    let words: [String]
    /// The first word at the very start of the title (the best rank).
    let firstWordAtStart: String?

    init(_ terms: SearchTerms) {
        let phrases = terms.words.map { SearchPattern.escaped($0.joined(separator: " ")) }
        words = phrases.map { "% " + $0 + "%" }
        firstWordAtStart = phrases.first.map { " " + $0 + "%" }
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { result.append("\\") }
            result.append(character)
        }
        return result
    }
}

/// The words of a search as a tsquery over `bookshelf.word_prefixes`, which stores each token's
/// first `prefixLength` characters and all shorter prefixes as lexemes: every query token is
/// then one exact index entry. It only narrows the candidates; the LIKE patterns decide.
/// Lexemes are quoted (quotes doubled, backslashes escaped) so user text is never tsquery syntax.
struct WordPrefixQuery: Sendable, Equatable {
    /// Must equal the length in `bookshelf.word_prefixes` (characters are code points there).
    static let prefixLength = 12
    /// Nil for no words (every book is a candidate).
    let text: String?

    init(_ terms: SearchTerms) {
        let lexemes = terms.words.flatMap { $0 }.map { token in
            let prefix = String(String.UnicodeScalarView(token.unicodeScalars.prefix(Self.prefixLength)))
            return "'" + prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
                + "'"
        }
        text = lexemes.isEmpty ? nil : lexemes.joined(separator: " & ")
    }
}
