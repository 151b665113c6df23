// Fuzz target: decoding the stored search-index file (`SearchIndexSnapshot.decode`) and
// searching what it yields, as the app would after opening a catalog.
// fuzz-needs: SearchIndexSnapshotProbe
//
// A damaged or hostile index file must never crash the program or read out of bounds: a
// file that does not check out is refused and rebuilt. The checksums stop almost every
// random change, so unless the first byte's low bit is set the rest of the input has every
// checksum recomputed (`resealed`), as a crafted file would, and the fuzzer reaches the
// structural checks behind them.
//
// Input: one flag byte, then the file. The seeds are real index files of small catalogs.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshotLoading(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let flags = data[0]
    let file = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let bytes = flags & 1 != 0 ? file : SearchIndexSnapshotProbe.resealed(file)
    _ = SearchIndexSnapshotProbe.decodeAndSearch(bytes, queries: ["", "a", "a b", "hist rom", "東", "1", "al", "the h"])
    return 0
}
