import BookCatalog
import BookshelfTestSupport
import CatalogImport
import Testing

@Suite struct BookImportCSVTests {
    private func csv(_ text: String) -> BookImportResult { BookImport.parse(text, format: .csv) }

    @Test func readsTitleAndAuthorInEitherOrderAndIgnoresOtherColumns() {
        let result = csv("author,shelf,title\nMary Beard,123,SPQR\nTheodor Mommsen,,History of Rome\n")
        #expect(result.problems == [])
        #expect(
            result.books == [
                NewBook(title: "SPQR", author: "Mary Beard"),
                NewBook(title: "History of Rome", author: "Theodor Mommsen"),
            ])
    }

    /// Issue 60: a plain file's rows have no id of their own, so its books have no origin.
    @Test func aPlainFilesBooksHaveNoOrigin() {
        let fromCSV = csv("title,author,id\nDune,Frank Herbert,7\n")
        let fromJSONLines = BookImport.parse("{\"title\": \"Dune\", \"id\": \"7\"}\n", format: .jsonLines)
        #expect(fromCSV.sourced.map(\.origin) == [nil] && fromJSONLines.sourced.map(\.origin) == [nil])
    }

    @Test func theAuthorColumnIsOptional() {
        #expect(csv("Title\nDune\n").books == [NewBook(title: "Dune")])
    }

    @Test func quotedFieldsHoldCommasDoubledQuotesAndLineBreaks() {
        let text = """
            title,author,comment
            "Rome, the Eternal City","Beard, Mary",plain
            "The ""Quoted"" Book",Anon,"first line
            second line"
            Last,Writer,x
            """
        let result = csv(text)
        #expect(result.problems == [])
        #expect(
            result.books == [
                NewBook(title: "Rome, the Eternal City", author: "Beard, Mary"),
                NewBook(title: "The \"Quoted\" Book", author: "Anon"),
                NewBook(title: "Last", author: "Writer"),
            ])
    }

    @Test func lineNumbersCountPhysicalLinesAcrossQuotedLineBreaks() {
        let text = "title,notes\n\"A\",\"one\ntwo\nthree\"\n,missing\n"
        #expect(csv(text).problems == [BookImportProblem(line: 5, reason: "missing title")])
    }

    @Test func toleratesByteOrderMarkCRLFBlankLinesAndNoFinalNewline() {
        let text = "\u{FEFF}title,author\r\nCafé Society,Zoë Müller\r\n\r\n日本の歴史,佐藤 花子"
        let result = csv(text)
        #expect(result.problems == [])
        #expect(
            result.books == [
                NewBook(title: "Café Society", author: "Zoë Müller"),
                NewBook(title: "日本の歴史", author: "佐藤 花子"),
            ])
    }

    @Test func aQuotedFieldEndingWithCRLFIsNotPartOfTheText() {
        let result = csv("title,author\r\n\"Dune\",\"Frank Herbert\"\r\n")
        #expect(result.books == [NewBook(title: "Dune", author: "Frank Herbert")])
    }

    @Test func aTrailingEmptyFieldCounts() {
        #expect(csv("title,author\nDune,").books == [NewBook(title: "Dune", author: "")])
    }

    @Test func trimsWhitespaceLikeTheCatalogDoes() {
        #expect(
            csv("title,author\n  Dune  , Frank Herbert \n").books == [NewBook(title: "Dune", author: "Frank Herbert")])
    }

    @Test func reportsEveryBadLineWithItsNumberAndReason() {
        let long = String(repeating: "x", count: BookValidation.maximumTitleLength + 1)
        let text = """
            title,author
            Good One,A
            ,Nobody
            Too,Many,Fields
            \(long),B
            "Bell\u{07}",C
            Stray "quote",D
            "Closed"junk,E
            Fine,"Author\u{1B}[31m"
            Good Two,F
            """
        let result = csv(text)
        #expect(result.books.map(\.title) == ["Good One", "Good Two"])
        #expect(
            result.problems == [
                BookImportProblem(line: 3, reason: "missing title"),
                BookImportProblem(
                    line: 4, reason: "expected 2 fields as in the header, found 3 (quote fields that contain commas)"),
                BookImportProblem(line: 5, reason: "title is too long (501 characters, at most 500)"),
                BookImportProblem(line: 6, reason: "title contains a control character (U+0007)"),
                BookImportProblem(
                    line: 7,
                    reason: "a quote inside an unquoted field (quote the whole field and double the quotes inside it)"),
                BookImportProblem(
                    line: 8, reason: "unexpected text after a closing quote (double a quote to include it)"),
                BookImportProblem(line: 9, reason: "author contains a control character (U+001B)"),
            ])
    }

    @Test func aLineBreakInsideATitleIsAControlCharacter() {
        let result = csv("title\n\"two\nlines\"\n")
        #expect(result.books == [])
        #expect(result.problems == [BookImportProblem(line: 2, reason: "title contains a control character (U+000A)")])
    }

    @Test func bidirectionalOverridesAreRejected() {
        let result = csv("title\nabc\u{202E}fed\n")
        #expect(result.problems == [BookImportProblem(line: 2, reason: "title contains a control character (U+202E)")])
    }

    @Test func anUnclosedQuoteIsReportedAtTheLineItStarts() {
        let result = csv("title\nFine\n\"Never closed\nmore\nlines\n")
        #expect(result.books == [NewBook(title: "Fine")])
        #expect(
            result.problems == [BookImportProblem(line: 3, reason: "a quoted field is never closed (a \" is missing)")])
    }

    @Test func invalidUTF8IsReported() {
        let bytes = Array("title\nok\n".utf8) + [0xC3, 0x28, 0x0A]
        let result = BookImport.parse(bytes, format: .csv)
        #expect(result.books == [NewBook(title: "ok")])
        #expect(
            result.problems == [
                BookImportProblem(
                    line: 3,
                    reason:
                        "the title is not valid UTF-8 text; if the file is a 'bookshelf export', 'bookshelf import --restore' takes it back byte for byte"
                )
            ])
    }

    @Test func aHeaderWithoutTitleIsOneProblem() {
        let result = csv("Dune,Frank Herbert\nFoundation,Isaac Asimov\n")
        #expect(result.books == [])
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.line == 1)
        #expect(result.problems.first?.reason.contains("\"title\"") == true)
    }

    @Test func aDuplicatedColumnIsAProblem() {
        #expect(
            csv("title,Title\na,b\n").problems == [
                BookImportProblem(line: 1, reason: "the header names the column \"title\" twice")
            ])
    }

    @Test func anEmptyFileIsAProblem() {
        #expect(csv("").problems.map(\.line) == [1])
        #expect(csv("\u{FEFF}").problems.map(\.line) == [1])
    }

    @Test func aHeaderAloneImportsNothingWithoutComplaint() {
        #expect(csv("title,author\n") == BookImportResult(books: [], problems: []))
    }
}

