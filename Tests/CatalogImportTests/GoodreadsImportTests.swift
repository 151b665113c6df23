import BookCatalog
import CatalogImport
import Foundation
import Testing

/// Goodreads' library export, read from a file written the way Goodreads writes it
/// (`Tests/Fixtures/goodreads_library_export.csv`: twelve books, ISBNs as `="…"` formulas,
/// reviews over several lines, quoted commas, empty ISBNs, titles carrying their series).
@Suite struct GoodreadsImportTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/goodreads_library_export.csv")

    /// The fixture read; every book of it, or the test stops here.
    static func imported() throws -> BookImportResult {
        let result = GoodreadsImport.parse([UInt8](try Data(contentsOf: fixture)))
        try #require(result.books.count == 12, "\(result.problems)")
        return result
    }

    @Test func everyBookOfTheExportIsRead() throws {
        let result = try Self.imported()
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books.map(\.title) == [
                "The Fellowship of the Ring", "Good Omens: The Nice and Accurate Prophecies of Agnes Nutter, Witch",
                "Cien años de soledad", "SPQR: A History of Ancient Rome", "The Hitchhiker's Guide to the Galaxy",
                "Dune",
                "Harry Potter Boxed Set, Books 1-5 (Harry Potter, #1-5)", "ノルウェイの森", "Guards! Guards!", "Meditations",
                "The Name of the Rose", "The Catcher in the Rye",
            ])
    }

    @Test func theFellowshipCarriesEveryMappedField() throws {
        let book = try Self.imported().books[0]
        #expect(book.author == "J.R.R. Tolkien")
        #expect(
            book.details
                == BookDetails(
                    isbn: "9780618346257", year: 2003, publisher: "Houghton Mifflin Harcourt",
                    series: "The Lord of the Rings", seriesIndex: SeriesIndex("1"),
                    tags: ["fantasy", "favorites", "read"],
                    notes:
                        "A long journey, begun slowly.\n\nThe Shire chapters are the best part; the Council of Elrond, the slowest.\n\nBought in Oxford, second hand."
                ))
    }

    @Test func authorsIsbnsYearsAndShelvesFollowTheMapping() throws {
        let books = try Self.imported().books
        // Additional Authors joined with ", ".
        #expect(books[1].author == "Terry Pratchett, Neil Gaiman")
        #expect(books[7].author == "Haruki Murakami, Jay Rubin, Alfred Birnbaum")
        // Empty ISBNs (`=""`) are none; the year falls back to the original publication.
        #expect(books[2].details.isbn == nil && books[2].details.year == 1967)
        #expect(books[2].details.tags == ["to-read"])
        // ISBN13 empty: the ISBN-10 column, kept as ISBN-13.
        #expect(books[10].details.isbn == "9780156001311")
        // A quoted comma stays in the publisher.
        #expect(books[3].details.publisher == "Liveright Publishing Corporation, a division of W. W. Norton")
        // A review quoting speech, over two lines; <br/> is a line break.
        #expect(books[4].details.notes == "He said \"Don't panic\",\nand I didn't.")
        #expect(books[11].details.notes == "Not for me.\nMaybe at sixteen.")
        // Of two series, the first; a range of volumes keeps its title whole.
        #expect(books[8].details.series == "Discworld" && books[8].details.seriesIndex == SeriesIndex("8"))
        #expect(books[6].details.series.isEmpty)
        #expect(books[5].details.tags == ["currently-reading", "sf"])
    }

    @Test func aWrongIsbnIsLeftOutAndCounted() throws {
        let result = try Self.imported()
        // Meditations' ISBN13 has a wrong check digit: the book comes without an ISBN.
        #expect(result.books[9].details.isbn == nil)
        #expect(result.books[9].details.year == 180)
        let isbnSkips = result.summary.skipped.filter { $0.reason.hasPrefix("ISBN") }
        #expect(isbnSkips.map(\.count) == [1])
        #expect(isbnSkips.first?.reason.contains("check digit") == true)
    }

    @Test func theSummaryCountsBooksFieldsAndTheColumnsNoFieldKeeps() throws {
        let summary = try Self.imported().summary
        #expect(summary.booksRead == 12)
        // Every title; authors; 8 ISBNs; 11 years; 12 publishers; 4 series with their index; 12 tag sets; 7 notes.
        #expect(summary.fieldsMapped == 12 + 12 + 8 + 11 + 12 + 4 * 2 + 12 + 7)
        let skipped = Dictionary(uniqueKeysWithValues: summary.skipped.map { ($0.reason, $0.count) })
        // Ratings of 0 mean none; nine books were rated.
        #expect(skipped["values of the column \"My Rating\" (no field keeps them)"] == 9)
        #expect(skipped["values of the column \"Binding\" (no field keeps them)"] == 12)
        #expect(summary.skipped.allSatisfy { !$0.reason.contains("Author l-f") })
    }

    /// Issue 60: each book remembers Goodreads' own id for it, so a second export finds it again.
    @Test func eachBookCarriesGoodreadsBookIdAsItsOrigin() throws {
        let result = try Self.imported()
        #expect(
            result.sourced.map(\.origin?.id) == [
                "34", "4214", "320", "25135127", "11", "234225", "862041", "11297", "64216", "30659", "119073", "5107",
            ])
        #expect(result.sourced.allSatisfy { $0.origin?.source == .goodreads })
        #expect(result.summary.skipped.allSatisfy { !$0.reason.contains("Book Id") }, "the id is kept, not skipped")
    }

    @Test func aRowWithoutABookIdHasNoOriginAndIsStillRead() {
        let csv = "Book Id,Title,Author\n,Dune,Frank Herbert\n  7 ,Emma,Jane Austen\n"
        let result = GoodreadsImport.parse(Array(csv.utf8))
        #expect(result.books.map(\.title) == ["Dune", "Emma"])
        #expect(result.sourced.map(\.origin) == [nil, BookOrigin(source: .goodreads, id: "7")])
    }

    @Test func aFileWithoutATitleColumnIsNotAGoodreadsExport() {
        let result = GoodreadsImport.parse(Array("name,author\nDune,Herbert\n".utf8))
        #expect(result.books.isEmpty)
        #expect(result.problems.map(\.line) == [1])
    }

    @Test func aBookWithoutATitleStopsTheImport() {
        let csv = "Title,Author,ISBN13\n,Nobody,\"=\"\"\"\"\"\nDune,Frank Herbert,\"=\"\"9780441172719\"\"\"\n"
        let result = GoodreadsImport.parse(Array(csv.utf8))
        #expect(result.problems.map(\.line) == [2])
        #expect(result.books.map(\.details.isbn) == ["9780441172719"])
    }
}
