// Fuzz target: the CSV and JSON Lines import parser (`BookImport`).
// fuzz-needs: BookImport
//
// Input: a whole import file. Both formats parse it; every book the parser accepts must
// already be what a store keeps (validating it again changes nothing), and every problem
// names a line that exists in the file.
import BookCatalog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportParsing(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
    _ = BookImport.format(fileName: "books", content: bytes)
    for format in [BookImportFormat.csv, .jsonLines] {
        let result = BookImport.parse(bytes, format: format)
        for book in result.books {
            precondition((try? book.validated()) == book, "accepted book is not stored as parsed: \(book)")
        }
        for problem in result.problems {
            precondition(problem.line >= 1 && problem.line <= lines, "problem on line \(problem.line) of \(lines)")
        }
    }
    return 0
}
