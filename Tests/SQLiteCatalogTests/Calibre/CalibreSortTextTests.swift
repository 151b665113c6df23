import Foundation
@testable import SQLiteCatalog
import Testing

/// The sort texts calibre's default tweaks make, each case worked out from calibre's
/// `title_sort` and `author_to_author_sort` (ebooks/metadata/__init__.py) by hand.
@Suite struct CalibreSortTextTests {
    @Test(arguments: [
        ("The Hobbit", "Hobbit, The"),
        ("A Tale of Two Cities", "Tale of Two Cities, A"),
        ("An Instance of the Fingerpost", "Instance of the Fingerpost, An"),
        ("THE   Shining", "Shining, THE"),
        // No article: "Theology" and "Another" only begin with one's letters.
        ("Theology", "Theology"), ("Another Country", "Another Country"),
        // A quote around the whole title goes, then the article moves.
        ("\"The Raven\"", "Raven, The"), ("“The Raven”", "Raven, The"),
        ("  Emma  ", "Emma"), ("The", "The"),
    ])
    func titleSortMovesALeadingArticleToTheEnd(title: String, sort: String) {
        #expect(CalibreSortText.titleSort(title) == sort)
    }

    @Test(arguments: [
        ("J. R. R. Tolkien", "Tolkien, J. R. R."),
        ("Gabriel García Márquez", "Márquez, Gabriel García"),
        ("Plato", "Plato"),
        // A comma says the name is already in sort order.
        ("Tolkien, J. R. R.", "Tolkien, J. R. R."),
        // A title before the name and a suffix after it stay out of the surname.
        ("Dr Jane Smith Jr", "Smith, Jane Jr"), ("Mr. John Doe III", "Doe, John III"),
        // A company's name is copied.
        ("Acme Software", "Acme Software"),
        // Bracketed text is not part of the name.
        ("Jane Smith (editor)", "Smith, Jane"),
        ("", ""),
    ])
    func authorSortPutsTheSurnameFirst(author: String, sort: String) {
        #expect(CalibreSortText.authorSort(author) == sort)
    }
}

@Suite struct CalibreTimestampTests {
    @Test func aTimeWithMicrosecondsIsItsMicrosecondsSince1970() throws {
        let expected = try #require(
            ISO8601DateFormatter().date(from: "2026-12-05T16:17:48Z")?.timeIntervalSince1970)
        #expect(
            CalibreTimestamp.microseconds("2026-12-05 16:17:48.907870+00:00") == Int(expected) * 1_000_000 + 907_870)
        #expect(CalibreTimestamp.microseconds("2000-01-01 00:00:00+00:00") == 946_684_800 * 1_000_000)
        // Another offset names the same instant in UTC.
        #expect(
            CalibreTimestamp.microseconds("2000-01-01 02:00:00+02:00")
                == CalibreTimestamp.microseconds("2000-01-01 00:00:00+00:00"))
    }

    @Test(arguments: [
        "2026-12-05 16:17:48.907870+00:00", "2000-01-01 00:00:00+00:00", "1970-01-01 00:00:00.000001+00:00",
        "2024-02-29 23:59:59.999999+00:00",
    ])
    func calibresTextComesBackExactly(text: String) throws {
        let microseconds = try #require(CalibreTimestamp.microseconds(text))
        #expect(CalibreTimestamp.text(microseconds) == text)
    }

    @Test(arguments: ["", "yesterday", "2026-13-01 00:00:00+00:00", "2026-12-05 16:17:48.+00:00", "2026-12-05"])
    func aTextCalibreWouldNotWriteIsNoTime(text: String) {
        #expect(CalibreTimestamp.microseconds(text) == nil)
    }
}
