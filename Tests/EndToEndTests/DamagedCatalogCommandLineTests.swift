import CSQLite
import Foundation
import TestTags
import Testing

/// A catalog file damaged where the commands read it: each says so in one line and exits 3,
/// pointing to `bookshelf check`; `check` runs SQLite's integrity check and says what it found.
@Suite(.tags(.process)) struct DamagedCatalogCommandLineTests {
    /// The first page of the b-tree named `name` (the books table, or an index), and the page size.
    private func rootPage(of name: String, in path: String) throws -> (page: Int, size: Int) {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw CocoaError(.fileReadCorruptFile)
        }
        func integer(_ sql: String) -> Int {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK,
                sqlite3_step(statement) == SQLITE_ROW
            else { return -1 }
            return Int(sqlite3_column_int64(statement, 0))
        }
        return (integer("SELECT rootpage FROM sqlite_schema WHERE name = '\(name)'"), integer("PRAGMA page_size"))
    }

    /// Overwrites the page numbered `page` (from 1) with bytes no b-tree page can hold.
    private func spoil(page: Int, size: Int, of path: String) throws {
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((page - 1) * size))
        try file.write(contentsOf: Data(repeating: 0xEE, count: size))
    }

    @Test(arguments: ["books", "books_by_scope_title"])
    func aDamagedCatalogIsOneLineAndExitThreeAndCheckSaysWhatItFound(tree: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let healthy = try sandbox.run(["check", "--db", db])
        #expect(healthy.status == 0 && healthy.output == "ok: \(db) is intact\n", "\(healthy.output) \(healthy.errors)")

        let (page, size) = try rootPage(of: tree, in: db)
        #expect(page > 1 && size >= 512)
        try spoil(page: page, size: size, of: db)
        for arguments in [["search", ""], ["search", "rome"], ["search", "", "--limit", "100000"], ["export"]] {
            let outcome = try sandbox.run(arguments + ["--db", db])
            #expect(outcome.status == 3, "\(arguments): \(outcome.status) \(outcome.errors)")
            // A word query may be answered by a scan of the table before the index build finds the
            // title index damaged: its count is then followed by the error, and the status is 3.
            let failures = outcome.errorLines.filter { $0.hasPrefix("bookshelf") }
            #expect(
                failures.count == 1 && failures == [outcome.errorLines.last!] && failures[0].contains("is damaged")
                    && failures[0].contains("bookshelf check") && failures[0].contains(db),
                "\(arguments): \(outcome.errors)")
        }
        let damaged = try sandbox.run(["check", "--db", db])
        #expect(damaged.status == 3)
        #expect(
            !damaged.outputLines.isEmpty && damaged.errorLines.count == 1 && damaged.errors.contains("is damaged")
                && damaged.errors.contains("integrity_check") && damaged.errors.contains("export"),
            "\(damaged.output) \(damaged.errors)")
    }

    @Test func checkingAFileThatIsNotACatalogSaysSo() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let junk = try sandbox.write("junk.sqlite", String(repeating: "not a database ", count: 400))
        let outcome = try sandbox.run(["check", "--db", junk])
        #expect(outcome.status == 3 && outcome.errorLines.count == 1, "\(outcome.output) \(outcome.errors)")
        let missing = try sandbox.run(["check", "--db", sandbox.path("missing.sqlite")])
        #expect(missing.status == 3 && missing.errors.lowercased().contains("no catalog"), "\(missing.errors)")
    }
}
