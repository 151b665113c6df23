// Fuzz target: the search index file beside a catalog, header and blocks, through the path a
// catalog's open takes (`SearchIndexSnapshotProbe.mapAndSearch`): written to a file, opened
// without following links or blocking, checked by `fstat`, mapped, and searched, its 64 KiB
// blocks checked against their checksums as searches read them.
// fuzz-needs: SearchIndexSnapshotProbe
//
// Unlike `SnapshotLoading` (which decodes a copy in memory), this reads a mapped file, so
// the length comes from `fstat` and reads past the end would be page faults, not ASan reports:
// everything read must lie inside the length the file has.
//
// Input: one flag byte, then the file; unless the flag's low bit is set, every checksum is
// recomputed first (`resealed`), so that the structural checks behind them are reached.

import Foundation

private let indexPath: String = {
    var template = Array((NSTemporaryDirectory() + "/bookshelf-fuzz-index-XXXXXX").utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        + "/catalog.sqlite-search-0"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndexFileOpening(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let bytes = data[0] & 1 != 0 ? file : SearchIndexSnapshotProbe.resealed(file)
    _ = SearchIndexSnapshotProbe.mapAndSearch(
        bytes, at: indexPath, queries: ["", "a", "a b", "hist rom", "東", "1", "al", "the h"])
    return 0
}
