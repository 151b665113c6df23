import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TestTags
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// calibre's own programs on this machine (Debian's `calibre` package), run headless.
enum CalibreTools {
    static let calibredb = ChildProcess.onPath("calibredb")
    static let server = ChildProcess.onPath("calibre-server")

    /// True when the tools are there; with `CI` set a missing one is a failure, not a skip.
    static var shouldRun: Bool {
        (calibredb != nil && server != nil) || ProcessInfo.processInfo.environment["CI"] != nil
    }
}

/// This machine's turn at calibre's programs, across test processes: calibre's single-instance
/// lock is per user, so a `calibre-server` or `calibredb` of another test run (a second
/// checkout's `swift test`, say) makes calibredb refuse and Bookshelf open read-only. `.serialized`
/// orders the tests of one process; this orders the processes. Held from a test's start to its
/// end (the suite value's life); the kernel lets it go if the process dies. A calibre program that
/// is no test's (a bench's `calibredb check_library` of a large library: the ten-run series met
/// one) is waited for too, at the start; one started in the middle of a test still fails it.
final class CalibreTurn: Sendable {
    private let descriptor: Int32

    init() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-tests-calibre-\(geteuid()).lock"
        ).path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ChildProcessFailure("cannot open \(path): errno \(errno)") }
        // Blocks only while another process's calibre test runs.
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw ChildProcessFailure("cannot lock \(path): errno \(errno)")
            }
        }
        do {
            try Await.until(
                "calibre's lock, held by a calibre program of this user, to be free", timeout: .seconds(300)
            ) {
                CalibreLibraryStore.calibreIsHoldingItsLock() != true
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }
}

