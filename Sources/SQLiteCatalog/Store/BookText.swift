import BookCatalog
import Foundation

/// The derived text columns a book row carries for search, computed from `SearchTerms` so the
/// store matches and orders exactly like every other adapter.
///
/// Everything is NFC-normalised: then byte order (SQLite's BINARY collation, `memcmp`) equals
/// Swift's `String` order, and byte equality equals `String` equality.
struct BookText {
    /// `SearchTerms.fold(title)`: the second sort key of search results.
    let titleKey: String
    let titleTerms: String
    let authorTerms: String

    init(title: String, author: String) {
        titleKey = BookText.normalized(SearchTerms.fold(title))
        titleTerms = BookText.terms(title)
        authorTerms = BookText.terms(author)
    }

    static func terms(_ text: String) -> String {
        normalized(SearchTerms.indexText(text))
    }

    static func normalized(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
    }
}