@Suite struct BookImportJSONLinesTests {
    private func jsonl(_ text: String) -> BookImportResult { BookImport.parse(text, format: .jsonLines) }

    @Test func readsOneObjectPerLine() {
        let text = """
            {"title": "Dune", "author": "Frank Herbert"}
            {"author": "Zoë Müller", "title": "Caf\\u00e9 Society", "rating": 5, "shelves": ["a", {"b": null}]}

            {"title": "No author"}
            {"title": "Null author", "author": null}
            {"title": "\\ud83d\\ude80 Rockets \\"quoted\\" \\/ slash"}
            """
        let result = jsonl(text)
        #expect(result.problems == [])
        #expect(
            result.books == [
                NewBook(title: "Dune", author: "Frank Herbert"),
                NewBook(title: "Café Society", author: "Zoë Müller"),
                NewBook(title: "No author"),
                NewBook(title: "Null author"),
                NewBook(title: "🚀 Rockets \"quoted\" / slash"),
            ])
    }

    @Test func toleratesByteOrderMarkAndCRLF() {
        let result = jsonl("\u{FEFF}{\"title\": \"日本の歴史\"}\r\n{\"title\": \"한국의 역사\"}\r\n")
        #expect(result.problems == [])
        #expect(result.books.map(\.title) == ["日本の歴史", "한국의 역사"])
    }

    @Test func reportsEveryBadLineWithItsNumberAndReason() {
        let text = """
            {"title": "Good"}
            {"title": "Unclosed}
            {"author": "No title"}
            {"title": 42}
            {"title": ""}
            {"title": "Bell\\u0007"}
            ["not", "an", "object"]
            {"title": "Trailing"} extra
            {"title": "Raw\ttab"}
            {"title": "x", "author": true}
            {"title": "Good again"}
            """
        let result = jsonl(text)
        #expect(result.books.map(\.title) == ["Good", "Good again"])
        #expect(result.problems.map(\.line) == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        let reasons = Dictionary(uniqueKeysWithValues: result.problems.map { ($0.line, $0.reason) })
        #expect(reasons[2] == "bad JSON: a string is never closed (column 21)")
        #expect(reasons[3] == "missing \"title\"")
        #expect(reasons[4] == "\"title\" must be a string, not a number")
        #expect(reasons[5] == "missing title")
        #expect(reasons[6] == "title contains a control character (U+0007)")
        #expect(reasons[7]?.hasPrefix("bad JSON: each line must be one object") == true)
        #expect(reasons[8] == "bad JSON: unexpected text after the object (column 23)")
        #expect(reasons[9]?.hasPrefix("bad JSON: a control character must be escaped") == true)
        #expect(reasons[10] == "\"author\" must be a string, not a boolean")
    }

    @Test func malformedJSONOfEveryKindIsCaught() {
        let bad = [
            "{", "{\"title\"}", "{\"title\": }", "{\"title\": \"a\",}", "{title: \"a\"}",
            "{\"title\": \"a\" \"author\": \"b\"}", "{\"title\": \"\\x\"}", "{\"title\": \"\\ud83d\"}",
            "{\"title\": \"\\u12\"}", "{\"title\": \"a\", \"n\": 01}", "{\"title\": \"a\", \"n\": 1.}",
            "{\"title\": \"a\", \"n\": tru}", "{\"title\": \"a\", \"n\": [1,]}",
            "{\"title\": \"a\", \"n\": " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
                + "}",
        ]
        for line in bad {
            let result = jsonl(line)
            #expect(result.books == [], "\(line)")
            #expect(
                result.problems.count == 1 && result.problems[0].reason.hasPrefix("bad JSON: "),
                "\(line): \(result.problems)")
        }
    }

    @Test func validNumbersAndNestingAreSkipped() {
        let result = jsonl(#"{"n": -0.5e+3, "m": [[], {}, [1, 2.25, -3E2]], "title": "ok", "t": false, "z": null}"#)
        #expect(result.problems == [])
        #expect(result.books == [NewBook(title: "ok")])
    }
}

