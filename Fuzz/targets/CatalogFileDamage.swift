// Fuzz target: a catalog file with damaged pages (`CatalogFileProbe`), opened and searched
// through the path `bookshelf search` takes, before and after its index is built.
// fuzz-needs: CatalogFileProbe
//
// SQLite reads pages lazily and checksums nothing, so a damaged page can give any value:
// whatever the bytes, the program answers or refuses with the damaged-catalog error, and
// never traps (the issue's `Negative value is not representable`), hangs or reads out of bounds.
//
// Input: edits of 4 bytes each, at most 64: a 24-bit little-endian offset into the file
// (taken modulo its size) and a byte XORed into it (0 stands for 0xFF). The file is a
// 200-book catalog made once per process.

import Dispatch
import Foundation

private let workDirectory: String = {
    var template = Array((NSTemporaryDirectory() + "/bookshelf-fuzz-catalog-XXXXXX").utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}()

private let intact: [UInt8] = try! CatalogFileProbe.intactCatalog(in: workDirectory)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalogFileDamage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var file = intact
    for edit in 0..<min(size / 4, 64) {
        let at = edit * 4
        let offset = (Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16) % file.count
        file[offset] ^= data[at + 3] == 0 ? 0xFF : data[at + 3]
    }
    let done = DispatchSemaphore(value: 0)
    let damaged = file
    Task {
        _ = await CatalogFileProbe.openAndSearch(
            damaged, at: workDirectory + "/damaged.sqlite", queries: ["", "a", "hist rom", "東京", "2"])
        done.signal()
    }
    done.wait()
    return 0
}
