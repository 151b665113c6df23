import BookCatalog
import CatalogImport
import Testing

/// A Goodreads review is HTML: `<br/>` for a line break, tags for italics and bold, character
/// references for `&` and quotes. Its notes are plain text, read by the same reader as a
/// Calibre library's comments (issue 55, item 12), and the lines the review spans stay lines.
@Suite struct GoodreadsReviewTests {
    private func notes(ofReview review: String) -> String? {
        let csv =
            "Title,Author,My Review\nDune,Frank Herbert,\"\(review.replacingOccurrences(of: "\"", with: "\"\""))\"\n"
        let result = GoodreadsImport.parse(Array(csv.utf8))
        return result.books.first?.details.notes
    }

    @Test func aReviewsTagsAndCharacterReferencesBecomePlainText() {
        #expect(
            notes(ofReview: "Loved it.<br/><br/>Second <i>italics</i> &amp; more")
                == "Loved it.\n\nSecond italics & more")
        #expect(notes(ofReview: "<b>Bold</b> &quot;quoted&quot; &#8212; fine") == "Bold \"quoted\" — fine")
        // A "<" before no letter starts no tag, as HTML reads it.
        #expect(notes(ofReview: "3 < 5, and <i>so</i> on") == "3 < 5, and so on")
    }

    @Test func theLinesAReviewSpansStayLines() {
        #expect(
            notes(ofReview: "First line,\nsecond.\n\nA new paragraph<br />and a <i>last</i> line.")
                == "First line,\nsecond.\n\nA new paragraph\nand a last line.")
    }
}
