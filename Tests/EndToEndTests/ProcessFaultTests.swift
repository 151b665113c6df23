import BookCatalog
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// Real processes against one SQLite catalog file, killed or blocked at bad moments: two app
/// processes saving the same book, `kill -9` in the middle of a save, an import and a search
/// index snapshot write, and a catalog locked by another process for longer than the busy
/// timeout. Whatever happens, the file passes `PRAGMA integrity_check`, every save that was
/// reported committed is kept, and an import is all or nothing.
///
/// "In the middle" is observed, not timed: a process is killed when its write-ahead log has
/// grown (its transaction is writing pages) or when its log shows it is saving.
@Suite(.serialized, .tags(.tmux)) struct ProcessFaultTests {
    let sandbox: BookshelfProcess
    init() throws { sandbox = try BookshelfProcess() }

    // MARK: Two app processes

    @Test(.enabled(if: TmuxPane.shouldRun)) func twoAppProcessesSavingTheSameBookFromTheSameBaseOneWinsOneConflicts()
        async throws
    {
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let book = try SQLiteCatalog.open(path: db, create: false).addBook(
            NewBook(title: "Quixotic Zebra Handbook"), scope: "main")
        let panes = try ["Left", "Right"].map { name in
            let pane = try appPane(db: db)
            try pane.type("quixotic")
            try pane.waitFor(text: "1–1 of 1")
            try pane.send("Enter")
            try pane.waitFor(text: "Edit book #\(book.id) · revision 1")
            try pane.type(" \(name)")
            try pane.waitFor(text: "Quixotic Zebra Handbook \(name)")
            return pane
        }
        defer { panes.forEach { $0.kill() } }
        // Both save from revision 1, as close together as two keystrokes can be.
        for pane in panes { try pane.send("Enter") }
        let outcomes = try panes.map { pane in
            try unwrapped(
                pane.waitFor("a save outcome") {
                    unwrapped($0).contains("Saved as revision 2.")
                        || unwrapped($0).contains("Conflict: someone else saved")
                })
        }
        let winners = outcomes.indices.filter { outcomes[$0].contains("Saved as revision 2.") }
        let losers = outcomes.indices.filter {
            outcomes[$0].contains("Conflict: someone else saved revision 2 while you edited revision 1.")
        }
        #expect(winners.count == 1 && losers.count == 1, "\(outcomes)")
        let stored = try await SQLiteCatalog.open(path: db, create: false).remote(account: "alice").load(id: book.id)
        #expect(stored.revision == 2)
        if let winner = winners.first {
            #expect(
                stored.title == "Quixotic Zebra Handbook \(["Left", "Right"][winner])", "the winner's title is stored")
        }
    }

    // MARK: kill -9

    @Test func killedInTheMiddleOfSavingKeepsEveryCommittedSave() async throws {
        defer { sandbox.remove() }
        let db = sandbox.path("saves.sqlite")
        let catalog = try SQLiteCatalog.open(path: db, create: true)
        try catalog.addAccount(Account(name: "bench", role: .editor, scope: "main"))
        let books = 5
        _ = try catalog.insertBooks((0..<books).map { NewBook(title: "Contended book \($0)") }, scope: "main")

        for round in 0..<3 {
            let log = sandbox.path("writer-\(round).log")
            let writer = try start(benchWriter(db: db, log: log))
            // Kill once the writer has committed some saves and is busy with more.
            try waitUntil("the writer has saved") { ((try? WriterLogLines(log))?.saved.count ?? 0) >= 50 * (round + 1) }
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            #expect(writer.terminationReason == .uncaughtSignal)

            #expect(try integrityCheck(db) == "ok")
            let remote = try SQLiteCatalog.open(path: db, create: false).remote(account: "bench")
            let saved = try WriterLogLines(log).saved
            for id in Set(saved.map(\.id)) {
                let logged = saved.filter { $0.id == id }.map(\.revision).max()!
                let stored = try await remote.load(id: id).revision
                // The one save that may have committed without being logged is the last one.
                #expect(stored == logged || stored == logged + 1, "book \(id): logged \(logged), stored \(stored)")
            }
        }
    }

    @Test func killedInTheMiddleOfAnImportLeavesAllOrNothing() async throws {
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil)
        let rows = 200_000
        let file = try sandbox.write(
            "many.csv", "title,author\n" + (0..<rows).map { "Imported book \($0),Writer \($0 % 97)\n" }.joined())

        let importer = try start(bookshelfCommand(["import", file, "--db", db]))
        // The import is one transaction: pages spilling into the log mean it is half done.
        try waitUntil("the import is writing") { fileSize(db + "-wal") > 4 << 20 || !importer.isRunning }
        let wasRunning = importer.isRunning
        kill(importer.processIdentifier, SIGKILL)
        importer.waitUntilExit()
        #expect(wasRunning, "the import finished before it could be killed; make the file larger")

        #expect(try integrityCheck(db) == "ok")
        let after = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil)
        #expect(after == before || after == before + rows, "\(after - before) of \(rows) books were imported")
        #expect(after == before, "killed before its commit, the import left nothing")
        // And the catalog still takes an import.
        let small = try sandbox.write("small.csv", "title\nAfter The Crash\n")
        let retried = try sandbox.run(["import", small, "--db", db])
        #expect(retried.status == 0, "\(retried.errors)")
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil) == before + 1)
    }

    @Test func killedInTheMiddleOfASnapshotWriteLeavesAWorkingCatalog() async throws {
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let catalog = try SQLiteCatalog.open(path: db, create: false)
        let rows = 100_000
        _ = try catalog.insertBooks(
            (0..<rows).map { NewBook(title: "Indexed book \($0)", author: "Writer \($0 % 89)") }, scope: "main")
        try catalog.discardSearchSnapshots()
        try checkpoint(db)

        // A search answers, builds the index, then stores it: a file written under a temporary
        // name beside the catalog, renamed when whole. Killed while that file is being written:
        let searcher = try start(bookshelfCommand(["search", "indexed book 1999", "--db", db]))
        let directory = (db as NSString).deletingLastPathComponent
        let temporaryPrefix = (db as NSString).lastPathComponent + "-search-"
        func snapshotBeingWritten() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .contains { $0.hasPrefix(temporaryPrefix) && $0.contains(".writing") }
        }
        try waitUntil("the snapshot is being written") { snapshotBeingWritten() || !searcher.isRunning }
        let wasRunning = searcher.isRunning
        kill(searcher.processIdentifier, SIGKILL)
        searcher.waitUntilExit()
        #expect(wasRunning, "the search finished before it could be killed")
        #expect(snapshotBeingWritten(), "the killed writer left its half-written file")

        #expect(try integrityCheck(db) == "ok")
        let remote = try SQLiteCatalog.open(path: db, create: false).remote(account: "alice")
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "no half-written snapshot was loaded; a whole one is stored again")
        #expect(!snapshotBeingWritten(), "storing again removed the half-written file of the writer that died")
        #expect(
            try await remote.search(SearchQuery(text: "indexed book 99999")).records.map(\.title) == [
                "Indexed book 99999"
            ])
        // "1999" is a prefix of 1999, 19990...19999 and nothing longer below 100,000.
        #expect(try await remote.search(SearchQuery(text: "indexed book 1999")).total == 11)
    }

    // MARK: A catalog locked by another process

    @Test func anImportIntoACatalogLockedLongerThanTheBusyTimeoutSaysSoAndLosesNothing() async throws {
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil)
        let file = try sandbox.write("two.csv", "title,author\nFirst Locked Book,A\nSecond Locked Book,B\n")

        let lock = try WriteLock(db)
        let blocked = try sandbox.run(["import", file, "--db", db])
        lock.release()
        #expect(blocked.status != 0)
        #expect(
            blocked.errors.contains("is locked by another program; try again when it has finished"), "\(blocked.errors)"
        )
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil) == before)

        let retried = try sandbox.run(["import", file, "--db", db])
        #expect(retried.status == 0, "\(retried.errors)")
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil) == before + 2)
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aSaveIntoACatalogLockedLongerThanTheBusyTimeoutKeepsTheDraft()
        async throws
    {
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let book = try SQLiteCatalog.open(path: db, create: false).addBook(
            NewBook(title: "Quixotic Zebra Handbook"), scope: "main")
        let pane = try appPane(db: db)
        defer { pane.kill() }
        try pane.type("quixotic")
        try pane.waitFor(text: "1–1 of 1")
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #\(book.id) · revision 1")
        try pane.type(" Draft")

        let lock = try WriteLock(db)
        try pane.send("Enter")
        let screen = try unwrapped(
            pane.waitFor("the locked message") { unwrapped($0).contains("locked by another program") })
        lock.release()
        #expect(screen.contains("Title Quixotic Zebra Handbook Draft"), "the draft is still in the editor:\n\(screen)")
        #expect(
            try await SQLiteCatalog.open(path: db, create: false).remote(account: "alice").load(id: book.id).revision
                == 1)

        try pane.send("Enter")
        try pane.waitFor(text: "Saved as revision 2.")
        let stored = try await SQLiteCatalog.open(path: db, create: false).remote(account: "alice").load(id: book.id)
        #expect(stored.title == "Quixotic Zebra Handbook Draft" && stored.revision == 2)
    }

    // MARK: Helpers

    private func appPane(db: String) throws -> TmuxPane {
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let command =
            "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) --db \(shellQuoted(db)); exec sleep 600"
        // Wide enough that the editor's title field shows a title and the word typed after it whole.
        let pane = try TmuxPane(command, columns: 120, rows: 30)
        try pane.waitFor(text: "of 3,01")
        return pane
    }

    private func bookshelfCommand(_ arguments: [String]) throws -> Process {
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ["HOME": sandbox.path("home"), "PATH": "/usr/bin:/bin"]
        return process
    }

    private func benchWriter(db: String, log: String) throws -> Process {
        let bench = try #require(BuildProducts.executable(named: "bookshelf-bench"), "bookshelf-bench was not found")
        let process = Process()
        process.executableURL = bench
        process.arguments = ["saves", "--writer", "--db", db, "--seconds", "120", "--books", "5", "--log", log]
        return process
    }

    private func start(_ process: Process) throws -> Process {
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls every millisecond: the moments these tests aim for last tens of milliseconds. The
    /// deadline is generous because under a sanitizer the processes run several times slower.
    private func waitUntil(_ what: String, timeout: Duration = .seconds(300), _ condition: () -> Bool) throws {
        try Await.until(what, timeout: timeout, every: .milliseconds(1), condition)
    }
}

