import BookCatalog
@testable import CatalogImport
import Testing

/// `BookSourceStream`: every source recognised from its first chunk, every encoding read as the
/// same text, the same events wherever the chunks end, and every input bounded: a record too
/// long, nesting too deep, macros too large are each a problem with a line, the rest still read.
@Suite struct BookSourceStreamTests {
    static let fixtures: [(file: String, source: BookSource)] = [
        ("librarything_export.tsv", .libraryThing), ("librarything_export.json", .libraryThing),
        ("storygraph_export.csv", .storyGraph), ("csl_references.json", .cslJSON),
        ("bibtex_references.bib", .bibTeX), ("goodreads_library_export.csv", .goodreads),
    ]

    static func events(_ bytes: [UInt8], source: BookSource?, chunk: Int) throws -> [BookImportEvent] {
        var stream = BookSourceStream(source: source, read: SourceExportFixtures.chunks(of: bytes, size: chunk))
        var events: [BookImportEvent] = []
        while let event = try stream.next() { events.append(event) }
        return events
    }

    @Test func eachSampleIsRecognisedFromItsFirstChunkAndReadAsItsSourceReadsIt() throws {
        for (file, source) in Self.fixtures {
            let bytes = try SourceExportFixtures.bytes(file)
            var detecting = BookSourceStream(bytes: bytes, source: nil, fileName: file)
            let detected = detecting.collected()
            #expect(detecting.detected?.source == source, "\(file)")
            #expect(detecting.detected?.isJSON == file.hasSuffix(".json"), "\(file)")
            var told = BookSourceStream(bytes: bytes, source: source)
            #expect(detected == told.collected(), "\(file)")
            #expect(!detected.books.isEmpty, "\(file)")
        }
    }

    @Test(arguments: [
        ("title,author\nDune,Frank Herbert\n", BookSource.csv), ("{\"title\": \"Dune\"}\n", .jsonLines),
        ("\n\n% JabRef\n@book{a, title = {Dune}}", .bibTeX), ("  [ ]", .cslJSON),
        ("{\"1\": {\"title\": \"Dune\"}}", .libraryThing),
    ])
    func bookshelfsOwnFormatsAndTheOthersAreToldApart(_ text: String, _ source: BookSource) {
        #expect(BookSourceStream.detect(Array(text.utf8)).source == source)
    }

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func whereverTheChunksEndEachSampleReadsTheSame(_ chunk: Int) throws {
        for (file, source) in Self.fixtures {
            let bytes = try SourceExportFixtures.bytes(file)
            let whole = try Self.events(bytes, source: source, chunk: bytes.count + 1)
            #expect(try Self.events(bytes, source: source, chunk: chunk) == whole, "\(file)")
        }
    }

