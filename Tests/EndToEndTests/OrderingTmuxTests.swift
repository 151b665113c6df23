import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// Orderings of the concurrency promise, shown in the real app: a switch that takes time
/// while the user types, and a save whose answer arrives after someone else saved on top.
/// `--latency` holds chosen requests back; the catalog holds one book, so the request
/// numbers are known: 1 connect, 2 first search, 3 opening the book, 4 the next request.
@Suite(.serialized, .tags(.tmux)) struct OrderingTmuxTests {
    struct Catalog {
        let sandbox: BookshelfProcess
        let db: String
        let book: BookRecord

        init() throws {
            sandbox = try BookshelfProcess()
            db = sandbox.path("catalog.sqlite")
            let catalog = try SQLiteCatalog.open(path: db, create: true)
            try catalog.addAccount(Account(name: "alice", role: .editor, scope: "main"))
            try catalog.addAccount(Account(name: "bob", role: .editor, scope: "main"))
            book = try catalog.addBook(NewBook(title: "Quixotic Zebra Handbook", author: "Ada Tester"), scope: "main")
        }

        /// The app as `account` in a pane of its own.
        func app(_ account: String, latency: String? = nil) throws -> TmuxPane {
            let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            let slow = latency.map { " --latency \($0)" } ?? ""
            let pane = try TmuxPane(
                "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) "
                    + "--db \(shellQuoted(db)) --account \(account)\(slow); echo EXITED $?; exec sleep 600",
                columns: 110, rows: 24)
            try pane.waitFor(text: "1–1 of 1")
            return pane
        }

        func stored() async throws -> BookRecord {
            try await SQLiteCatalog.open(path: db, create: false).remote(account: "alice").load(id: book.id)
        }

        /// Waits until the catalog holds `revision` of the book: another process commits it, and on a
        /// loaded machine the commit may come a little after the screen says "Saving…".
        func waitForStored(revision: Int, timeout: Duration = .seconds(20)) async throws {
            _ = try? await Await.until("revision \(revision) stored", timeout: timeout, every: .milliseconds(50)) {
                try await stored().revision
            } _: {
                $0 >= revision
            }
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func typingWhileAnAccountSwitchConnectsIsRefusedAndSaysWhy() throws {
        let catalog = try Catalog()
        defer { catalog.sandbox.remove() }
        let pane = try catalog.app("alice", latency: "0,0,0,4000")  // request 4, connecting to bob, takes 4 s
        defer { pane.kill() }
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #\(catalog.book.id) · revision 1")
        try pane.send("F2")
        try pane.waitFor(text: "bob")
        try pane.send("Down", "Enter")
        try pane.waitFor(text: "Switching to bob: the editor is read-only")
        try pane.type("typed")
        try pane.send("End")
        let connecting = try pane.capture()
        #expect(connecting.contains("Title     Quixotic Zebra Handbook\n"), "\(connecting)")
        #expect(!connecting.contains("typed"), "nothing typed went into a draft that the switch would drop")
        let switched = try pane.waitFor(text: "Bookshelf  bob")
        #expect(!switched.contains("Edit book"), "the new session starts on the search screen")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aSaveAnsweredAfterSomeoneElseSavedOnTopReportsTheUsersOwnRevision()
        async throws
    {
        let catalog = try Catalog()
        defer { catalog.sandbox.remove() }
        let alice = try catalog.app("alice", latency: "0,0,0,8000")  // request 4, the save, answers after 8 s
        defer { alice.kill() }
        let bob = try catalog.app("bob")
        defer { bob.kill() }

        try alice.send("Enter")
        try alice.waitFor(text: "Edit book #\(catalog.book.id) · revision 1")
        try alice.send("C-w")
        try alice.type("Mine")
        try alice.waitFor(text: "Title     Quixotic Zebra Mine")
        try alice.send("Enter")
        try alice.waitFor(text: "Saving…")
        // The store commits alice's save at once; only its answer is held back.
        try await catalog.waitForStored(revision: 2)
        #expect(try await catalog.stored().revision == 2)

        try bob.send("Enter")
        try bob.waitFor(text: "Title     Quixotic Zebra Mine")
        try bob.send("C-w")
        try bob.type("Bob")
        try bob.send("Enter")
        try bob.waitFor(text: "Saved as revision 3.")
        #expect(try await catalog.stored().title == "Quixotic Zebra Bob")
        // Alice's app notices (its list shows bob's title) while her save still waits.
        try alice.waitFor("alice's list to show bob's revision while saving") {
            $0.contains("Quixotic Zebra Bob") && $0.contains("Saving…")
        }

        let saved = try alice.waitFor(text: "Saved as revision 2.")
        #expect(saved.contains("Title     Quixotic Zebra Mine"), "her own text stays: \(saved)")
        #expect(saved.contains("Someone else saved revision 3"), "bob's revision is shown as his: \(saved)")
    }
}