/// The "saved ID REVISION ..." lines of a `bookshelf-bench saves --writer` log.
private struct WriterLogLines {
    let saved: [(id: Int, revision: Int)]

    init(_ path: String) throws {
        saved = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0] == "saved", let id = Int(fields[1]), let revision = Int(fields[2]) else {
                return nil
            }
            return (id, revision)
        }
    }
}

/// Another process's write transaction, as `sqlite3` or a backup tool would hold one.
private final class WriteLock {
    private let handle: OpaquePointer

    init(_ path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            throw CocoaError(.fileReadUnknown)
        }
        self.handle = handle
        // The app may be writing at that moment (storing the search index it built beside the
        // books): wait for its write, as another program would, rather than fail at once.
        sqlite3_busy_timeout(handle, 20_000)
        guard sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
            throw CocoaError(.fileLocking)
        }
    }

    func release() { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }

    deinit {
        release()
        sqlite3_close_v2(handle)
    }
}

private func rawQuery(_ path: String, _ sql: String) throws -> String? {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        throw CocoaError(.fileReadUnknown)
    }
    defer { sqlite3_close_v2(handle) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
        throw CocoaError(.fileReadCorruptFile)
    }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
    return String(cString: text)
}

private func integrityCheck(_ path: String) throws -> String? { try rawQuery(path, "PRAGMA integrity_check") }

/// Moves everything committed into the main file, so the log's size afterwards is new writes only.
private func checkpoint(_ path: String) throws { _ = try rawQuery(path, "PRAGMA wal_checkpoint(TRUNCATE)") }

/// A captured screen with the pane divider and line wrapping undone: text as one line of words.
private func unwrapped(_ screen: String) -> String {
    screen.replacingOccurrences(of: "│", with: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

private func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}
