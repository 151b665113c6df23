// Fuzz target: the readers of the other services' exports, above all the two that parse a
// grammar of their own (`BibTeXImport`: entries, braces, macros, LaTeX; `CSLJSONImport`: one
// JSON document, nested), and the source recognition and decoding in front of them
// (`BookSourceStream`).
// fuzz-needs: BibTeXImport CSLJSONImport BookSourceStream
//
// Input: one byte choosing the chunk size, then a whole file. Each reader reads it; every book
// accepted is already what a store keeps, every problem names a line of the file, the file
// read a chunk at a time gives the same events as read whole, and a book read from CSL-JSON,
// written again by `CitationExport`, reads back as the same book.
import BookCatalog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCitationParsing(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0]) + 1
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    // UTF-16 has an LF byte in every line break; so do UTF-8 and ISO-8859-1.
    let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
    for source in [BookSource.bibTeX, .cslJSON, .libraryThing, .storyGraph, nil] {
        var whole = BookSourceStream(bytes: bytes, source: source)
        let result = whole.collected()
        for book in result.books {
            precondition((try? book.validated()) == book, "accepted book is not stored as parsed: \(book)")
        }
        for problem in result.problems {
            precondition(problem.line >= 1 && problem.line <= lines, "problem on line \(problem.line) of \(lines)")
        }
        var offset = 0
        var chunked = BookSourceStream(source: source) {
            defer { offset = min(bytes.count, offset + chunk) }
            return Array(bytes[offset..<min(bytes.count, offset + chunk)])
        }
        precondition(
            chunked.collected() == result, "read \(chunk) bytes at a time, \(String(describing: source)) differs")
        guard source == .cslJSON else { continue }
        for (index, book) in result.books.enumerated() {
            let item = CitationExport.entry(
                id: index, title: book.title, author: book.author, details: book.details, format: .cslJSON)
            let again = CSLJSONImport.parse(Array(("[" + item + "]").utf8)).books
            precondition(again == [book], "\(book) written as \(item) reads back as \(again)")
        }
    }
    return 0
}
