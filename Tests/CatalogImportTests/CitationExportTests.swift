import BookCatalog
@testable import CatalogImport
import Testing

/// `CitationExport` writes CSL-JSON and BibTeX that `CSLJSONImport` and `BibTeXImport` read back
/// as the books were, field for field, for everything the format can hold; what it cannot
/// (docs/import.md) is shown here too.
@Suite struct CitationExportTests {
    /// Books whose every field either format holds: the starter catalog, the export tests' edge
    /// corpus, and details that test each field's writing (LaTeX's specials, line breaks in
    /// notes, several authors, a name family first, a negative year).
    static var books: [NewBook] {
        SampleBooks.starter.shelves.flatMap(\.books) + BookExportTests.unicodeEdgeCorpus + [
            NewBook(
                title: "Good Omens", author: "Terry Pratchett, Neil Gaiman",
                details: BookDetails(
                    isbn: "9780060853983", year: 1990, publisher: "Gollancz & Co. {50% off} #1 $5 ~ ^ _",
                    series: "Omens", seriesIndex: SeriesIndex("2.5"), tags: ["c:\\path", "fantasy", "humour"],
                    notes: "Line one \\ with {braces}\nLine two\n\nAfter a blank line")),
            NewBook(title: "SPQR", author: "Beard, Mary", details: BookDetails(year: -400)),
            NewBook(title: "Romeo and Juliet", author: "Romeo and Juliet Smith"),
            NewBook(title: "The Others", author: "others"),
            NewBook(title: "Republic", author: "Plato"),
            NewBook(title: "A Title With a Tag", author: "", details: BookDetails(tags: ["a;b"])),
        ]
    }

    /// Whether `format` holds `book` as it is (BibTeX makes runs of whitespace one space).
    static func holds(_ book: NewBook, in format: CitationFormat) -> Bool {
        guard format == .bibTeX else { return true }
        let texts = [book.title, book.author, book.details.publisher, book.details.series, book.details.notes]
        return texts.allSatisfy { !$0.contains("  ") && !$0.contains(" \n") && !$0.contains("\n ") }
    }

    static func document(_ books: [NewBook], _ format: CitationFormat) -> [UInt8] {
        let entries = books.enumerated().map { index, book in
            CitationExport.entry(
                id: index + 1, title: book.title, author: book.author, details: book.details, format: format)
        }
        var text = CitationExport.opening(format).map { $0 + "\n" } ?? ""
        text += entries.joined(separator: CitationExport.separator(format) + "\n") + "\n"
        text += CitationExport.closing(format).map { $0 + "\n" } ?? ""
        return Array(text.utf8)
    }

    static func read(_ bytes: [UInt8], _ format: CitationFormat) -> BookImportResult {
        format == .cslJSON ? CSLJSONImport.parse(bytes) : BibTeXImport.parse(bytes)
    }

    @Test(arguments: CitationFormat.allCases)
    func aRoundTripKeepsEveryFieldTheFormatHolds(_ format: CitationFormat) throws {
        let books = Self.books.filter { Self.holds($0, in: format) }
        #expect(books.count >= Self.books.count - 2)
        let result = Self.read(Self.document(books, format), format)
        #expect(result.problems.isEmpty, "\(result.problems.prefix(3))")
        try #require(result.books.count == books.count)
        for (read, sent) in zip(result.books, books) {
            // Scalar for scalar: String's == would call "é" and "e\u{301}" equal.
            #expect(Array(read.title.unicodeScalars) == Array(sent.title.unicodeScalars), "\(sent.title)")
            #expect(Array(read.author.unicodeScalars) == Array(sent.author.unicodeScalars), "\(sent.author)")
            #expect(read.details == sent.details, "\(sent.title)")
            #expect(Array(read.details.notes.unicodeScalars) == Array(sent.details.notes.unicodeScalars))
        }
        // Nothing the export writes is skipped, and its keys come back as each book's origin.
        #expect(result.summary.skipped.isEmpty, "\(result.summary.skipped)")
        let kind: ImportSourceKind = format == .cslJSON ? .cslJSON : .bibtex
        #expect(
            result.sourced.map(\.origin)
                == books.enumerated().map { index, book in
                    BookOrigin(
                        source: kind,
                        id: CitationExport.key(
                            id: index + 1, title: book.title, author: book.author, year: book.details.year))
                })
    }

    @Test func bibTeXMakesRunsOfWhitespaceOneSpace() {
        let book = NewBook(
            title: "Two  spaces", author: "Ann  Author", details: BookDetails(notes: "Ends in a space \nnext"))
        let read = BibTeXImport.parse(Self.document([book], .bibTeX)).books
        #expect(
            read == [
                NewBook(title: "Two spaces", author: "Ann Author", details: BookDetails(notes: "Ends in a space\nnext"))
            ])
        // CSL-JSON keeps them.
        #expect(CSLJSONImport.parse(Self.document([book], .cslJSON)).books == [book])
    }

    @Test func aSeriesIndexWithoutASeriesIsNotWritten() {
        let book = NewBook(title: "Lonely", details: BookDetails(seriesIndex: SeriesIndex("3")))
        for format in CitationFormat.allCases {
            #expect(Self.read(Self.document([book], format), format).books == [NewBook(title: "Lonely")])
        }
    }

    @Test func keysAreReadableAndUniqueByTheCatalogsId() {
        #expect(CitationExport.key(id: 42, title: "Dune", author: "Frank Herbert", year: 1965) == "herbert1965dune-42")
        // The family is the last word; the title's first word without its accent or mark.
        #expect(
            CitationExport.key(id: 7, title: "¿Cien años?", author: "Gabriel García Márquez", year: nil)
                == "marquezcien-7")
        #expect(CitationExport.key(id: 1, title: "日本", author: "", year: nil) == "book-1")
    }
}
