import BookCatalog
@testable import CatalogImport
import Testing

/// LibraryThing's export, TSV (`librarything_export.tsv`: six books, ISO-8859-1, CRLF line
/// ends, bracketed ISBNs and dates, names family first, a series list, `[Return]` paragraph
/// breaks) and JSON (`librarything_export.json`: two books keyed by their book ids).
@Suite struct LibraryThingImportTests {
    static func tsv() throws -> BookImportResult {
        let result = LibraryThingImport.parse(try SourceExportFixtures.bytes("librarything_export.tsv"))
        try #require(result.problems.isEmpty, "\(result.problems)")
        try #require(result.books.count == 6)
        return result
    }

    @Test func theTSVExportMapsEveryFieldItHas() throws {
        let books = try Self.tsv().books
        #expect(
            books[0]
                == NewBook(
                    title: "Rayuela", author: "Julio Cortázar",
                    details: BookDetails(
                        isbn: "9788497592437", year: 1963, publisher: "Sudamericana",
                        tags: ["argentina", "novela", "Your library"],
                        notes: "Un juego de lectura.\n\nLeer dos veces.\n\nComprado en Buenos Aires\n\nPrestado a Ana"))
        )
        #expect(
            books[1]
                == NewBook(
                    title: "Guards! Guards!", author: "Terry Pratchett",
                    details: BookDetails(
                        isbn: "9780552152006", year: 1990, publisher: "Corgi", series: "Discworld",
                        seriesIndex: SeriesIndex("8"), tags: ["fantasy", "humour", "Read", "Your library"])))
        // The ISBN column's check digit is wrong; the ISBNs column's is right.
        #expect(
            books[2]
                == NewBook(
                    title: "Good Omens", author: "Terry Pratchett, Neil Gaiman",
                    details: BookDetails(
                        isbn: "9780060853983", year: 2006, publisher: "William Morrow",
                        tags: ["humour", "Your library"])))
        // ISO-8859-1's accents, read as the characters they are.
        #expect(books[3].title == "Le Maître et Marguerite" && books[3].author == "Mikhaïl Boulgakov")
        #expect(books[3].details.publisher == "Pocket" && books[3].details.tags == ["Wishlist"])
        // "c. 180" is the year 180; a wrong ISBN is left out.
        #expect(
            books[4]
                == NewBook(
                    title: "Meditations", author: "Marcus Aurelius",
                    details: BookDetails(year: 180, publisher: "Penguin Classics", tags: ["Your library"])))
        #expect(
            books[5]
                == NewBook(title: "Untitled Notebook", details: BookDetails(year: 1999, tags: ["Your library"])))
    }

    @Test func theTSVSummaryCountsWhatNoFieldKeepsByColumn() throws {
        let summary = try Self.tsv().summary
        #expect(summary.booksRead == 6)
        #expect(summary.fieldsMapped == 7 + 8 + 6 + 6 + 5 + 3)
        let skipped = Dictionary(uniqueKeysWithValues: summary.skipped.map { ($0.reason, $0.count) })
        func column(_ name: String) -> Int? { skipped["values of the column \"\(name)\" (no field keeps them)"] }
        // The book id is where each book came from, not a skipped value.
        #expect(column("Book Id") == nil)
        #expect(column("Primary Author Role") == 3)
        #expect(column("Secondary Author Roles") == 1)
        #expect(column("Rating") == 3)
        #expect(column("Summary") == 4)
        #expect(column("Media") == 2)
        #expect(column("Page Count") == 1)
        #expect(column("Languages") == 2)
        #expect(column("Entry Date") == 1)
        #expect(column("Work id") == 2)
        #expect(column("Sort Character") == nil)
        #expect(summary.skipped.filter { $0.reason.hasPrefix("ISBN values") }.map(\.count) == [1])
        #expect(summary.skipped.count == 10, "\(summary.skipped)")
        // The whole file was ISO-8859-1: no field needed a guess of its own.
        #expect(summary.noted.isEmpty)
    }

    @Test func eachBookComesWithItsBookIdAsItsOrigin() throws {
        let tsv = try Self.tsv()
        #expect(tsv.sourced.map(\.origin?.source) == Array(repeating: .libraryThing, count: 6))
        #expect(tsv.sourced.map(\.origin?.id) == ["7001", "7002", "7003", "7004", "7005", "7006"])
        let json = LibraryThingImport.parse(try SourceExportFixtures.bytes("librarything_export.json"))
        #expect(json.sourced.map(\.origin) == ["8001", "8002"].map { BookOrigin(source: .libraryThing, id: $0) })
    }

    @Test func theTSVFileIsRecognisedAsISOLatin1() throws {
        var stream = BookSourceStream(bytes: try SourceExportFixtures.bytes("librarything_export.tsv"), source: nil)
        _ = stream.collected()
        #expect(stream.detected == DetectedSource(source: .libraryThing, encoding: .isoLatin1, isJSON: false))
    }

    @Test func aFieldThatIsNotUTF8AfterAUTF8FirstChunkIsReadAsISOLatin1AndNoted() {
        // The first chunk is UTF-8 (ASCII), so the file is read as UTF-8; the last line's
        // "Maître" is ISO-8859-1 (EE), which UTF-8 cannot read.
        let header = "Book Id\tTitle\tPrimary Author\n"
        let filler = String(repeating: "1\tFiller\tAnon\n", count: BookImportStream.chunkBytes / 14 + 10)
        let bytes = Array((header + filler).utf8) + Array("2\tLe Ma".utf8) + [0xEE] + Array("tre\tBoulgakov, M.\n".utf8)
        var stream = BookSourceStream(
            source: .libraryThing, read: SourceExportFixtures.chunks(of: bytes, size: 64 << 10))
        let result = stream.collected()
        #expect(stream.detected?.encoding == .utf8)
        #expect(result.problems.isEmpty)
        #expect(result.books.last?.title == "Le Maître")
        #expect(result.books.last?.author == "M. Boulgakov")
        #expect(result.summary.noted.map(\.count) == [1])
    }

    @Test func theJSONExportMapsEveryFieldItHas() throws {
        let result = LibraryThingImport.parse(try SourceExportFixtures.bytes("librarything_export.json"))
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books == [
                NewBook(
                    title: "Marelle", author: "Julio Cortázar, Laure Guille-Bataillon",
                    details: BookDetails(
                        isbn: "9782070360024", year: 1979, publisher: "Gallimard", series: "Folio",
                        seriesIndex: SeriesIndex("1133"), tags: ["expérimental", "roman", "Your library"],
                        notes: "Chef d'œuvre.")),
                NewBook(
                    title: "Dune", author: "Frank Herbert",
                    details: BookDetails(
                        isbn: "9780307472786", year: 1965, publisher: "Chilton Books", tags: ["Read", "Your library"],
                        notes: "Spice.\n\nFirst edition?")),
            ])
        let skipped = Dictionary(uniqueKeysWithValues: result.summary.skipped.map { ($0.reason, $0.count) })
        #expect(
            skipped == [
                "values of the key \"rating\" (no field keeps them)": 1,
                "values of the key \"language\" (no field keeps them)": 1,
                "values of the key \"entrydate\" (no field keeps them)": 1,
            ])
    }

    @Test func aHeaderWithoutATitleIsNotLibraryThing() {
        let result = LibraryThingImport.parse(Array("Book Id\tName\n1\tDune\n".utf8))
        #expect(result.books.isEmpty)
        #expect(result.problems.map(\.line) == [1])
        #expect(result.problems.first?.reason.contains("not a LibraryThing export") == true)
    }

    @Test func aBookWithoutATitleIsAProblemWithItsLineAndTheOthersAreStillRead() {
        let tsv = "Book Id\tTitle\tPrimary Author\r\n1\t\tNobody\r\n\r\n2\tDune\tHerbert, Frank\r\n3\tA\tB\tC\r\n"
        let result = LibraryThingImport.parse(Array(tsv.utf8))
        #expect(result.books.map(\.title) == ["Dune"])
        #expect(result.problems.map(\.line) == [2, 5], "\(result.problems)")
    }
}
