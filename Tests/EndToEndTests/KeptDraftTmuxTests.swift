import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An unsaved draft outlives its terminal: closed under it (SIGHUP, from `tmux kill-window`),
/// or the process killed with `kill -9` once typing has paused. The next start of the same
/// catalog and account asks to restore it.
@Suite(.serialized, .tags(.tmux, .process)) struct KeptDraftTmuxTests {
    struct App {
        let catalog: OrderingTmuxTests.Catalog
        var state: String { catalog.sandbox.path("state") }
        var drafts: String { state + "/bookshelf/drafts" }

        /// The app as alice in a pane of its own, and its process id.
        func start() throws -> (pane: TmuxPane, pid: Int32) {
            let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            let pidFile = catalog.sandbox.path("app-\(UUID().uuidString).pid")
            // The inner shell writes its pid, then becomes the app (exec): that pid is the app's.
            let inner =
                "echo $$ > \(shellQuoted(pidFile)); exec env HOME=\(shellQuoted(catalog.sandbox.path("home"))) "
                + "XDG_STATE_HOME=\(shellQuoted(state)) \(shellQuoted(binary.path)) --db \(shellQuoted(catalog.db)) "
                + "--account alice"
            let pane = try TmuxPane("sh -c \(shellQuoted(inner)); exec sleep 600", columns: 110, rows: 30)
            try pane.waitFor(text: "1–1 of 1")
            let pid = try #require(
                Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            return (pane, pid)
        }

        /// Opens the book and types notes at the end of the form.
        func typeNotes(_ notes: String, in pane: TmuxPane) throws {
            try pane.send("Enter")
            try pane.waitFor(text: "Edit book #\(catalog.book.id) · revision 1")
            try pane.send("BTab")  // from the title back round to the notes
            try pane.type(notes)
            try pane.waitFor(text: notes)
            try pane.waitFor(text: "modified")
        }

        /// The kept draft files, by name.
        func keptFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: drafts)) ?? []).filter { $0.hasSuffix(".draft") }
        }

        func waitForKeptFile() throws -> String {
            let name = try Await.until("a kept draft in \(drafts)", probe: { keptFiles().first }) { $0 != nil }
            return drafts + "/" + (name ?? "")
        }

        func waitUntilGone(_ pid: Int32) throws {
            try Await.until("process \(pid) to end") { kill(pid, 0) != 0 && errno == ESRCH }
        }

        /// Closes the window as a user closes a terminal: tmux hangs up on the program (SIGHUP).
        func closeWindow(of pane: TmuxPane) throws {
            let tmux = try #require(TmuxPane.tmux)
            let status = try ChildProcess.run(
                [tmux, "-L", pane.socket, "kill-window", "-t", "app"], output: "/dev/null", errors: "/dev/null",
                environment: ProcessInfo.processInfo.environment.filter { $0.key != "TMUX" })
            #expect(status == 0, "tmux kill-window")
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aDraftOutlivesItsTerminalClosedUnderIt() async throws {
        let app = App(catalog: try OrderingTmuxTests.Catalog())
        defer { app.catalog.sandbox.remove() }
        let first = try app.start()
        defer { first.pane.kill() }
        try app.typeNotes("An hour of", in: first.pane)
        // The last words, then the window closed at once: well within the pause, so only the
        // hang-up itself can have written them.
        let typed = ContinuousClock.now
        try first.pane.type(" notes")
        try first.pane.waitFor(text: "An hour of notes")
        try app.closeWindow(of: first.pane)
        let closedWithin = ContinuousClock.now - typed
        let file = try app.waitForKeptFile()
        try app.waitUntilGone(first.pid)

        var status = stat()
        #expect(stat(file, &status) == 0 && status.st_mode & 0o777 == 0o600, "the kept draft is private")
        #expect(stat(app.drafts, &status) == 0 && status.st_mode & 0o777 == 0o700)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\nbase-revision 1\n") && text.contains("\ndraft-notes An hour of notes\n"), "\(text)")
        if closedWithin >= .seconds(1) {
            // A loaded machine let a pause pass: the words may have been kept by the pause.
            print("KeptDraftTmuxTests: the window closed \(closedWithin) after the last key")
        }

        let second = try app.start()
        defer { second.pane.kill() }
        let question = try second.pane.waitFor(
            text: "An unsaved draft of «Quixotic Zebra Handbook» (based on revision 1) was kept.")
        #expect(question.contains("Restore it?"))
        try second.pane.send("y")
        let editor = try second.pane.waitFor(text: "Edit book #\(app.catalog.book.id) · revision 1")
        #expect(editor.contains("An hour of notes") && editor.contains("modified"), "\(editor)")
        try second.pane.send("C-s")
        try second.pane.waitFor(text: "Saved as revision 2.")
        let stored = try await SQLiteCatalog.open(path: app.catalog.db, create: false).remote(account: "alice")
            .load(id: app.catalog.book.id)
        #expect(stored.details.notes == "An hour of notes" && stored.revision == 2)
        #expect(app.keptFiles().isEmpty, "saving removes the kept draft")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aDraftIsKeptWhenTheAppIsToldToEnd() throws {
        let app = App(catalog: try OrderingTmuxTests.Catalog())
        defer { app.catalog.sandbox.remove() }
        let first = try app.start()
        defer { first.pane.kill() }
        try app.typeNotes("Told to end", in: first.pane)
        #expect(kill(first.pid, SIGTERM) == 0)
        let file = try app.waitForKeptFile()
        try app.waitUntilGone(first.pid)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\ndraft-notes Told to end\n"), "\(text)")
    }

    /// No signal to catch: what survives is what was written once typing paused. Meanwhile
    /// someone else saved the book, so restoring shows the conflict banner.
    @Test(.enabled(if: TmuxPane.shouldRun)) func aDraftWrittenAfterThePauseOutlivesKillNine() async throws {
        let app = App(catalog: try OrderingTmuxTests.Catalog())
        defer { app.catalog.sandbox.remove() }
        let first = try app.start()
        defer { first.pane.kill() }
        try app.typeNotes("Notes before the kill", in: first.pane)
        _ = try app.waitForKeptFile()
        #expect(kill(first.pid, SIGKILL) == 0)
        try app.waitUntilGone(first.pid)

        let other = try SQLiteCatalog.open(path: app.catalog.db, create: false).remote(account: "bob")
        let theirs = try await other.save(
            SaveRequest(
                id: app.catalog.book.id, title: "Zebra Theirs", author: "Ada Tester", expectedRevision: 1))
        #expect(theirs.revision == 2)

        let second = try app.start()
        defer { second.pane.kill() }
        try second.pane.waitFor(text: "An unsaved draft of «Quixotic Zebra Handbook» (based on revision 1) was kept.")
        try second.pane.send("y")
        let banner = try second.pane.waitFor(text: "Conflict: someone else saved revision 2")
        #expect(banner.contains("while you edited revision 1."), "\(banner)")
        #expect(banner.contains("Theirs: Zebra Theirs") && banner.contains("Notes before the kill"), "\(banner)")
        // Their title with my notes: the merge keeps both, saved against their revision.
        try second.pane.send("C-e")
        try second.pane.waitFor(text: "Title     Zebra Theirs")
        try second.pane.send("C-s")
        try second.pane.waitFor(text: "Saved as revision 3.")
        let stored = try await other.load(id: app.catalog.book.id)
        #expect(stored.title == "Zebra Theirs" && stored.details.notes == "Notes before the kill")
        #expect(app.keptFiles().isEmpty)
    }
}
