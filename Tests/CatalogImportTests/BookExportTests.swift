import BookCatalog
import CatalogImport
import Testing

/// What `BookExport` writes, `BookImport` reads back exactly.
@Suite struct BookExportTests {
    /// Text that breaks naive CSV and JSON writers, and Unicode that must survive byte for byte.
    static let unicodeEdgeCorpus: [NewBook] = [
        NewBook(title: "Rome, the City", author: "Beard, Mary"),
        NewBook(title: "The \"Quoted\" Book", author: "O'Brien \"Flann\""),
        NewBook(title: "\"", author: "\"\""),
        NewBook(title: "title,author", author: "title"),
        NewBook(title: "Back\\slash \\n \\u0041 \\\"", author: "C:\\Users\\"),
        NewBook(title: "{\"title\": \"inner\"}", author: "[1, 2]"),
        NewBook(title: "Café", author: "Cafe\u{301} (decomposed)"),
        NewBook(title: "Spring 🌸 Rome", author: "👩‍👩‍👧‍👦 family 🇯🇵🇫🇷"),
        NewBook(title: "שלום עולם", author: "مرحبا بالعالم"),
        NewBook(title: "日本の歴史", author: "山田太郎"),
        NewBook(title: "Soft\u{AD}Hyphen\u{2060}Word\u{2060}Joiner", author: "No\u{A0}Break\u{200B}Zero\u{200D}Joiner"),
        NewBook(title: "\u{FEFF}Byte order mark inside", author: "\u{FEFF}"),
        NewBook(title: "=SUM(A1:A2)", author: "+1-2"),
        NewBook(title: "Tab-free but ␉ pictured", author: ""),
        NewBook(
            title: String(repeating: "é", count: BookValidation.maximumTitleLength),
            author: String(repeating: "ß", count: BookValidation.maximumAuthorLength)),
        NewBook(title: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral 𐐷", author: "Ω≈ç√∫"),
    ]

    @Test(arguments: BookExportFormat.allCases)
    func whatIsExportedImportsBackUnchanged(_ format: BookExportFormat) {
        for books in [Self.unicodeEdgeCorpus, SampleBooks.starter.shelves.flatMap(\.books)] {
            var text = BookExport.header(format).map { $0 + "\n" } ?? ""
            for book in books { text += BookExport.line(title: book.title, author: book.author, format: format) + "\n" }
            let read = BookImport.parse(
                Array(text.utf8),
                format: BookImport.format(fileName: "books.\(format.rawValue)", content: Array(text.utf8)))
            #expect(read.problems.isEmpty, "\(read.problems.prefix(3))")
            #expect(read.books.count == books.count)
            for (got, sent) in zip(read.books, books) {
                // Byte for byte: String's == would call "é" and "e\u{301}" equal.
                #expect(Array(got.title.unicodeScalars) == Array(sent.title.unicodeScalars), "\(sent.title)")
                #expect(Array(got.author.unicodeScalars) == Array(sent.author.unicodeScalars), "\(sent.author)")
            }
        }
    }

    @Test func theCorpusIsValidBooks() throws {
        for book in Self.unicodeEdgeCorpus { #expect(try book.validated() == book, "\(book.title)") }
    }

    /// Titles and authors that are not valid UTF-8 (another program stored them), each with
    /// the line it starts on in CSV (after the header; one holds a line break) and in JSON Lines.
    static let storedBytes: [(title: [UInt8], author: [UInt8], csvLine: Int, jsonLine: Int)] = [
        ([0x41, 0xFF, 0x42], Array("Writer".utf8), 2, 1),
        // Cut off at the very end.
        (Array("Valid".utf8), [0xE2, 0x82], 3, 2),
        // An encoded surrogate, a quote, a comma, a line break and an overlong slash.
        ([0xED, 0xA0, 0x80, 0x22, 0x2C, 0x0A, 0xC0, 0xAF], [0x80], 4, 3),
        // The escape's own text beside a bad byte; past U+10FFFF beside a valid emoji.
        (Array(#"\udcff "#.utf8) + [0xFF], [0xF4, 0x90, 0x80, 0x80, 0xF0, 0x9F, 0x98, 0x80], 6, 4),
    ]

    @Test(arguments: BookExportFormat.allCases)
    func bytesThatAreNotUTF8RestoreExactlyAndAPlainImportRefusesThem(_ format: BookExportFormat) {
        var file: [UInt8] = BookExport.header(format).map { Array($0.utf8) + [0x0A] } ?? []
        for book in Self.storedBytes {
            file += BookExport.line(storedTitle: book.title, storedAuthor: book.author, format: format) + [0x0A]
        }
        let kind = BookImport.format(fileName: "books.\(format.rawValue)", content: file)
        let restored = BookImport.parse(file, format: kind, restoring: true)
        #expect(restored.problems.isEmpty, "\(restored.problems)")
        #expect(restored.books.count == Self.storedBytes.count)
        for (book, sent) in zip(restored.books, Self.storedBytes) {
            #expect(
                book.storedBytes == StoredBytes(title: sent.title, author: sent.author),
                "\(book.title.debugDescription)")
        }
        let plain = BookImport.parse(file, format: kind)
        #expect(plain.books.isEmpty)
        #expect(
            plain.problems.map(\.line) == Self.storedBytes.map { format == .csv ? $0.csvLine : $0.jsonLine },
            "\(plain.problems)")
        #expect(
            plain.problems.allSatisfy { $0.reason.contains("not valid UTF-8") && $0.reason.contains("--restore") },
            "\(plain.problems)")
    }

    @Test func jsonLinesWriteEachBadByteAsASurrogateEscape() {
        let line = BookExport.line(
            storedTitle: [0x41, 0xFF, 0x42, 0xC3, 0xA9, 0xE2, 0x82], storedAuthor: Array(#"\"#.utf8), format: .jsonl)
        #expect(String(validating: line, as: UTF8.self) == #"{"title":"A\udcffBé\udce2\udc82","author":"\\"}"#)
    }

    @Test func aRestoreTakesOnlyTheEscapesExportWrites() {
        for (line, reason) in [
            (#"{"title":"A\udc7f"}"#, "unpaired surrogate"), (#"{"title":"A\udd00"}"#, "unpaired surrogate"),
            (#"{"title":"A\ud800\udcff"}"#, nil), (#"{"title\udcff":"A"}"#, "a key is not valid UTF-8"),
        ] {
            let result = BookImport.parse(Array(line.utf8), format: .jsonLines, restoring: true)
            if let reason {
                #expect(
                    result.problems.count == 1 && result.problems[0].reason.contains(reason),
                    "\(line): \(result.problems)")
            } else {
                #expect(
                    result.problems.isEmpty && result.books.first?.title == "A\u{100FF}", "\(line): \(result.problems)")
            }
        }
        // A raw bad byte in a JSON line is not what export writes: refused even when restoring.
        let raw = Array(#"{"title":"A"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(BookImport.parse(raw, format: .jsonLines, restoring: true).problems.map(\.line) == [1])
    }

    /// Cells a spreadsheet would run (OWASP "CSV Injection"), and cells that already start
    /// with the apostrophe that neutralises them, which must not be mistaken for neutralised ones.
    static let formulaBooks: [NewBook] = [
        NewBook(
            title: "=HYPERLINK(\"http://example.com\",\"Click\")", author: "+cmd|' /C calc'!A0",
            details: BookDetails(
                publisher: "@SUM(1+1)", series: "-2+3", tags: ["=tag", "plain"], notes: "-list first\n+second")),
        NewBook(title: "-2+3", author: "@Someone", details: BookDetails(notes: "+1")),
        NewBook(title: "'=already quoted", author: "''+twice", details: BookDetails(notes: "'-")),
        NewBook(title: "'", author: "'plain apostrophe", details: BookDetails(publisher: "O'Reilly")),
        NewBook(title: "Plain = later", author: "Author - Name", details: BookDetails(year: -430)),
    ]

    /// What a spreadsheet reads as each cell of a line whose fields are all quoted.
    private func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var quoted = false
        var previous: Character?
        for character in line {
            switch (character, quoted) {
            case ("\"", false):
                if previous == "\"" { current.append("\"") }
                quoted = true
            case ("\"", true): quoted = false
            case (",", false): cells.append(current); current = ""
            default: current.append(character)
            }
            previous = character
        }
        return cells + [current]
    }

    @Test func aCellASpreadsheetWouldRunStartsWithAnApostrophe() {
        let triggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]
        for book in Self.formulaBooks {
            let line = BookExport.line(title: book.title, author: book.author, details: book.details, format: .csv)
            // The year (the fourth cell) is a number, checked below.
            for (column, cell) in cells(line).enumerated() where column != 3 {
                #expect(
                    !(cell.unicodeScalars.first.map { triggers.contains(Character($0)) } ?? false),
                    "\(cell.debugDescription) in \(line)")
            }
        }
        let hyperlink = Self.formulaBooks[0]
        #expect(
            BookExport.line(title: hyperlink.title, author: hyperlink.author, format: .csv)
                == #""'=HYPERLINK(""http://example.com"",""Click"")","'+cmd|' /C calc'!A0","","","","","","","""#)
        #expect(
            cells(BookExport.line(title: "T", author: "", details: Self.formulaBooks[0].details, format: .csv))
                == ["T", "", "", "", "'@SUM(1+1)", "'-2+3", "", "'=tag, plain", "'-list first\n+second"])
        #expect(
            cells(
                BookExport.line(title: "-2+3", author: "@Someone", details: Self.formulaBooks[1].details, format: .csv))
                == ["'-2+3", "'@Someone", "", "", "", "", "", "", "'+1"])
        // A tab or a carriage return first: only text another program stored can start so.
        #expect(cells(BookExport.line(title: "\tT", author: "\rA", format: .csv)).prefix(2) == ["'\tT", "'\rA"])
        // The year is a whole number: "-430" is the number a spreadsheet shows, never a formula.
        #expect(
            cells(BookExport.line(title: "T", author: "", details: BookDetails(year: -430), format: .csv))[3] == "-430")
        // A cell that starts with apostrophes before a formula character gets one more, so an
        // import that takes one off gives back the text exactly; other apostrophes stay as they are.
        #expect(
            cells(BookExport.line(title: "'=x", author: "''+y", format: .csv)).prefix(2) == ["''=x", "'''+y"])
        #expect(
            cells(BookExport.line(title: "'", author: "'plain", format: .csv)).prefix(2) == ["'", "'plain"])
    }

    @Test func rawCellsWriteTheTextAsItIs() {
        let book = Self.formulaBooks[0]
        #expect(
            BookExport.line(title: book.title, author: book.author, format: .csv, cells: .raw)
                == #""=HYPERLINK(""http://example.com"",""Click"")","+cmd|' /C calc'!A0","","","","","","","""#)
        let expected: [UInt8] = Array("\"=".utf8) + [0xFF] + Array(#"","-x","","","","","","","""#.utf8)
        let written = BookExport.line(
            storedTitle: [0x3D, 0xFF], storedAuthor: Array("-x".utf8), format: .csv, cells: .raw)
        #expect(written == expected)
    }

    @Test(arguments: [false, true])
    func formulaCellsComeBackExactlyFromAnImport(_ restoring: Bool) {
        var text = BookExport.header(.csv)! + "\n"
        for book in Self.formulaBooks {
            text += BookExport.line(title: book.title, author: book.author, details: book.details, format: .csv) + "\n"
        }
        let read = BookImport.parse(Array(text.utf8), format: .csv, restoring: restoring)
        #expect(read.problems.isEmpty, "\(read.problems)")
        #expect(read.books.count == Self.formulaBooks.count)
        for (got, sent) in zip(read.books, Self.formulaBooks) {
            #expect(Array(got.title.unicodeScalars) == Array(sent.title.unicodeScalars), "\(sent.title)")
            #expect(Array(got.author.unicodeScalars) == Array(sent.author.unicodeScalars), "\(sent.author)")
            #expect(got.details == sent.details, "\(sent.title)")
        }
        guard restoring else { return }
        // Text another program stored, which only a restore takes: a tab or a CR first.
        let tabbed =
            BookExport.header(.csv)! + "\n" + BookExport.line(title: "\t=1+1", author: "\r@x", format: .csv) + "\n"
        let taken = BookImport.parse(Array(tabbed.utf8), format: .csv, restoring: true)
        #expect(
            taken.problems.isEmpty && taken.books.map(\.title) == ["\t=1+1"] && taken.books.map(\.author) == ["\r@x"])
        // Bytes that are not UTF-8 behind a formula character come back too.
        let stored = BookExport.line(storedTitle: [0x3D, 0xFF], storedAuthor: Array("@x".utf8), format: .csv)
        #expect(stored.starts(with: Array("\"'=".utf8)))
        let header = Array((BookExport.header(.csv)! + "\n").utf8)
        let back = BookImport.parse(header + stored + [0x0A], format: .csv, restoring: true)
        #expect(back.books.first?.storedBytes == StoredBytes(title: [0x3D, 0xFF], author: Array("@x".utf8)))
    }
}
