import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// A command whose standard output or error is closed, or is a full disk (/dev/full), says so
/// in one line and fails; it never traps. Run through `sh` so the descriptors are really
/// closed in the child, as a user's `>&-` closes them.
@Suite(.tags(.process)) struct ClosedOutputTests {
    struct Ending {
        let status: Int32
        let signal: Int32?
        let errors: String
    }

    /// Runs `bookshelf arguments` with `redirections` (shell syntax), standard error to a
    /// file unless the redirections move it.
    func run(_ process: BookshelfProcess, _ arguments: [String], redirections: String, db: String) throws -> Ending {
        let binary = try #require(BookshelfProcess.binary)
        let errorFile = process.path("errors-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        let command = ([binary.path] + arguments + ["--db", db]).map(shellQuoted).joined(separator: " ")
        let script = "exec \(command) 2>\(shellQuoted(errorFile)) \(redirections)"
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = process.path("home")
        environment["BOOKSHELF_DB"] = nil
        let ending = try ChildProcess.runToEnd(["/bin/sh", "-c", script], environment: environment)
        return Ending(
            status: ending.status, signal: ending.signal,
            errors: try String(contentsOfFile: errorFile, encoding: .utf8))
    }

    @Test func aClosedStandardOutputIsOneLineAndAFailure() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        for arguments in [["search", ""], ["history", "1"], ["export"]] {
            let ending = try run(process, arguments, redirections: ">&-", db: db)
            #expect(ending.signal == nil, "\(arguments): killed by signal \(ending.signal ?? 0)")
            #expect(ending.status == 3, "\(arguments): \(ending.status)")
            let name = arguments[0]
            #expect(
                ending.errors.split(separator: "\n").map(String.init)
                    .contains("bookshelf \(name): cannot write standard output: Bad file descriptor"),
                "\(arguments): \(ending.errors)")
            #expect(!ending.errors.contains("Fatal error"), "\(arguments): \(ending.errors)")
        }
    }

    @Test func aFullDiskOnStandardOutputNamesTheReason() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        for arguments in [["search", ""], ["history", "1"], ["export"], ["--help"]] {
            let ending = try run(process, arguments, redirections: ">/dev/full", db: db)
            #expect(ending.signal == nil, "\(arguments): killed by signal \(ending.signal ?? 0)")
            #expect(ending.status == 3, "\(arguments): \(ending.status)")
            let name = arguments[0] == "--help" ? "bookshelf" : "bookshelf \(arguments[0])"
            #expect(
                ending.errors.split(separator: "\n").map(String.init)
                    .contains("\(name): cannot write standard output: No space left on device"),
                "\(arguments): \(ending.errors)")
        }
    }

    /// A bulk edit saves before it writes its outcomes. With nowhere to write them the batch
    /// stays saved, and standard error names it, so that it can be undone; the status is 3, as
    /// for any output lost.
    @Test func aBulkEditWithNowhereToWriteNamesItsSavedBatch() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        func matches(_ query: String) throws -> Int {
            let listed = process.path("matches-\(UUID().uuidString)")
            _ = try run(
                process, ["search", query, "--limit", "10000"], redirections: ">\(shellQuoted(listed))", db: db)
            return try String(contentsOfFile: listed, encoding: .utf8).split(separator: "\n").count
        }
        let rome = try matches("rome")
        #expect(rome > 1, "the starter catalog has several books on Rome")

        let edit = try run(
            process, ["edit", "--search", "rome", "--add-tag", "kept", "--json"], redirections: ">/dev/full", db: db)
        #expect(edit.signal == nil && edit.status == 3, "\(edit.status)")
        #expect(
            edit.errors.split(separator: "\n").map(String.init) == [
                "bookshelf edit: cannot write standard output: No space left on device",
                "bookshelf edit: Batch 1: \(rome) saved, 0 unchanged, 0 merged, 0 conflicts, 0 failed",
            ], "\(edit.errors)")
        #expect(try matches("kept") == rome)

        let undo = try run(process, ["undo", "1"], redirections: ">/dev/null", db: db)
        #expect(undo.status == 0, "\(undo.errors)")
        #expect(try matches("kept") == 0)
    }

    /// Nowhere to say anything: a search that matched still succeeds, one that did not
    /// still says 1, and nothing traps.
    @Test func aClosedOrFullStandardErrorKeepsTheStatus() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        for redirection in ["2>&-", "2>/dev/full"] {
            let matched = try run(process, ["search", "rome"], redirections: "\(redirection) >/dev/null", db: db)
            #expect(matched.signal == nil && matched.status == 0, "\(redirection): \(matched.status)")
            let unmatched = try run(process, ["search", "zzzzqqq"], redirections: "\(redirection) >/dev/null", db: db)
            #expect(unmatched.signal == nil && unmatched.status == 1, "\(redirection): \(unmatched.status)")
        }
    }

    /// Standard input that cannot be read (a directory) is one line too, never a trap.
    @Test func anUnreadableStandardInputIsOneLine() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        let ending = try run(process, ["import", "-"], redirections: "</ >/dev/null", db: db)
        #expect(ending.signal == nil && ending.status == 3, "\(ending.status)")
        #expect(ending.errors == "bookshelf import: cannot read standard input: Is a directory\n", "\(ending.errors)")
    }

    /// A reader that stops reading (`| head -1`) ends the command quietly, as before.
    @Test func aBrokenPipeStaysQuiet() throws {
        let process = try BookshelfProcess()
        defer { process.remove() }
        let db = try process.starterCatalog()
        let ending = try run(
            process, ["search", "", "--limit", "3000"], redirections: "| head -c 1 >/dev/null", db: db)
        #expect(!ending.errors.contains("cannot write"), "\(ending.errors)")
        #expect(!ending.errors.contains("Fatal error"), "\(ending.errors)")
    }
}
