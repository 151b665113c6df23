import BookCatalog
import Foundation

/// The derived text columns a book row carries for search, computed from `SearchTerms` so the
/// store matches and orders exactly like every other adapter.
///
/// Everything is NFC-normalised: then byte order (SQLite's BINARY collation, `memcmp`) equals
/// Swift's `String` order, and byte equality equals `String` equality.
package struct BookText {
    /// `SearchTerms.fold(title)`: the second sort key of search results.
    package let titleKey: String
    package let titleTerms: String
    package let authorTerms: String
    /// The terms of the series, the publisher and each tag, each field's tokens joined by
    /// spaces and the fields by `fieldSeparator`, fields with no token left out.
    package let otherTerms: String

    /// Stands between two fields of `otherTerms`: a token of its own (so every walker that cuts
    /// at spaces sees it) that no query token equals or begins with, since query tokens are
    /// letters, digits and symbols and U+001F is a control character. So a word of several
    /// tokens never spans two fields.
    package static let fieldSeparator = " \u{1F} "
    /// The separator's one byte.
    package static let fieldSeparatorByte: UInt8 = 0x1F

    package init(title: String, author: String) {
        self.init(title: title, author: author, details: .empty)
    }

    package init(title: String, author: String, details: BookDetails) {
        titleKey = BookText.normalized(SearchTerms.fold(title))
        titleTerms = BookText.terms(title)
        authorTerms = BookText.terms(author)
        otherTerms = BookText.otherTerms(details)
    }

    package static func otherTerms(_ details: BookDetails) -> String {
        ([details.series, details.publisher] + details.tags).map(terms).filter { !$0.isEmpty }
            .joined(separator: fieldSeparator)
    }

    package static func terms(_ text: String) -> String {
        normalized(SearchTerms.indexText(text))
    }

    package static func normalized(_ text: String) -> String {
        // ASCII is its own NFC. Foundation's mapping bridges through NSString, and a search
        // process otherwise pays for setting that up on its first query (`perf record` over
        // `bookshelf search` runs).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.precomposedStringWithCanonicalMapping
    }
}
