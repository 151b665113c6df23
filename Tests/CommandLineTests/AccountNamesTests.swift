import BookshelfTestSupport
import CSQLite
import Foundation
import TestTags
import Testing

/// What the completion scripts ask for: the catalog's account names, as the binary prints them.
@Suite(.tags(.process)) struct AccountNamesTests {
    /// Names another program stored that a terminal would not show as written never reach the
    /// command line being completed; every other name does, exactly.
    @Test func namesAShellCouldNotShowAreLeftOut() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let binary = try #require(BuildProducts.executable(named: "bookshelf"))
        let catalog = directory.path("catalog.sqlite")
        let environment = ["HOME": directory.path("home"), "PATH": "/usr/bin:/bin"]
        #expect(try ChildProcess.run([binary.path, "setup", "--db", catalog], environment: environment) == 0)
        let hostile = ["evil\u{1B}[2Jname", "two\nlines", "right\u{202E}left"]
        try insertAccounts(hostile + ["o'brien café"], into: catalog)

        let output = directory.path("names")
        #expect(
            try ChildProcess.run(
                [binary.path, "__account-names", "--db", catalog], output: output, errors: directory.path("errors"),
                environment: environment) == 0)
        let names = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(names == ["alice", "bob", "carol", "o'brien café"])

        // A missing catalog: nothing printed, and nothing created.
        let missing = directory.path("missing.sqlite")
        let status = try ChildProcess.run(
            [binary.path, "__account-names", "--db", missing], output: output,
            errors: directory.path("errors"), environment: environment)
        let printed = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 3 && printed.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// As another program would: straight into the table, past the app's own checks.
    private func insertAccounts(_ names: [String], into path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            throw ChildProcessFailure("cannot open \(path)")
        }
        defer { sqlite3_close_v2(handle) }
        for name in names {
            var statement: OpaquePointer?
            guard
                sqlite3_prepare_v2(
                    handle, "INSERT INTO accounts(name, role, scope) VALUES (?, 'reader', 'main')", -1, &statement, nil)
                    == SQLITE_OK
            else { throw ChildProcessFailure("prepare failed") }
            defer { sqlite3_finalize(statement) }
            let done = name.withCString { text in
                sqlite3_bind_text(statement, 1, text, -1, nil)
                return sqlite3_step(statement)
            }
            guard done == SQLITE_DONE else { throw ChildProcessFailure("insert failed: \(done)") }
        }
    }
}
