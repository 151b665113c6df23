// Fuzz target: query folding and tokenising (`SearchTerms`, and `BookText`, the columns the
// SQLite store derives from it).
// fuzz-needs: SearchTerms BookText
//
// Input: byte 0 splits the rest into a query and a title (both decoded as UTF-8, invalid
// bytes repaired). Checks that highlight ranges lie inside the title, in order, and that
// ranking and matching agree (a rank below 2 means every word was found in the title).
import BookCatalog

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryFolding(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let cut = min(Int(data[0]), bytes.count)
    let query = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<cut]), as: UTF8.self)
    let title = String(decoding: UnsafeBufferPointer(rebasing: bytes[cut...]), as: UTF8.self)

    let terms = SearchTerms(query)
    _ = SearchTerms.indexText(query)
    _ = BookText(title: title, author: query)
    let record = BookRecord(id: 1, title: title.isEmpty ? "x" : title, revision: 1, author: query)
    let matches = terms.matches(record)
    let rank = terms.rank(record)
    if !terms.isEmpty, rank < 2 {
        precondition(matches, "ranked in the title (\(rank)) but does not match")
    }
    var previous = record.title.startIndex
    for range in terms.highlightRanges(in: record.title) {
        precondition(range.lowerBound >= record.title.startIndex && range.upperBound <= record.title.endIndex)
        precondition(range.lowerBound >= previous, "highlight ranges out of order")
        _ = record.title[range]
        previous = range.lowerBound
    }
    return 0
}
