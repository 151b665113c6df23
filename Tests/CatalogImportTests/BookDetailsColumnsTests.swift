import BookCatalog
import CatalogImport
import Testing

/// The details' columns in CSV and JSON Lines: written by `BookExport`, read by `BookImport`
/// with each field's rule, and the same bytes after a round trip.
@Suite struct BookDetailsColumnsTests {
    /// Books whose details use every field at its edges: a notes field of several lines with
    /// quotes and commas, tags that need quoting, a year before the common era, a fractional
    /// series index, and books with no details at all.
    static let books: [NewBook] = [
        NewBook(
            title: "Great Expectations", author: "Charles Dickens",
            details: BookDetails(
                isbn: "9780141439563", year: 1861, publisher: "Penguin, Classics", series: "Penguin \"Black\"",
                seriesIndex: SeriesIndex("2.5"), tags: ["classic", "Victorian"],
                notes: "First line, with a comma.\n\n\"Quoted\" third line\\n not a break")),
        NewBook(title: "No details", author: ""),
        NewBook(
            title: "The Histories", author: "Herodotus",
            details: BookDetails(year: -430, tags: ["history"], notes: "Τὰ ἱστορικά 🌍")),
        NewBook(
            title: "Only a series", author: "",
            details: BookDetails(series: "Discworld", seriesIndex: SeriesIndex("41"))),
    ]

    private static func exported(_ books: [NewBook], _ format: BookExportFormat) -> String {
        var text = BookExport.header(format).map { $0 + "\n" } ?? ""
        for book in books {
            text += BookExport.line(title: book.title, author: book.author, details: book.details, format: format)
            text += "\n"
        }
        return text
    }

    private static func kind(_ format: BookExportFormat) -> BookImportFormat {
        format == .csv ? .csv : .jsonLines
    }

    @Test func theCSVHeaderNamesEveryColumn() {
        #expect(BookExport.header(.csv) == "title,author,isbn,year,publisher,series,series_index,tags,notes")
    }

    @Test(arguments: BookExportFormat.allCases)
    func exportThenImportGivesBackEveryFieldAndTheSameBytes(_ format: BookExportFormat) throws {
        for book in Self.books { #expect(try book.validated() == book, "the corpus is canonical: \(book.title)") }
        let first = Self.exported(Self.books, format)
        let read = BookImport.parse(first, format: Self.kind(format))
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.books == Self.books)
        #expect(Self.exported(read.books, format) == first)
    }

    @Test(arguments: BookExportFormat.allCases)
    func aRestoreGivesBackEveryFieldToo(_ format: BookExportFormat) {
        let file = Array(Self.exported(Self.books, format).utf8)
        let read = BookImport.parse(file, format: Self.kind(format), restoring: true)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.books == Self.books)
    }

    @Test func jsonLinesWriteTagsAsAnArrayNumbersAsNumbersAndLeaveEmptyFieldsOut() {
        let line = BookExport.line(
            title: "T", author: "A",
            details: BookDetails(isbn: "9780141439563", year: 1861, seriesIndex: SeriesIndex("2.5"), tags: ["a", "b"]),
            format: .jsonl)
        #expect(
            line
                == #"{"title":"T","author":"A","isbn":"9780141439563","year":1861,"series_index":2.5,"tags":["a","b"]}"#
        )
        #expect(BookExport.line(title: "T", author: "A", format: .jsonl) == #"{"title":"T","author":"A"}"#)
    }

    @Test func csvQuotesNotesAcrossLines() {
        let line = BookExport.line(title: "T", author: "", details: BookDetails(notes: "one\n\"two\""), format: .csv)
        #expect(line == "\"T\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"one\n\"\"two\"\"\"")
    }

    @Test func valuesAsPeopleTypeThemAreKeptInTheirCanonicalForm() {
        let read = BookImport.parse(
            "title,isbn,tags,year,series_index\nDune,0-441-17271-7,\"sf, Classic, SF\",1965,01.50\n", format: .csv)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(
            read.books == [
                NewBook(
                    title: "Dune",
                    details: BookDetails(
                        isbn: "9780441172719", year: 1965, seriesIndex: SeriesIndex(thousandths: 1500),
                        tags: ["Classic", "sf"]))
            ])
    }

    @Test func aBadValueIsRefusedByLineAndColumnAndNothingIsKept() {
        let csv = """
            title,isbn,year,series_index,tags,notes
            Fine,,,,,
            Bad ISBN,9780141439564,,,,
            Bad year and index,,nineteen,two,,
            "Bad tag",,,,"a, b\u{7}",

            """
        let read = BookImport.parse(csv, format: .csv)
        #expect(read.problems.map(\.line) == [3, 4, 4, 5])
        #expect(read.problems.map { $0.reason.prefix { $0 != ":" } } == ["isbn", "year", "series_index", "tags"])
        #expect(read.problems.first?.reason.contains("check digit") == true)
        let json = """
            {"title":"Fine","year":1999}
            {"title":"Bad year","year":"1999.5"}
            {"title":"Bad tags","tags":["a",3]}
            {"title":"Bad notes","notes":"a\\u0007b"}
            {"title":"Not an array","tags":{"a":1}}
            """
        let jsonRead = BookImport.parse(json, format: .jsonLines)
        #expect(jsonRead.problems.map(\.line) == [2, 3, 4, 5], "\(jsonRead.problems)")
        #expect(jsonRead.problems.map { $0.reason.prefix { $0 != ":" } } == ["year", "tags", "notes", "tags"])
    }

    @Test func aTagsStringInJSONIsReadAsTyped() {
        let read = BookImport.parse(#"{"title":"T","tags":"b, a","series_index":"3"}"#, format: .jsonLines)
        #expect(
            read.books == [NewBook(title: "T", details: BookDetails(seriesIndex: SeriesIndex("3"), tags: ["a", "b"]))])
    }

    @Test func theSummaryCountsBooksFieldsAndSkippedColumns() {
        let read = BookImport.parse(
            "title,author,rating,isbn,shelf\nA,,5,,\nB,Someone,4,9780141439563,read\nC,,,,\n", format: .csv)
        #expect(read.problems.isEmpty)
        #expect(read.summary.booksRead == 3)
        // A; B, Someone, its ISBN; C.
        #expect(read.summary.fieldsMapped == 5)
        #expect(read.summary.skipped.map(\.count) == [2, 1])
        #expect(read.summary.skipped.map(\.reason).allSatisfy { $0.contains("not a field Bookshelf keeps") })
        #expect(read.summary.skipped.first?.reason.contains("\"rating\"") == true)
        let json = BookImport.parse(
            "{\"title\":\"A\",\"rating\":5}\n{\"title\":\"B\",\"rating\":3,\"year\":2001}\n", format: .jsonLines)
        #expect(json.summary.booksRead == 2 && json.summary.fieldsMapped == 3)
        #expect(json.summary.skipped.map(\.count) == [2])
        #expect(json.summary.lines().first == "Read 2 books (3 fields mapped).")
    }
}
