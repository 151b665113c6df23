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
        NewBook(title: String(repeating: "é", count: BookValidation.maximumTitleLength),
                author: String(repeating: "ß", count: BookValidation.maximumAuthorLength)),
        NewBook(title: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral 𐐷", author: "Ω≈ç√∫"),
    ]

    @Test(arguments: BookExportFormat.allCases)
    func whatIsExportedImportsBackUnchanged(_ format: BookExportFormat) {
        for books in [Self.unicodeEdgeCorpus, SampleBooks.starter.shelves.flatMap(\.books)] {
            var text = BookExport.header(format).map { $0 + "\n" } ?? ""
            for book in books { text += BookExport.line(title: book.title, author: book.author, format: format) + "\n" }
            let read = BookImport.parse(Array(text.utf8), format: BookImport.format(fileName: "books.\(format.rawValue)", content: Array(text.utf8)))
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
}
