import BookCatalog
@testable import CatalogImport
import Testing

/// `BookImportStream` reads a file a chunk at a time: wherever the chunks end, it makes what
/// the whole file makes, and a field or line too long to keep is refused with its line as soon
/// as the bytes read pass the limit, without holding the rest of it.
@Suite struct BookImportStreamTests {
    /// Every event of `bytes` read `chunk` bytes at a time.
    static func events(
        _ bytes: [UInt8], kind: BookImportStream.Kind?, chunk: Int, restoring: Bool = false
    ) throws -> [BookImportEvent] {
        var offset = 0
        var stream = BookImportStream(kind: kind, fileName: "", restoring: restoring) {
            defer { offset = min(bytes.count, offset + chunk) }
            return Array(bytes[offset..<min(bytes.count, offset + chunk)])
        }
        var events: [BookImportEvent] = []
        while let event = try stream.next() { events.append(event) }
        return events
    }

    static let files: [(String, BookImportStream.Kind?)] = [
        (
            "\u{FEFF}title,author,notes,extra\r\n\"Rome, \"\"the\"\" City\",\"Beard,\r\nMary\",\"one\ntwo\",x\r\n\r\n"
                + "Dune,Frank Herbert,,\nBad \"quote,A,,\n\"Unclosed,A,,\nText \"after\",B,,\n\"Closed\"after,C,,\n"
                + "Short,line\n'=Formula,'@x,\"'-n\",\nLast,\"Quoted at the end\",,", .csv
        ),
        ("title\rDune\rMore\r", .csv),
        ("", .csv),
        (
            "{\"title\": \"A\", \"author\": \"B\"}\r\n\n  \n{\"title\": 3}\n{bad json\n{\"title\": \"Ünïcode 🌍\", \"tags\": [\"x\"]}\n"
                + "{\"title\": \"No end\"}", .jsonLines
        ),
        (
            "Book Id,Title,Author,Additional Authors,ISBN,ISBN13,My Review\n"
                + "1,\"The Fellowship of the Ring (The Lord of the Rings, #1)\",J.R.R. Tolkien,,\"=\"\"0618346252\"\"\",=\"\",\"Long<br/>review\"\n"
                + "2,,Nobody,,,,\n3,Dune,Frank Herbert,,,,\n", .goodreads
        ),
        ("{\"title\": \"Detected\"}\n", nil),
    ]

    @Test(arguments: [1, 2, 3, 5, 8, 13, 64])
    func whereverTheChunksEndTheFileReadsTheSame(_ chunk: Int) throws {
        for (text, kind) in Self.files {
            let bytes = Array(text.utf8)
            let whole = try Self.events(bytes, kind: kind, chunk: bytes.count + 1)
            #expect(!whole.isEmpty, "\(text.debugDescription)")
            #expect(try Self.events(bytes, kind: kind, chunk: chunk) == whole, "\(text.debugDescription)")
        }
    }

    /// The lines of a file whose third record holds a field of `size` bytes made of `filler`.
    static func fileWithLongField(quoted: Bool, filler: String, size: Int) -> [UInt8] {
        // Whole fillers, so a doubled quote is never cut in half.
        let field = String(repeating: filler, count: size / filler.utf8.count + 1)
        let long = quoted ? "\"" + field + "\"" : field
        return Array(("title,author\nFirst,A\n" + long + ",B\nAfter,C\nBad \u{7}bell,D\n").utf8)
    }

    @Test(arguments: [(true, "x,\n\"\"y"), (false, "xyz")])
    func aFieldPastItsLimitIsRefusedWithItsLineAndTheRestIsStillRead(_ quoted: Bool, _ filler: String) throws {
        let size = BookImportStream.maximumFieldBytes * 3
        let bytes = Self.fileWithLongField(quoted: quoted, filler: filler, size: size)
        // The line breaks inside the quoted field are lines of the file.
        let breaks = quoted ? bytes.filter { $0 == UInt8(ascii: "\n") }.count - 5 : 0
        var offset = 0
        let chunk = 64 << 10
        var stream = BookImportStream(kind: .csv) {
            defer { offset = min(bytes.count, offset + chunk) }
            return Array(bytes[offset..<min(bytes.count, offset + chunk)])
        }
        var books: [String] = []
        var problems: [BookImportProblem] = []
        var readWhenRefused: Int?
        while let event = try stream.next() {
            switch event {
            case let .book(book): books.append(book.book.title)
            case let .problem(problem):
                problems.append(problem)
                if readWhenRefused == nil { readWhenRefused = stream.bytesRead }
            }
        }
        #expect(books == ["First", "After"])
        #expect(problems.map(\.line) == [3, 5 + breaks], "\(problems)")
        #expect(problems.first?.reason.contains("a field is longer than 1,048,576 bytes") == true, "\(problems)")
        // Refused as soon as the bytes read passed the limit, not at the end of the field.
        let refusedAt = try #require(readWhenRefused)
        #expect(refusedAt <= BookImportStream.maximumFieldBytes + 2 * chunk, "refused after \(refusedAt) bytes")
        #expect(stream.peakBufferedBytes <= BookImportStream.maximumFieldBytes + 2 * chunk)
    }

    @Test func aJSONLinePastItsLimitIsRefusedWithItsLine() throws {
        let long = String(repeating: "a", count: BookImportStream.maximumRecordBytes * 2)
        let text = "{\"title\": \"First\"}\n{\"title\": \"" + long + "\"}\n{\"title\": \"After\"}\n{\"title\": 1}\n"
        let events = try Self.events(Array(text.utf8), kind: .jsonLines, chunk: 1 << 20)
        let expected: [BookImportEvent] = [
            .book(SourcedBook(NewBook(title: "First"))),
            .problem(BookImportProblem(line: 2, reason: BookImportStream.lineTooLong)),
            .book(SourcedBook(NewBook(title: "After"))),
            .problem(BookImportProblem(line: 4, reason: "\"title\" must be a string, not a number")),
        ]
        #expect(events == expected)
    }

    @Test func aWholeFileInOneChunkIsHeldToTheSameLimit() {
        let bytes = Self.fileWithLongField(quoted: true, filler: "x", size: BookImportStream.maximumFieldBytes + 1)
        let result = BookImport.parse(bytes, format: .csv)
        #expect(result.books.map(\.title) == ["First", "After"])
        #expect(result.problems.map(\.line) == [3, 5])
        #expect(result.problems.first?.reason == BookImportStream.fieldTooLong)
    }
}
