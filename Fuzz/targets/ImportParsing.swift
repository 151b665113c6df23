// Fuzz target: the CSV and JSON Lines import parser (`BookImport`) and the reader of
// Goodreads' export (`GoodreadsImport`), which shares its CSV reader.
// fuzz-needs: BookImport GoodreadsImport
//
// Input: a whole import file. Both formats and the Goodreads reader parse it; every book the parser accepts must
// already be what a store keeps (validating it again changes nothing), and every problem
// names a line that exists in the file.
import BookCatalog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportParsing(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.count { $0 == UInt8(ascii: "\n") } + 1
    _ = BookImport.format(fileName: "books", content: bytes)
    for result in [
        BookImport.parse(bytes, format: .csv), BookImport.parse(bytes, format: .jsonLines),
        GoodreadsImport.parse(bytes),
    ] {
        for book in result.books {
            precondition((try? book.validated()) == book, "accepted book is not stored as parsed: \(book)")
        }
        for problem in result.problems {
            precondition(problem.line >= 1 && problem.line <= lines, "problem on line \(problem.line) of \(lines)")
        }
    }
    return 0
}
