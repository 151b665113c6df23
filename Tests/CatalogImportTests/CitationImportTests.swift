import BookCatalog
@testable import CatalogImport
import Testing

/// The StoryGraph's CSV, CSL-JSON and BibTeX, each from its committed sample: what maps to a
/// field, and what is counted as skipped.
@Suite struct CitationImportTests {
    static func skips(_ summary: ImportSummary) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: summary.skipped.map { ($0.reason, $0.count) })
    }

    @Test func theStoryGraphExportMapsEveryFieldItHas() throws {
        let result = StoryGraphImport.parse(try SourceExportFixtures.bytes("storygraph_export.csv"))
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books == [
                NewBook(
                    title: "The Dispossessed", author: "Ursula K. Le Guin",
                    details: BookDetails(
                        isbn: "9780143039433", tags: ["classics", "read", "sf"],
                        notes: "An ambiguous utopia.\nRead it twice.")),
                NewBook(
                    title: "Subprime Attention Crisis", author: "Tim Hwang",
                    details: BookDetails(isbn: "9780307472786", tags: ["to-read"])),
                NewBook(
                    title: "A Zine About Tea", author: "Anon Collective",
                    details: BookDetails(tags: ["currently-reading"])),
            ])
        let skipped = Self.skips(result.summary)
        func column(_ name: String) -> Int? { skipped["values of the column \"\(name)\" (no field keeps them)"] }
        #expect(column("Contributors") == 1)
        #expect(column("Format") == 2)
        #expect(column("Date Added") == 3)
        #expect(column("Last Date Read") == 1)
        #expect(column("Read Count") == 1)
        #expect(column("Moods") == 1)
        #expect(column("Star Rating") == 2)
        #expect(column("Owned?") == 1)
        #expect(column("Content Warnings") == nil)
        // Contributors, Format, Date Added, Last Date Read, Dates Read, Read Count, Moods, Pace,
        // the five character questions, Star Rating and Owned?.
        #expect(result.summary.skipped.count == 15, "\(result.summary.skipped)")
        // The ISBN/UID as written is each book's origin: the StoryGraph has no other id.
        #expect(
            result.sourced.map(\.origin)
                == ["9780143039433", "0307472787", "a1b2c3d4-uid"].map { BookOrigin(source: .storyGraph, id: $0) })
    }

    @Test func theCSLJSONFileMapsItsBooksAndSkipsOtherItemsByType() throws {
        let result = CSLJSONImport.parse(try SourceExportFixtures.bytes("csl_references.json"))
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books == [
                NewBook(
                    title: "Dune", author: "Frank Herbert",
                    details: BookDetails(
                        isbn: "9780307472786", year: 1965, publisher: "Chilton Books", series: "Dune Chronicles",
                        seriesIndex: SeriesIndex("1"), tags: ["ecology", "sf"], notes: "Read for the seminar.")),
                NewBook(
                    title: "SPQR: A History of Ancient Rome", author: "Mary Beard",
                    details: BookDetails(isbn: "9780871404237", year: 2015, publisher: "Liveright")),
                NewBook(
                    title: "Het Boek", author: "Anna van der Berg, Studio Ghibli", details: BookDetails(year: 1999)),
            ])
        #expect(
            Self.skips(result.summary) == [
                "values of the key \"publisher-place\" (no field keeps them)": 1,
                "items of type \"article-journal\" (not books)": 1,
                "values of the key \"edition\" (no field keeps them)": 1,
            ])
        #expect(
            result.sourced.map(\.origin)
                == ["herbert1965", "beard2015", "vanderberg1999"].map { BookOrigin(source: .cslJSON, id: $0) })
    }

    @Test func theBibTeXFileMapsAccentsMacrosNamesAndCaseBraces() throws {
        let result = BibTeXImport.parse(try SourceExportFixtures.bytes("bibtex_references.bib"))
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books == [
                NewBook(
                    title: "Cien años de soledad", author: "Gabriel García Márquez",
                    details: BookDetails(
                        isbn: "9780060883287", year: 1967, publisher: "Editorial Sudamericana",
                        tags: ["magic realism", "novel"])),
                NewBook(
                    title: "What Is Life?", author: "Erwin Schrödinger",
                    details: BookDetails(
                        year: 1944, publisher: "Penguin Books, New York", series: "Canto Classics",
                        seriesIndex: SeriesIndex("3"), notes: "On the physical aspect\nof the living cell")),
                NewBook(
                    title: "Good Omens: The Nice and Accurate Prophecies of Agnes Nutter, Witch (a novel)",
                    author: "Terry Pratchett, Neil Gaiman", details: BookDetails(year: 1990, publisher: "Gollancz")),
                NewBook(
                    title: "The Brand New Monty Python Bok", author: "Monty Python",
                    details: BookDetails(year: 1973, publisher: "Eyre & Methuen")),
            ])
        #expect(
            Self.skips(result.summary) == [
                "values of the field \"address\" (no field keeps them)": 1,
                "entries of type @article (not books)": 1,
                "volume or number values of books in no series": 1,
                "\"and others\" in an author list (the names are not given)": 1,
                "values of the field \"editor\" (no field keeps them)": 1,
            ])
        #expect(
            result.sourced.map(\.origin)
                == ["garcia1967", "schroedinger1944", "pratchett1990", "pythons"].map {
                    BookOrigin(source: .bibtex, id: $0)
                })
    }

    @Test(arguments: [
        ("{\\\"o}", "ö"), ("\\'{e}", "é"), ("\\'e", "é"), ("{\\`a}", "à"), ("\\^{o}", "ô"), ("\\~n", "ñ"),
        ("\\c{c}", "ç"), ("\\v{s}", "š"), ("\\c c", "ç"), ("{\\'\\i}", "í"), ("\\ss{}", "ß"), ("{\\o}", "ø"),
        ("\\AA", "Å"), ("\\&", "&"), ("50\\%", "50%"), ("\\emph{Dune}", "Dune"), ("{NASA} and {T}he", "NASA and The"),
        ("a  \n  b", "a b"), ("x~y", "x y"), ("\\textbackslash{}", "\\"), ("line\\\\ next", "line\nnext"),
        ("$\\alpha$-helix", "-helix"), ("\\H{o}", "ő"),
    ])
    func latexTextBecomesPlainText(_ latex: String, _ plain: String) {
        #expect(Array(LaTeXText.plain(latex).unicodeScalars) == Array(plain.unicodeScalars))
    }

    @Test func bibTeXNamesAreSplitOnAndOutsideBraces() {
        var summary = ImportSummary()
        #expect(
            BibTeXImport.names(
                "Le Guin, Ursula K. and {Barnes and Noble} and King, Jr., Martin Luther and Plato", summary: &summary)
                == ["Ursula K. Le Guin", "Barnes and Noble", "Martin Luther King Jr.", "Plato"])
        #expect(summary.skipped.isEmpty)
    }

    @Test func aMacroUsedBeforeItIsDefinedIsAProblemOfItsEntry() {
        let bib = "@book{a, title = {One}}\n@book{b,\n title = x}\n@string{x = {Late}}\n@book{c, title = x}\n"
        let result = BibTeXImport.parse(Array(bib.utf8))
        #expect(result.books.map(\.title) == ["One", "Late"])
        #expect(result.problems.map(\.line) == [2])
        #expect(result.problems.first?.reason.contains("the macro \"x\" is not defined") == true)
    }

    @Test func theMonthMacrosAreKnownAndMacrosAreNotCaseSensitive() {
        let bib = "@STRING{Pub = {Gollancz}}\n@book{a, title = {One}, publisher = pub, note = {Read in } # jan}\n"
        let result = BibTeXImport.parse(Array(bib.utf8))
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(
            result.books == [
                NewBook(title: "One", details: BookDetails(publisher: "Gollancz", notes: "Read in January"))
            ])
    }

    @Test func aBadEntryIsAProblemWithItsLineAndTheEntriesAfterItAreRead() {
        let bib = "@book{a, title = {One}}\n\n@book{b, title = {Two} author = {X}}\n@book{c, title = {Three}}\n"
        let result = BibTeXImport.parse(Array(bib.utf8))
        #expect(result.books.map(\.title) == ["One", "Three"])
        #expect(result.problems.map(\.line) == [3])
    }

    @Test func aCSLItemThatIsNotAnObjectOrIsBadJSONIsAProblemWithItsLine() {
        let json =
            "[\n{\"type\": \"book\", \"title\": \"One\"},\n3,\n{\"title\": \"Two\", \"title\": \"Again\"},\n{\"title\": \"Three\"}\n]"
        let result = CSLJSONImport.parse(Array(json.utf8))
        #expect(result.books.map(\.title) == ["One", "Three"])
        #expect(result.problems.map(\.line) == [3, 4], "\(result.problems)")
    }
}
