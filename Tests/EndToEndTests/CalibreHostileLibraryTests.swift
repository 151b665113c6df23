import BookshelfTestSupport
import CSQLite
import Foundation
import Glibc
import TestTags
import Testing

/// `bookshelf import --from calibre` on libraries anyone can make: the committed library,
/// made hostile or damaged here. Each ends at once: exit 3 and one line naming what was
/// refused, or the books, with nothing created in the library's folder (issue 55, items 5-7, 11).
@Suite(.tags(.process)) struct CalibreHostileLibraryTests {
    /// A hostile library may try to run for ever or to fill memory: the import runs with
    /// both bounded, so that a regression fails the test instead of the machine.
    static let secondsAllowed = 60
    static let memoryAllowedKiB = 2_000_000

    private func library(_ sandbox: BookshelfProcess) throws -> String {
        let library = sandbox.path("Calibre Library")
        try FileManager.default.copyItem(
            at: ForeignCatalogImportTests.fixtures.appendingPathComponent("calibre-library"),
            to: URL(fileURLWithPath: library))
        return library
    }

    private func execute(_ sql: String, on file: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(file, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
            sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK
        else { throw CocoaError(.fileWriteUnknown, userInfo: ["sqlite": String(cString: sqlite3_errmsg(handle))]) }
    }

    /// `bookshelf import --from calibre library` under `ulimit -v` and `timeout`.
    private func importBounded(_ sandbox: BookshelfProcess, _ library: String, into db: String = "catalog.sqlite")
        throws -> BookshelfProcess.Outcome
    {
        let binary = try #require(BookshelfProcess.binary)
        let timeout = try #require(ChildProcess.onPath("timeout"))
        let (output, errors) = (
            sandbox.path("stdout-\(UUID().uuidString)"), sandbox.path("stderr-\(UUID().uuidString)")
        )
        var environment = ProcessInfo.processInfo.environment
        for name in ["BOOKSHELF_DB", "XDG_DATA_HOME"] { environment[name] = nil }
        environment["HOME"] = sandbox.path("home")
        let ending = try ChildProcess.runToEnd(
            [
                "/bin/sh", "-c", "ulimit -v \(Self.memoryAllowedKiB) && exec \"$@\"", "sh", timeout, "-s", "KILL",
                "\(Self.secondsAllowed)", binary.path, "import", "--from", "calibre", library, "--db",
                sandbox.path(db),
            ], output: output, errors: errors, environment: environment)
        #expect(ending.status != 128 + SIGKILL, "the import ran past \(Self.secondsAllowed) s and was killed")
        return BookshelfProcess.Outcome(
            status: ending.status, output: try String(contentsOfFile: output, encoding: .utf8),
            errors: try String(contentsOfFile: errors, encoding: .utf8))
    }

    /// The one line of the failure (progress lines may come first).
    private func failureLines(_ outcome: BookshelfProcess.Outcome) -> [String] {
        outcome.errorLines.filter { $0.hasPrefix("bookshelf import:") }
    }

    // Item 5.
    @Test(arguments: [
        // A view that recurses for ever (its rows never end).
        "WITH RECURSIVE forever(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM forever) SELECT n AS id, 1 AS book, 'x' AS text FROM forever",
        // A view whose one value is 900 MB.
        "SELECT 1 AS id, 1 AS book, printf('%.*c', 900000000, 'x') AS text",
    ])
    func aCommentsViewEndsAtOnceWithExitThreeNamingIt(view: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try library(sandbox)
        try execute("DROP TABLE comments; CREATE VIEW comments AS \(view);", on: library + "/metadata.db")
        let outcome = try importBounded(sandbox, library)
        #expect(outcome.status == 3, "\(outcome.errors)")
        let lines = failureLines(outcome)
        #expect(lines.count == 1 && lines[0].contains("its comments is a view, not a table"), "\(outcome.errors)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("catalog.sqlite")))
    }

    // Item 5: a table's own generated column is stopped by the length limit.
    @Test func aGeneratedValueOfNineHundredMegabytesEndsAtOnceNamingItsTable() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try library(sandbox)
        try execute(
            """
            DROP TABLE comments;
            CREATE TABLE comments (id INTEGER PRIMARY KEY, book INTEGER, text AS (zeroblob(900000000)));
            INSERT INTO comments (book) VALUES (1);
            """, on: library + "/metadata.db")
        let outcome = try importBounded(sandbox, library)
        #expect(outcome.status == 3, "\(outcome.errors)")
        let lines = failureLines(outcome)
        #expect(lines.count == 1 && lines[0].contains("its comments table"), "\(outcome.errors)")
    }

    // Item 6.
    @Test func aFIFOInPlaceOfTheLibraryFileIsRefusedByName() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = sandbox.path("Calibre Library")
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: false)
        #expect(mkfifo(library + "/metadata.db", 0o600) == 0)
        for path in [library, library + "/metadata.db"] {
            let outcome = try importBounded(sandbox, path)
            #expect(outcome.status == 3, "\(outcome.errors)")
            let lines = failureLines(outcome)
            #expect(
                lines.count == 1 && lines[0].contains("\(library)/metadata.db")
                    && lines[0].contains("is not a regular file (it is a FIFO)"), "\(outcome.errors)")
        }
    }

    // Item 7: a library in WAL mode, closed (no side files) and open in Calibre (its write-ahead
    // log holding a change not yet in the main file).
    @Test func aWALLibraryIsReadWithoutAnyFileCreatedInItsFolder() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try library(sandbox)
        let file = library + "/metadata.db"
        try execute("PRAGMA journal_mode = WAL;", on: file)
        let closed = try FileManager.default.contentsOfDirectory(atPath: library).sorted()
        #expect(closed == ["metadata.db"])
        let first = try importBounded(sandbox, library)
        #expect(first.status == 0, "\(first.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == closed)

        // Calibre at work: its connection open, a change committed to the log only.
        var calibre: OpaquePointer?
        defer { sqlite3_close_v2(calibre) }
        #expect(sqlite3_open_v2(file, &calibre, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        #expect(sqlite3_exec(calibre, "PRAGMA wal_autocheckpoint = 0", nil, nil, nil) == SQLITE_OK)
        let change = "INSERT INTO comments (book, text) VALUES (7, '<p>Changed while Calibre was open.</p>')"
        #expect(sqlite3_exec(calibre, change, nil, nil, nil) == SQLITE_OK)
        let open = try FileManager.default.contentsOfDirectory(atPath: library).sorted()
        #expect(open == ["metadata.db", "metadata.db-shm", "metadata.db-wal"])
        let files = try open.map { try Data(contentsOf: URL(fileURLWithPath: library + "/" + $0)) }

        let second = try importBounded(sandbox, library, into: "second.sqlite")
        #expect(second.status == 0, "\(second.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == open)
        #expect(try open.map { try Data(contentsOf: URL(fileURLWithPath: library + "/" + $0)) } == files)
        // Meditations (book 7) had no comments until Calibre's change.
        let export = try sandbox.run(["export", "--format", "jsonl", "--db", sandbox.path("second.sqlite")])
        let meditations = export.outputLines.filter { $0.contains("\"title\":\"Meditations\"") }
        #expect(meditations.count == 1, "\(export.output)")
        #expect(meditations.first?.contains("Changed while Calibre was open.") == true, "\(meditations)")
    }

    // Item 7: a write-ahead log beside a library in rollback-journal mode (left there by
    // anyone) would have SQLite open it, and make its -shm index in the folder.
    @Test func aStrayLogBesideARollbackLibraryCreatesNothingEither() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try library(sandbox)
        for log in ["", "not a log"] {
            try log.write(toFile: library + "/metadata.db-wal", atomically: false, encoding: .utf8)
            let before = try FileManager.default.contentsOfDirectory(atPath: library).sorted()
            let outcome = try importBounded(sandbox, library, into: "catalog-\(log.count).sqlite")
            #expect(outcome.status == 0, "\(outcome.errors)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == before)
        }
    }

    // Item 7, through a link: SQLite opens the file the link leads to, and its log there.
    @Test func aLinkToAnOpenWALLibraryReadsItsLogAndCreatesNothing() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let library = try library(sandbox)
        let file = library + "/metadata.db"
        try execute("PRAGMA journal_mode = WAL;", on: file)
        var calibre: OpaquePointer?
        defer { sqlite3_close_v2(calibre) }
        #expect(sqlite3_open_v2(file, &calibre, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        #expect(sqlite3_exec(calibre, "PRAGMA wal_autocheckpoint = 0", nil, nil, nil) == SQLITE_OK)
        let change = "INSERT INTO comments (book, text) VALUES (7, '<p>Read through the link.</p>')"
        #expect(sqlite3_exec(calibre, change, nil, nil, nil) == SQLITE_OK)
        let linked = sandbox.path("Linked")
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: false)
        #expect(symlink(file, linked + "/metadata.db") == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: library).sorted()

        let outcome = try importBounded(sandbox, linked)
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == files)
        #expect(try FileManager.default.contentsOfDirectory(atPath: linked) == ["metadata.db"])
        let export = try sandbox.run(["export", "--format", "jsonl", "--db", sandbox.path("catalog.sqlite")])
        let meditations = export.outputLines.filter { $0.contains("\"title\":\"Meditations\"") }
        #expect(meditations.first?.contains("Read through the link.") == true, "\(meditations)")
    }

    // Item 11. As root, the import runs as nobody, for whom the folder is as closed as it is to
    // its owner (root reads it all the same).
    @Test(
        .enabled(
            if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"),
            "as root, needs runuser to be another user"))
    func anUnreadableLibraryFolderIsPermissionDeniedNamingThePath() throws {
        let sandbox = try BookshelfProcess()
        let library = try library(sandbox)
        defer {
            chmod(library, 0o755)
            sandbox.remove()
        }
        chmod(sandbox.directory.path, 0o755)
        chmod(library, 0o000)
        let binary = try #require(BookshelfProcess.binary)
        let asUser = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
        let (output, errors) = (sandbox.path("stdout"), sandbox.path("stderr"))
        var environment = ProcessInfo.processInfo.environment
        for name in ["BOOKSHELF_DB", "XDG_DATA_HOME", "XDG_CACHE_HOME"] { environment[name] = nil }
        environment["HOME"] = "/nonexistent"
        let ending = try ChildProcess.runToEnd(
            asUser + [binary.path, "import", "--from", "calibre", library, "--db", "/nonexistent/catalog.sqlite"],
            output: output, errors: errors, environment: environment)
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(ending.status == 3, "\(message)")
        #expect(message.contains("permission denied"), "\(message)")
        #expect(message.contains(library), "\(message)")
        #expect(!message.contains("no Calibre library"), "\(message)")
    }
}