    /// `text` in UTF-8 with a mark, and in UTF-16 of both byte orders with theirs.
    static func encodings(of text: String) -> [(TextEncoding, [UInt8])] {
        let units = Array(text.utf16)
        return [
            (.utf8, Array(text.utf8)), (.utf8WithByteOrderMark, [0xEF, 0xBB, 0xBF] + Array(text.utf8)),
            (.utf16LittleEndian, [0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            (.utf16BigEndian, [0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
        ]
    }

    @Test(arguments: [1, 3, 5, 1 << 20])
    func everyEncodingOfASampleReadsAsItsUTF8(_ chunk: Int) throws {
        for file in [
            "storygraph_export.csv", "csl_references.json", "bibtex_references.bib", "librarything_export.json",
        ] {
            let text = try #require(String(validating: try SourceExportFixtures.bytes(file), as: UTF8.self))
            let expected = try Self.events(Array(text.utf8), source: nil, chunk: 1 << 20)
            for (encoding, bytes) in Self.encodings(of: text + "𝔘 astral") {
                var stream = BookSourceStream(source: nil, read: SourceExportFixtures.chunks(of: bytes, size: chunk))
                var events: [BookImportEvent] = []
                while let event = try stream.next() { events.append(event) }
                #expect(stream.detected?.encoding == encoding, "\(file)")
                // The astral text after the last record is no book: the events are the same.
                #expect(events.prefix(expected.count) == expected[...], "\(file) in \(encoding)")
            }
        }
    }

    @Test func aLoneSurrogateInUTF16IsAProblemOfItsLineNotAChangedCharacter() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in Array("Title,Authors,ISBN/UID\nA,B,\n".utf16) + [0xD800] + Array("Bad,C,\nGood,D,\n".utf16) {
            bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let result = StoryGraphImport.parse(bytes)
        #expect(result.books.map(\.title) == ["A", "Good"])
        #expect(result.problems.map(\.line) == [3])
    }

    @Test func aCSLItemPastTheRecordLimitIsRefusedWithItsLineInBoundedMemoryAndTheRestIsRead() throws {
        // Three times the limit: held whole, it would pass the bound on memory below.
        let long = String(repeating: "n", count: BookImportStream.maximumRecordBytes * 3)
        let json =
            "[\n{\"title\": \"First\"},\n{\"title\": \"Long\", \"note\": \"\(long)\"},\n{\"title\": \"After\"}\n]\n"
        let bytes = Array(json.utf8)
        var stream = BookImportStream(
            framer: JSONDocumentFramer(outer: .array), format: CSLJSONImport.Format(),
            read: SourceExportFixtures.chunks(of: bytes, size: 64 << 10))
        var titles: [String] = []
        var problems: [BookImportProblem] = []
        while let event = try stream.next() {
            switch event {
            case let .book(book): titles.append(book.book.title)
            case let .problem(problem): problems.append(problem)
            }
        }
        #expect(titles == ["First", "After"])
        #expect(problems == [BookImportProblem(line: 3, reason: BookImportStream.recordTooLong)])
        #expect(stream.peakBufferedBytes <= BookImportStream.maximumRecordBytes + 2 * (64 << 10))
    }

    @Test func aBibTeXEntryPastTheRecordLimitIsRefusedAndTheNextEntryIsRead() throws {
        let long = String(repeating: "{x}", count: BookImportStream.maximumRecordBytes / 3 + 10)
        let bib = "@book{a, title = {First}}\n@book{b, note = {\(long)}}\n@book{c, title = {After}}\n"
        let result = BibTeXImport.parse(Array(bib.utf8))
        #expect(result.books.map(\.title) == ["First", "After"])
        #expect(result.problems == [BookImportProblem(line: 2, reason: BookImportStream.recordTooLong)])
    }

    @Test func nestingPastItsBoundIsAProblemNotADeepRecursion() {
        let deepJSON =
            "[{\"title\": \"Deep\", \"x\": " + String(repeating: "[", count: 10_000)
            + String(repeating: "]", count: 10_000) + "}, {\"title\": \"After\"}]"
        let json = CSLJSONImport.parse(Array(deepJSON.utf8))
        #expect(json.books.map(\.title) == ["After"])
        #expect(json.problems.first?.reason.contains("nested too deeply") == true)

        let deepBib =
            "@book{a, title = " + String(repeating: "{", count: 10_000) + "Deep"
            + String(repeating: "}", count: 10_000) + "}\n@book{b, title = {After}}\n"
        let bib = BibTeXImport.parse(Array(deepBib.utf8))
        #expect(bib.books.map(\.title) == ["After"])
        #expect(bib.problems.first?.reason.contains("braces nested too deeply") == true)
    }

    @Test func macrosCannotExpandPastTheValueBound() {
        // Each macro doubles the one before: 2^30 bytes if nothing stopped it.
        var bib = "@string{m0 = {xxxxxxxx}}\n"
        for level in 1...30 { bib += "@string{m\(level) = m\(level - 1) # m\(level - 1)}\n" }
        bib += "@book{a, title = m30}\n@book{b, title = {After}}\n"
        let result = BibTeXImport.parse(Array(bib.utf8))
        #expect(result.books.map(\.title) == ["After"])
        #expect(!result.problems.isEmpty)
        #expect(
            result.problems.allSatisfy {
                $0.reason.contains("longer than") || $0.reason.contains("is not defined")
                    || $0.reason.contains("too many @string macros")
            },
            "\(result.problems)")
    }

    @Test func aFileThatIsNotTheSourceAskedForSaysSo() {
        let cases: [(BookSource, String)] = [
            (.cslJSON, "{\"title\": \"Dune\"}"), (.cslJSON, "[{\"title\": \"Dune\"}"), (.cslJSON, ""),
            (.libraryThing, "[1]"), (.cslJSON, "[{\"title\": \"Dune\"}] trailing"),
        ]
        for (source, text) in cases {
            var stream = BookSourceStream(bytes: Array(text.utf8), source: source)
            let result = stream.collected()
            #expect(result.problems.count == 1, "\(text): \(result.problems)")
        }
    }
}