@Suite struct BookImportFormatTests {
    @Test func theExtensionDecides() {
        let jsonContent = Array("{\"title\": \"a\"}".utf8)
        #expect(BookImport.format(fileName: "books.CSV", content: jsonContent) == .csv)
        #expect(BookImport.format(fileName: "books.jsonl", content: Array("title\n".utf8)) == .jsonLines)
        #expect(BookImport.format(fileName: "books.ndjson", content: [UInt8]()) == .jsonLines)
    }

    @Test func otherwiseTheContentDecides() {
        #expect(
            BookImport.format(fileName: "books.txt", content: Array("\u{FEFF}  \n{\"title\": \"a\"}".utf8))
                == .jsonLines)
        #expect(BookImport.format(fileName: "books", content: Array("title,author\n".utf8)) == .csv)
        #expect(BookImport.format(fileName: "-", content: [UInt8]()) == .csv)
    }
}

@Suite struct BookImportUnsafeCharacterTests {
    @Test func aTitleOrAuthorWithAnyCharacterATerminalWouldActOnIsRejected() {
        for (name, scalar) in UnsafeCharacters.samples {
            let character = String(scalar)
            let titles = BookImport.parse("title,author\nBefore\(character)After,Someone\n", format: .csv)
            #expect(titles.books.isEmpty, "a title with \(name) was imported")
            #expect(titles.problems.map(\.line) == [2], "\(name): \(titles.problems)")
            let authors = BookImport.parse(
                "{\"title\":\"Plain\",\"author\":\"Some\(character)one\"}\n", format: .jsonLines)
            #expect(authors.books.isEmpty, "an author with \(name) was imported")
            #expect(authors.problems.count == 1, "\(name): \(authors.problems)")
        }
    }
}
