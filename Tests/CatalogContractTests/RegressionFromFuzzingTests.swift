import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// Inputs the fuzz targets in `Fuzz/` found to crash the program, kept as tests so the fix
/// stays. Each damages a stored search-index snapshot in a way its checksums do not cover (the
/// book count and the header are not checksummed), as a damaged disk or another program
/// writing to the catalog might. The catalog must ignore the snapshot and rebuild it.
@Suite struct SQLiteSnapshotRegressionFromFuzzingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// `SnapshotLoading` found: a book count near `Int.max` overflowed `count + 1`, and one
    /// near 2^60 overflowed the packed array's size, both trapping while opening the catalog.
    @Test(arguments: ["9223372036854775807", "1152921504606846976", "-1"])
    func aSnapshotWithAnImpossibleBookCountIsRebuilt(count: String) async throws {
        try await expectRebuiltAfterDamage(
            "UPDATE search_snapshots SET book_count = \(count), header = CAST(x'\(littleEndianHex(count))' || substr(header, 9) AS BLOB)")
    }

    /// An id base so large that base + stored id overflows, or a 64-bit id width whose values
    /// do not fit an `Int`: the snapshot's ids must never be trusted to be in range.
    @Test(arguments: [
        "CAST(substr(header, 1, 8) || x'FFFFFFFFFFFFFF7F' || substr(header, 17) AS BLOB)",
        "CAST(substr(header, 1, 24) || x'4000000000000000' || substr(header, 33) AS BLOB)",
    ])
    func aSnapshotWithOutOfRangeIdsIsRebuilt(header: String) async throws {
        try await expectRebuiltAfterDamage("UPDATE search_snapshots SET header = \(header)")
    }

    private func expectRebuiltAfterDamage(_ damage: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let path = directory.path("catalog.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        var books: [BookRecord] = []
        for title in ["Rome", "A History of Rome", "Dune", "Emma"] {
            books.append(try catalog.addBook(NewBook(title: title, author: "Author"), scope: "main"))
        }
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored, sourceLocation: sourceLocation)
        try withRawConnection(path) { try execute($0, damage) }

        let remote = try catalog.remote(account: "editor")
        #expect(try await remote.searchIndexReport().report.origin == .built, sourceLocation: sourceLocation)
        let page = try await remote.search(SearchQuery(text: "rom"))
        #expect(page.records.map(\.title) == ["Rome", "A History of Rome"] && page.total == 2, sourceLocation: sourceLocation)
        #expect(try await remote.search(SearchQuery(text: "")).total == books.count, sourceLocation: sourceLocation)
    }

    /// `count` (a decimal Int64) as the 16 hex digits of its little-endian bytes.
    private func littleEndianHex(_ count: String) -> String {
        let value = UInt64(bitPattern: Int64(count)!)
        return (0..<8).map { String(format: "%02X", (value >> (8 * UInt64($0))) & 0xFF) }.joined()
    }
}