/// A library worked on in place, checked by calibre itself: what `bookshelf edit` writes is what
/// `calibredb list` and `show_metadata` show, `calibredb check_library` finds nothing, a change
/// made by calibredb since a read is a conflict, and while a real `calibre-server` holds calibre's
/// lock Bookshelf writes nothing. calibre's lock is per user, not per library, so every test that
/// runs calibre's programs is in this one suite, one test at a time (issue 62).
@Suite(.tags(.process, .tmux, .slow), .serialized, .enabled(if: CalibreTools.shouldRun))
struct CalibreInPlaceTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/calibre-library")

    let turn: CalibreTurn
    let sandbox: BookshelfProcess
    let library: String

    init() throws {
        turn = try CalibreTurn()
        sandbox = try BookshelfProcess()
        library = sandbox.path("Calibre Library")
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: library)
    }

    /// calibre's environment: no display, and its settings in the sandbox, not the user's.
    var calibreEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["QT_QPA_PLATFORM"] = "offscreen"
        environment["CALIBRE_CONFIG_DIRECTORY"] = sandbox.path("calibre-config")
        environment["HOME"] = sandbox.path("home")
        return environment
    }

    func calibredb(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let tool = try #require(CalibreTools.calibredb, "calibredb is required (CI is set)")
        let output = sandbox.path("calibredb-\(UUID().uuidString)")
        let status = try ChildProcess.run(
            [tool, "--library-path", library] + arguments, output: output, environment: calibreEnvironment)
        return (status, try String(contentsOfFile: output, encoding: .utf8))
    }

    private func book(_ id: Int) throws -> [String: Any] {
        let listed = try calibredb([
            "list", "--for-machine", "--fields", "title,authors,tags,publisher,pubdate,identifiers,comments,series",
            "--search", "id:\(id)",
        ])
        #expect(listed.status == 0, "\(listed.output)")
        let books = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        return try #require(books.first)
    }

    /// A real `calibre-server` on a private port and the test's library, once it holds calibre's lock.
    private func startCalibreServer() throws -> Int32 {
        let server = try #require(CalibreTools.server, "calibre-server is required (CI is set)")
        let pidFile = sandbox.path("server.pid")
        let port = Int.random(in: 30_000..<60_000)
        try ChildProcess.run(
            [
                "/bin/sh", "-c",
                "echo $$ > \(shellQuoted(pidFile)); exec \(shellQuoted(server)) --port \(port) --listen-on 127.0.0.1 "
                    + shellQuoted(library),
            ], output: sandbox.path("server.log"), environment: calibreEnvironment, wait: false)
        let pid = try Await.until("calibre-server's pid") {
            Int32(
                (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                    ?? "")
        } _: {
            $0 != nil
        }!
        do {
            try Await.until("calibre-server to hold calibre's lock", timeout: .seconds(60)) {
                CalibreLibraryStore.calibreIsHoldingItsLock() == true
            }
        } catch {
            stop(pid)
            throw error
        }
        return pid
    }

    /// Ends the server and waits until calibre's lock is free again.
    private func stop(_ pid: Int32) {
        kill(pid, SIGTERM)
        if (try? Await.until("calibre-server to end", timeout: .seconds(30)) { Await.hasEnded(pid) }) == nil {
            kill(pid, SIGKILL)
            try? Await.until("calibre-server to end") { Await.hasEnded(pid) }
        }
        try? Await.until("calibre's lock to be free") { CalibreLibraryStore.calibreIsHoldingItsLock() == false }
    }

    private func revision(ofFirstLine output: String) throws -> Int {
        let line = try #require(output.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["revision"] as? Int)
    }

    @Test func anEditIsWhatCalibreShowsAndItsCheckFindsNothing() throws {
        defer { sandbox.remove() }
        let found = try sandbox.run(["search", "--json", "--db", library, "omens"])
        #expect(found.status == 0, "\(found.errors)")
        // The revision is the book's last_modified in the fixture, 2026-12-05 16:17:51.251077 UTC.
        let stamp = try #require(ISO8601DateFormatter().date(from: "2026-12-05T16:17:51Z"))
        let base = try revision(ofFirstLine: found.output)
        #expect(base == Int(stamp.timeIntervalSince1970) * 1_000_000 + 251_077)

        let edit = try sandbox.run([
            "edit", "2", "--db", library, "--if-revision", String(base), "--title", "The Nice and Accurate Prophecies",
            "--author", "Terry Pratchett & Neil Gaiman & Agnes Nutter", "--tags", "humour, apocalypse",
            "--publisher", "Workman", "--year", "1991", "--isbn", "9780441003259", "--notes", "Funny.\nVery.",
        ])
        #expect(edit.status == 0, "\(edit.errors)")
        let saved = try #require(Int(edit.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(saved > base)

        let shown = try book(2)
        #expect(shown["title"] as? String == "The Nice and Accurate Prophecies")
        #expect(shown["authors"] as? String == "Terry Pratchett & Neil Gaiman & Agnes Nutter")
        #expect(Set((shown["tags"] as? [String]) ?? []) == ["humour", "apocalypse"])
        #expect(shown["publisher"] as? String == "Workman")
        #expect((shown["pubdate"] as? String)?.hasPrefix("1991-05-10") == true, "\(shown)")
        #expect((shown["identifiers"] as? [String: String])?["isbn"] == "9780441003259")
        #expect(shown["comments"] as? String == "<p>Funny.<br>Very.</p>")
        let metadata = try calibredb(["show_metadata", "2"])
        #expect(
            metadata.output.contains("Title sort          : Nice and Accurate Prophecies, The"), "\(metadata.output)")
        #expect(
            metadata.output.contains("[Pratchett, Terry & Gaiman, Neil & Nutter, Agnes]"), "\(metadata.output)")

        // calibre changes the book: Bookshelf's next save against what it read is a conflict.
        let calibreEdit = try calibredb(["set_metadata", "2", "--field", "title:Good Omens, calibre's"])
        #expect(calibreEdit.status == 0, "\(calibreEdit.output)")
        let stale = try sandbox.run(["edit", "2", "--db", library, "--if-revision", String(saved), "--title", "Ours"])
        #expect(stale.status == 4, "\(stale.errors)")
        #expect(stale.output.contains("Good Omens, calibre's"), "\(stale.output)")
        #expect(try book(2)["title"] as? String == "Good Omens, calibre's")

        let check = try calibredb(["check_library", "--csv"])
        #expect(check.status == 0)
        let reported = check.output.split(separator: "\n").filter { !$0.hasPrefix("Vacuuming") }
        #expect(reported.isEmpty, "\(check.output)")
    }

    /// Each JSON line of `output` as an object.
    private func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func tags(_ id: Int) throws -> Set<String> { Set((try book(id)["tags"] as? [String]) ?? []) }

    @Test func aBulkEditAndItsUndoAreWhatCalibreShowsAndItsChangesBetweenAreKept() throws {
        defer { sandbox.remove() }
        let files = try FileManager.default.contentsOfDirectory(atPath: library).sorted()
        // The fixture's Pratchett books, with the tags calibredb gave them.
        let tagsBefore: [Int: Set<String>] = [2: ["humour", "fantasy"], 5: ["fantasy", "humour", "Discworld"], 6: []]

        let dryRun = try sandbox.run([
            "edit", "--db", library, "--search", "pratchett", "--add-tag", "signed", "--dry-run",
        ])
        #expect(dryRun.status == 0, "\(dryRun.errors)")
        #expect(try tags(5) == tagsBefore[5]!)

        let edit = try sandbox.run([
            "edit", "--db", library, "--search", "pratchett", "--add-tag", "signed", "--publisher", "Victor Gollancz",
            "--json",
        ])
        #expect(edit.status == 0, "\(edit.errors)")
        #expect(
            edit.errors.contains("Batch 1: 3 saved, 0 unchanged, 0 merged, 0 conflicts, 0 failed"), "\(edit.errors)")
        let listed = try calibredb(["list", "--for-machine", "--fields", "id", "--search", "tags:=signed"])
        let signed = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        #expect(Set(signed.compactMap { $0["id"] as? Int }) == [2, 5, 6])
        let shown = try calibredb(["show_metadata", "5"])
        #expect(shown.output.contains("signed"), "\(shown.output)")
        // The batch is kept in the state folder, not in the library.
        #expect(try FileManager.default.contentsOfDirectory(atPath: library).sorted() == files)
        let kept = try FileManager.default.contentsOfDirectory(
            atPath: sandbox.path("home/.local/state/bookshelf/calibre"))
        #expect(kept.count == 1 && kept[0].hasSuffix(".sqlite"), "\(kept)")

        // calibredb changes book 5's title (a field the batch left) and book 6's publisher (the batch's).
        #expect(try calibredb(["set_metadata", "5", "--field", "title:Guards! Guards! (calibre)"]).status == 0)
        #expect(try calibredb(["set_metadata", "6", "--field", "publisher:Transworld"]).status == 0)
        let undo = try sandbox.run(["undo", "1", "--db", library, "--json"])
        #expect(undo.status == 4, "\(undo.errors)")
        let outcomes = Dictionary(
            uniqueKeysWithValues: try objects(undo.output).dropLast().map {
                ($0["id"] as? Int ?? 0, $0["outcome"] as? String ?? "")
            })
        // Undo reads each book as it is now: book 5 is reverted in the batch's fields only.
        #expect(outcomes == [2: "saved", 5: "saved", 6: "conflict"])
        #expect(try tags(2) == tagsBefore[2]!)
        #expect(try book(2)["publisher"] as? String == "Gollancz")
        #expect(try tags(5) == tagsBefore[5]!)
        #expect(try book(5)["publisher"] as? String == "Corgi")
        #expect(try book(5)["title"] as? String == "Guards! Guards! (calibre)")
        // The conflict is left as calibredb saved it.
        #expect(try tags(6) == ["signed"])
        #expect(try book(6)["publisher"] as? String == "Transworld")

        // History keeps what Bookshelf saved; calibre's own change has no account.
        let history = try sandbox.run(["history", "5", "--db", library, "--json"])
        #expect(history.status == 0, "\(history.errors)")
        let revisions = try objects(history.output)
        #expect(revisions.map { $0["batch"] as? Int } == [2, nil, 1, nil])
        #expect(revisions.map { $0["account"] is String } == [true, false, true, false])
        #expect(
            revisions.map { $0["publisher"] as? String } == ["Corgi", "Victor Gollancz", "Victor Gollancz", "Corgi"])
        #expect(
            revisions.map { $0["title"] as? String } == [
                "Guards! Guards! (calibre)", "Guards! Guards! (calibre)", "Guards! Guards!", "Guards! Guards!",
            ])

        let check = try calibredb(["check_library", "--csv"])
        #expect(check.status == 0)
        #expect(check.output.split(separator: "\n").filter { !$0.hasPrefix("Vacuuming") }.isEmpty, "\(check.output)")
    }

    @Test func theCommandsOpenTheLibraryOrSayWhyNot() throws {
        defer { sandbox.remove() }
        // "~/" in a quoted path is the home folder; the metadata.db names the library too.
        let home = sandbox.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: library, toPath: home + "/Calibre Library")
        let search = try sandbox.run(["search", "--db", "~/Calibre Library", "pratchett"])
        #expect(search.status == 0, "\(search.errors)")
        #expect(search.outputLines.map { $0.split(separator: "\t").first.map(String.init) } == ["2", "5", "6"])
        let export = try sandbox.run(["export", "--format", "jsonl", "--db", home + "/Calibre Library/metadata.db"])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.outputLines.count == 8)
        let check = try sandbox.run(["check", "--db", "~/Calibre Library"])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.hasPrefix("ok: "))
        let setup = try sandbox.run(["setup", "--db", "~/Calibre Library"])
        #expect(setup.status == 2)
        #expect(setup.errors.contains("a Calibre library needs no setup"))
        let other = try sandbox.run([
            "edit", "1", "--db", "~/Calibre Library", "--account", "someone-else", "--title", "X",
        ])
        #expect(other.status == 3)
        #expect(other.errors.contains("a Calibre library has one account, its owner"))
    }

    @Test func whileCalibreServerRunsEditExits3AndNothingIsWritten() throws {
        defer { sandbox.remove() }
        let pid = try startCalibreServer()
        defer { stop(pid) }
        let before = try Data(contentsOf: URL(fileURLWithPath: library + "/metadata.db"))

        let refused = try sandbox.run(["edit", "1", "--db", library, "--title", "Not now"])
        #expect(refused.status == 3)
        #expect(refused.errors.contains("calibre is running; this library is read-only here until it closes"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: library + "/metadata.db")) == before)
        // Reading goes on.
        let search = try sandbox.run(["search", "--db", library, "fellowship"])
        #expect(search.status == 0, "\(search.errors)")
        #expect(search.output.contains("The Fellowship of the Ring"))

        stop(pid)
        let edit = try sandbox.run(["edit", "1", "--db", library, "--title", "Now"])
        #expect(edit.status == 0, "\(edit.errors)")
        #expect(try book(1)["title"] as? String == "Now")
    }

    /// Every book of the library with the fields calibredb lists, by title.
    private func booksByTitle() throws -> [String: [String: Any]] {
        let listed = try calibredb([
            "list", "--for-machine", "--fields",
            "title,authors,tags,publisher,pubdate,identifiers,comments,series,series_index",
        ])
        #expect(listed.status == 0, "\(listed.output)")
        let books = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        return Dictionary(books.map { (($0["title"] as? String) ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of metadata.db's tables, indexes and triggers.
    private func schemaNames() throws -> [String] {
        let file = library + "/metadata.db"
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        #expect(sqlite3_open_v2(file, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        var statement: OpaquePointer?
        #expect(
            sqlite3_prepare_v2(handle, "SELECT type || ' ' || name FROM sqlite_master ORDER BY 1", -1, &statement, nil)
                == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var names: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { names.append(String(cString: sqlite3_column_text(statement, 0))) }
        return names
    }

    /// Issue 60 on a library in place: a Goodreads export imported, edited here, and imported
    /// again changed updates by the three-way rule instead of adding the books twice; what the
    /// imports remember is in the state folder, not in metadata.db; calibre's check finds nothing.
    @Test func aSecondImportOfAGoodreadsExportUpdatesTheLibraryThreeWays() throws {
        defer { sandbox.remove() }
        let schema = try schemaNames()
        let before = try booksByTitle()
        let header = "Book Id,Title,Author,ISBN13,Publisher,Year Published,Bookshelves,Exclusive Shelf,Private Notes\n"
        let first = sandbox.path("first.csv"), second = sandbox.path("second.csv")
        try
            (header
            + "101,\"Dune (Dune, #1)\",Frank Herbert,\"=\"\"9780441172719\"\"\",Chilton,1965,sf,to-read,First.\n"
            + "102,Emma,Jane Austen,,John Murray,1815,classic,read,\n"
            + "103,The Gone Book,Some One,,,2001,,read,\n").write(toFile: first, atomically: true, encoding: .utf8)
        // The source since: Dune's year (1964), series index (2), shelf and notes changed;
        // Emma as it was; the gone book left out; Persuasion new.
        try
            (header
            + "101,\"Dune (Dune, #2)\",Frank Herbert,\"=\"\"9780441172719\"\"\",Chilton,1964,sf,read,Second.\n"
            + "102,Emma,Jane Austen,,John Murray,1815,classic,read,\n"
            + "104,Persuasion,Jane Austen,,,1817,,to-read,\n").write(toFile: second, atomically: true, encoding: .utf8)

        let added = try sandbox.run(["import", first, "--db", library])
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output == "Added 3 books to scope calibre.\n", "\(added.output)")
        let imported = try booksByTitle()
        #expect(imported.count == before.count + 3)
        let dune = try #require(imported["Dune"]?["id"] as? Int)
        let emma = try #require(imported["Emma"]?["id"] as? Int)
        let gone = try #require(imported["The Gone Book"]?["id"] as? Int)

        // Edited here: Dune's publisher (only here), year (here and, differently, in the source)
        // and notes (here as the source will); Emma's title (only here).
        let edit = try sandbox.run([
            "edit", String(dune), "--db", library, "--publisher", "Ace", "--year", "1966", "--notes", "Second.",
        ])
        #expect(edit.status == 0, "\(edit.errors)")
        #expect(try sandbox.run(["edit", String(emma), "--db", library, "--title", "Emma (annotated)"]).status == 0)

        let again = try sandbox.run(["import", second, "--db", library])
        #expect(again.status == 0, "\(again.errors)")
        #expect(
            again.output
                == "Imported into scope calibre: added 1, updated 1 (2 fields), unchanged 1, conflicts 1, gone from the source 1.\n",
            "\(again.output)")
        #expect(
            again.errors.contains("conflict: book \(dune) \"Dune\": Year changed here and in the source; kept yours"),
            "\(again.errors)")
        #expect(again.errors.contains("gone from the source: book \(gone) \"The Gone Book\" (kept)"), "\(again.errors)")

        let books = try booksByTitle()
        #expect(books.count == before.count + 4, "nothing added twice: \(books.keys.sorted())")
        let duneNow = try #require(books["Dune"])
        #expect(duneNow["id"] as? Int == dune)
        #expect(duneNow["authors"] as? String == "Frank Herbert")
        #expect((duneNow["identifiers"] as? [String: String])?["isbn"] == "9780441172719")
        #expect(duneNow["publisher"] as? String == "Ace", "only here: yours")
        #expect((duneNow["pubdate"] as? String)?.hasPrefix("1966-") == true, "both, differently: yours \(duneNow)")
        #expect(duneNow["series"] as? String == "Dune")
        #expect(duneNow["series_index"] as? Double == 2, "only in the source: theirs")
        #expect(Set((duneNow["tags"] as? [String]) ?? []) == ["sf", "read"], "only in the source: theirs")
        #expect(duneNow["comments"] as? String == "<p>Second.</p>", "both, the same: that value")
        let emmaNow = try #require(books["Emma (annotated)"])
        #expect(emmaNow["id"] as? Int == emma)
        #expect(emmaNow["publisher"] as? String == "John Murray")
        #expect(Set((emmaNow["tags"] as? [String]) ?? []) == ["classic", "read"])
        #expect(books["The Gone Book"]?["id"] as? Int == gone, "kept without --remove-missing")
        let persuasion = try #require(books["Persuasion"])
        #expect(persuasion["authors"] as? String == "Jane Austen")
        #expect((persuasion["pubdate"] as? String)?.hasPrefix("1817-") == true)
        #expect(Set((persuasion["tags"] as? [String]) ?? []) == ["to-read"])

        // What the imports remember is Bookshelf's file beside its saves, not a table of calibre's.
        #expect(try schemaNames() == schema)
        let kept = try FileManager.default.contentsOfDirectory(
            atPath: sandbox.path("home/.local/state/bookshelf/calibre"))
        #expect(kept.count == 1 && kept[0].hasSuffix(".sqlite"), "\(kept)")
        let removing = try sandbox.run(["import", second, "--remove-missing", "--db", library])
        #expect(removing.status == 2, "\(removing.errors)")
        #expect(try booksByTitle().count == before.count + 4)

        let check = try calibredb(["check_library", "--csv"])
        #expect(check.status == 0)
        #expect(check.output.split(separator: "\n").filter { !$0.hasPrefix("Vacuuming") }.isEmpty, "\(check.output)")
    }

    @Test func theAppOpensReadOnlyWhileCalibreRunsAndASaveThenKeepsTheDraft() throws {
        defer { sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary)
        let pid = try startCalibreServer()
        var serverRuns = true
        defer { if serverRuns { stop(pid) } }
        let inner =
            "exec env HOME=\(shellQuoted(sandbox.path("home"))) XDG_STATE_HOME=\(shellQuoted(sandbox.path("state"))) "
            + "\(shellQuoted(binary.path)) --db \(shellQuoted(library))"
        let pane = try TmuxPane("sh -c \(shellQuoted(inner)); exec sleep 600", columns: 120, rows: 30)
        defer { pane.kill() }
        // The header names the library; the notice is said once, on the first screen.
        let first = try pane.waitFor(text: "calibre is running; this library is read-only here until it closes")
        #expect(first.contains("Calibre"), "\(first)")
        #expect(first.contains("Calibre Library"), "\(first)")
        try pane.type("omens")
        try pane.waitFor(text: "1–1 of 1")
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #2 · changed 2026-12-05 16:17:51 UTC")
        try pane.send("C-e")
        try pane.type(" (ours)")
        try pane.send("C-s")
        // The pane wraps the reason: its words are checked line by line.
        let refused = try pane.waitFor(text: "Not saved: The catalog is unavailable:")
        #expect(refused.contains("calibre is running; this library is read-only"), "\(refused)")
        #expect(refused.contains("Good Omens (ours)"), "the draft is kept: \(refused)")
        // calibredb cannot read while the server runs; Bookshelf can.
        let stored = try sandbox.run(["search", "--db", library, "omens"])
        #expect(stored.output.hasPrefix("2\tGood Omens\t"), "\(stored.output)")

        // calibre closes: the next save goes through, and calibre shows it.
        stop(pid)
        serverRuns = false
        try pane.send("C-s")
        try pane.waitFor(text: "Saved (changed ")
        #expect(try book(2)["title"] as? String == "Good Omens (ours)")
    }
}
