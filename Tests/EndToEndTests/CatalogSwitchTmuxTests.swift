import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// Issue 62, ask 7, in a real terminal: a catalog opened in one run is offered by F2 in the
/// next, below the accounts, and choosing it opens it in place of the one on screen; F2 then
/// offers the first catalog, and choosing it switches back.
@Suite(.serialized, .tags(.tmux, .process)) struct CatalogSwitchTmuxTests {
    /// Two catalogs in one sandbox, each with its own account and book.
    struct Catalogs {
        let sandbox: BookshelfProcess
        var first: String { sandbox.path("first.sqlite") }
        var second: String { sandbox.path("second.sqlite") }

        init() throws {
            sandbox = try BookshelfProcess()
            let one = try SQLiteCatalog.open(path: first, create: true)
            try one.addAccount(Account(name: "alice", role: .editor, scope: "main"))
            _ = try one.addBook(NewBook(title: "Quixotic Zebra Handbook", author: "Ada Tester"), scope: "main")
            let two = try SQLiteCatalog.open(path: second, create: true)
            try two.addAccount(Account(name: "carol", role: .editor, scope: "main"))
            _ = try two.addBook(NewBook(title: "Walden Pond Almanac", author: "Cy Tester"), scope: "main")
        }

        /// The app on `catalog` in a pane of its own, its state folder in the sandbox.
        func app(_ catalog: String) throws -> TmuxPane {
            let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            return try TmuxPane(
                "env HOME=\(shellQuoted(sandbox.path("home"))) XDG_STATE_HOME=\(shellQuoted(sandbox.path("state"))) "
                    + "\(shellQuoted(binary.path)) --db \(shellQuoted(catalog)); echo EXITED $?; exec sleep 600",
                columns: 120, rows: 24)
        }

        /// A run of the app on `catalog`, which records it among the recent ones, quit once it
        /// shows `text`.
        func openAndQuit(_ catalog: String, showing text: String) throws {
            let earlier = try app(catalog)
            defer { earlier.kill() }
            try earlier.waitFor(text: text)
            try earlier.send("C-q")
            try earlier.waitFor(text: "EXITED 0")
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func f2OpensACatalogOpenedBeforeAndSwitchesBack() throws {
        let catalogs = try Catalogs()
        defer { catalogs.sandbox.remove() }
        // The first run opens the first catalog, and so records it.
        try catalogs.openAndQuit(catalogs.first, showing: "Quixotic Zebra Handbook")

        let pane = try catalogs.app(catalogs.second)
        defer { pane.kill() }
        try pane.waitFor(text: "Walden Pond Almanac")
        try pane.send("F2")
        try pane.waitFor(text: "Recent catalogs")
        let offered = try pane.waitFor(text: "first.sqlite")
        #expect(!offered.contains("second.sqlite  "), "the catalog on screen is not offered: \(offered)")
        // carol's row, then the first catalog below the heading.
        try pane.send("Down")
        try pane.send("Enter")
        let switched = try pane.waitFor(text: "Quixotic Zebra Handbook")
        #expect(!switched.contains("Walden Pond Almanac"), "nothing of the second catalog remains: \(switched)")
        let header = try pane.capture(rows: 0...0)
        #expect(header.contains("alice") && header.contains("first.sqlite"), "the header names it: \(header)")

        // And back: F2 now offers the second catalog.
        try pane.send("F2")
        try pane.waitFor(text: "second.sqlite")
        try pane.send("Down")
        try pane.send("Enter")
        let back = try pane.waitFor(text: "Walden Pond Almanac")
        #expect(!back.contains("Quixotic Zebra Handbook"), "\(back)")
        let headerBack = try pane.capture(rows: 0...0)
        #expect(headerBack.contains("carol") && headerBack.contains("second.sqlite"), "\(headerBack)")
    }

    /// A Calibre library opened in an earlier run is offered too, and opens in place: its books,
    /// its owner's account and the header's "Calibre".
    @Test(.enabled(if: TmuxPane.shouldRun)) func f2OpensACalibreLibraryOpenedBefore() throws {
        let catalogs = try Catalogs()
        defer { catalogs.sandbox.remove() }
        let library = catalogs.sandbox.path("Calibre Library")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/calibre-library")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: library)
        try catalogs.openAndQuit(library, showing: "Good Omens")

        let pane = try catalogs.app(catalogs.first)
        defer { pane.kill() }
        try pane.waitFor(text: "Quixotic Zebra Handbook")
        try pane.send("F2")
        try pane.waitFor(text: "Calibre Library")
        try pane.send("Down")
        try pane.send("Enter")
        let opened = try pane.waitFor(text: "Good Omens")
        #expect(!opened.contains("Quixotic Zebra Handbook"), "\(opened)")
        let header = try pane.capture(rows: 0...0)
        #expect(header.contains("Calibre ") && header.contains("Calibre Library"), "\(header)")
        #expect(!header.contains("alice"), "the library's one account is its owner: \(header)")
    }
}
