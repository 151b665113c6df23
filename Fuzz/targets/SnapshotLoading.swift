// Fuzz target: loading the search-index snapshot stored in a catalog (`SearchIndexSnapshot`).
// fuzz-needs: SearchIndexSnapshot SearchIndex
//
// A damaged or hostile catalog file must never crash the program: a snapshot that does not
// check out is ignored and rebuilt. The input becomes the snapshot's rows in an in-memory
// catalog; each part's checksum is fixed up unless the first byte's low bit is set, so the
// fuzzer gets past the checksums to the consistency checks behind them. Whatever loads is
// then searched, as the app would.
//
// Input: flags (bit 0: keep checksums as given, bit 7: 8-byte book count, bit 6: 8-byte id base), the book count
// (1 or 8 bytes), id base, the two packed widths, then each part as a length byte and bytes.
import BookCatalog
import CSQLite

nonisolated(unsafe) private let fuzzCatalog: Connection = {
    let connection = try! Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    try! Schema.migrate(connection)
    return connection
}()

private struct FuzzReader {
    var bytes: ArraySlice<UInt8>
    mutating func take(_ count: Int) -> [UInt8] {
        let taken = Array(bytes.prefix(count))
        bytes = bytes.dropFirst(count)
        return taken
    }
    mutating func byte() -> Int { Int(take(1).first ?? 0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshotLoading(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzReader(bytes: ArraySlice(UnsafeBufferPointer(start: data, count: size)))
    let flags = input.byte()
    let count = flags & 0x80 != 0
        ? Int(truncatingIfNeeded: input.take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) & Int.max
        : input.byte()
    let idBase = flags & 0x40 != 0 ? Int(truncatingIfNeeded: input.take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) : input.byte()
    let bookStartWidth = input.byte(), idsWidth = input.byte()
    let parts = (0..<9).map { _ in input.take(input.byte()) }
    let stored = flags & 1 != 0 ? parts.map { _ in UInt64(input.take(8).reduce(0) { $0 << 8 | UInt64($1) }) }
        : parts.map { part in part.withUnsafeBytes { SearchIndexSnapshot.checksum($0) } }
    let header = [Int64(count), Int64(idBase), Int64(bookStartWidth), Int64(idsWidth)] + stored.map { Int64(bitPattern: $0) }

    do {
        try fuzzCatalog.execute("DELETE FROM search_snapshot_parts; DELETE FROM search_snapshots;")
        let row = try fuzzCatalog.statement(
            "INSERT INTO search_snapshots(scope, format, change_seq, book_count, header) VALUES ('s', ?1, 1, ?2, ?3)")
        try row.bind([.int(SearchIndexSnapshot.format), .int(count)])
        try header.withUnsafeBytes { bytes in
            try row.bindBlobWithoutCopy(3, bytes)
            defer { row.reset() }
            while try row.step() {}
        }
        let insert = try fuzzCatalog.statement("INSERT INTO search_snapshot_parts(scope, part, data) VALUES ('s', ?1, ?2)")
        for (number, part) in parts.enumerated() {
            try insert.bind([.int(number)])
            try part.withUnsafeBytes { bytes in
                try insert.bindBlobWithoutCopy(2, bytes)
                defer { insert.reset() }
                while try insert.step() {}
            }
        }
        guard let base = try SearchIndexSnapshot.load(scope: "s", sequence: 1, maximumBehind: { _ in 0 }, connection: fuzzCatalog)
        else { return 0 }
        let index = SearchIndex(base: base)
        var queries = ["", "a", "a b", "ab c", "1"]
        if base.vocabularySize > 0 {
            let token = base.withToken(0) { String(decoding: $0, as: UTF8.self) }
            queries += [token, "\(token) \(token)", String(token.prefix(1))]
        }
        for query in queries {
            let (ids, total) = index.search(SearchTerms(query), offset: 0, limit: 20)
            precondition(ids.count <= min(total, 20), "\(ids.count) ids for \(total) matches")
        }
    } catch {
        // An error is an acceptable answer to a damaged snapshot; only a crash is a finding.
    }
    return 0
}
