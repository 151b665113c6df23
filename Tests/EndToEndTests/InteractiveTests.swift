import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `bookshelf` as a person uses it: in a terminal, under tmux.
@Suite(.serialized, .tags(.tmux)) struct InteractiveTests {
    /// A temporary catalog (the starter sample plus one book of our own) and the app in a pane.
    struct Fixture {
        let sandbox: BookshelfProcess
        let db: String
        let book: BookRecord
        let pane: TmuxPane

        init(columns: Int = 100, rows: Int = 30, environment: String = "") throws {
            sandbox = try BookshelfProcess()
            db = try sandbox.starterCatalog()
            let catalog = try SQLiteCatalog.open(path: db, create: false)
            book = try catalog.addBook(NewBook(title: "Quixotic Zebra Handbook", author: "Ada Tester"), scope: "main")
            let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            let command =
                "env HOME=\(shellQuoted(sandbox.path("home"))) \(environment) "
                + "\(shellQuoted(binary.path)) --db \(shellQuoted(db)); echo EXITED $?; exec sleep 600"
            pane = try TmuxPane(command, columns: columns, rows: rows)
            try pane.waitFor(text: "of 3,011")  // the first results are on screen
        }

        func remove() {
            pane.kill()
            sandbox.remove()
        }

        func stored() async throws -> BookRecord {
            try await SQLiteCatalog.open(path: db, create: false).remote(account: "alice").load(id: book.id)
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func typingAQueryShowsItsResults() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        // The header's count is drawn when its own answer arrives, which may be after the
        // first results: wait for it rather than read the screen the results were seen on.
        try fixture.pane.waitFor(text: "Bookshelf  alice (editor) · 3,011 books  SQLite ")
        try fixture.pane.type("quix zeb")
        let screen = try fixture.pane.waitFor(text: "1–1 of 1")
        #expect(screen.contains("Search: quix zeb"))
        #expect(screen.contains(" Quixotic Zebra Handbook "))
        #expect(screen.contains("Ada Tester"))
        #expect(screen.contains("#\(fixture.book.id) · revision 1"), "the detail pane shows the selected book")
        try fixture.pane.send("C-u")
        try fixture.pane.waitFor(text: "of 3,011")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func editingATitleSavesANewRevisionInTheCatalogFile() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.pane.type("quixotic")
        try fixture.pane.waitFor(text: "1–1 of 1")
        try fixture.pane.send("Enter")
        try fixture.pane.waitFor(text: "Edit book #\(fixture.book.id) · revision 1")
        try fixture.pane.send("C-w")
        try fixture.pane.type("Field Guide")
        try fixture.pane.waitFor(text: "Title     Quixotic Zebra Field Guide")
        try fixture.pane.send("Enter")
        try fixture.pane.waitFor(text: "Saved as revision 2.")
        let stored = try await fixture.stored()
        #expect(stored.title == "Quixotic Zebra Field Guide")
        #expect(stored.revision == 2)
        #expect(stored.author == "Ada Tester")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aConflictWithAnotherWriterShowsInlineAndReloadTakesTheirs()
        async throws
    {
        // Narrower than the side-by-side layout: the editor gets the whole width.
        let fixture = try Fixture(columns: 90, rows: 30)
        defer { fixture.remove() }
        try fixture.pane.type("quixotic")
        try fixture.pane.waitFor(text: "1–1 of 1")
        try fixture.pane.send("Enter")
        try fixture.pane.waitFor(text: "Edit book #\(fixture.book.id) · revision 1")

        // Another connection (another person) saves the same book first.
        let other = try SQLiteCatalog.open(path: fixture.db, create: false).remote(account: "alice")
        let theirs = try await other.save(
            SaveRequest(id: fixture.book.id, title: "Zebra Theirs", author: "Ada Tester", expectedRevision: 1))
        #expect(theirs.revision == 2)

        try fixture.pane.type(" Mine")
        try fixture.pane.send("Enter")
        let banner = try fixture.pane.waitFor(text: "Ctrl-E edit a merge")
        #expect(banner.contains("Conflict: someone else saved revision 2 while you edited revision 1."), "\(banner)")
        #expect(banner.contains("Both changed the title:"))
        #expect(banner.contains("Base:   Quixotic Zebra Handbook\n"))
        #expect(banner.contains("Theirs: Zebra Theirs\n"))
        #expect(banner.contains("Yours:  Quixotic Zebra Handbook Mine\n"))
        #expect(try await fixture.stored().title == "Zebra Theirs", "nothing was overwritten")

        try fixture.pane.send("C-r")
        let reloaded = try fixture.pane.waitFor(text: "Title     Zebra Theirs")
        #expect(reloaded.contains("Edit book #\(fixture.book.id) · revision 2"))
        #expect(!reloaded.contains("Conflict:"))
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func theLayoutFollowsResizesDownToTooSmallAndBack() throws {
        let fixture = try Fixture(columns: 100, rows: 30)
        defer { fixture.remove() }
        var screen = try fixture.pane.waitFor(text: "1–26 of 3,011")
        #expect(screen.contains("│"), "wide: the detail pane sits beside the list")

        try fixture.pane.resize(columns: 60, rows: 20)
        screen = try fixture.pane.waitFor(text: "1–11 of 3,011")
        #expect(!screen.contains("│"), "narrow: the pane moves below the list")
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 60 })

        try fixture.pane.resize(columns: 30, rows: 8)
        try fixture.pane.waitFor(text: "Terminal too small:")

        try fixture.pane.resize(columns: 80, rows: 24)
        screen = try fixture.pane.waitFor(text: "1–15 of 3,011")
        #expect(screen.contains("Search:"))
        #expect(!screen.contains("too small"))
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func quittingRestoresTheTerminal() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.pane.send("C-q")
        let screen = try fixture.pane.waitFor(text: "EXITED 0")
        #expect(!screen.contains("Search:"), "the app's screen is gone")
        #expect(!screen.contains("Bookshelf  alice"))
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func ctrlCWithAnUnsavedDraftAsksFirstThenQuits() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.pane.send("Enter")
        try fixture.pane.waitFor(text: "Edit book #")
        try fixture.pane.type("!")
        try fixture.pane.waitFor(text: "modified")
        try fixture.pane.send("C-c")
        try fixture.pane.waitFor(text: "Discard your unsaved changes and quit?")
        try fixture.pane.send("n")
        try fixture.pane.waitFor("the question to close") { !$0.contains("Discard your unsaved") }
        try fixture.pane.send("C-c")
        try fixture.pane.waitFor(text: "Discard your unsaved changes and quit?")
        try fixture.pane.send("y")
        try fixture.pane.waitFor(text: "EXITED 0")
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func aNonUTF8LocaleStillDrawsWideCharacters() throws {
        let fixture = try Fixture(environment: "LANG=C LC_ALL=C")
        defer { fixture.remove() }
        try fixture.pane.type("歴史")
        let screen = try fixture.pane.waitFor(text: "日本の歴史")
        #expect(!screen.contains("Terminal too small"))
    }
}

/// Mistakes the interactive mode reports before it touches the screen.
@Suite(.tags(.process)) struct InteractiveStartupErrorTests {
    @Test func anUnknownAccountIsAClearErrorBeforeTheScreenOpens() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let outcome = try sandbox.run(["--db", try sandbox.starterCatalog(), "--account", "mallory"])
        #expect(outcome.status == 3)
        #expect(
            outcome.errors.contains("there is no account named \"mallory\" (accounts: alice, bob, carol)"),
            "\(outcome.errors)")
        #expect(outcome.output.isEmpty, "nothing was drawn")
    }

    @Test func anUnreadableCatalogIsAClearError() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let notACatalog = try sandbox.write("notes.sqlite", "these are not the books you are looking for\n")
        let outcome = try sandbox.run(["--db", notACatalog])
        #expect(outcome.status == 3)
        #expect(outcome.errors.hasPrefix("bookshelf: "), "\(outcome.errors)")
        #expect(outcome.output.isEmpty)
    }

    @Test func withoutATerminalItPointsToTheSearchCommand() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let outcome = try sandbox.run(["--db", try sandbox.starterCatalog()])
        #expect(outcome.status == 3)
        #expect(outcome.errors.contains("needs a terminal"), "\(outcome.errors)")
    }

    @Test func aBadLatencySpecIsAUsageError() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let outcome = try sandbox.run(["--db", sandbox.path("catalog.sqlite"), "--latency", "fast"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("--latency: 'fast' is not a whole number of milliseconds"), "\(outcome.errors)")
        let seedAlone = try sandbox.run(["--db", sandbox.path("catalog.sqlite"), "--seed", "4"])
        #expect(seedAlone.status == 2)
    }

    @Test func helpListsTheInteractiveOptions() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let outcome = try sandbox.run(["--help"])
        #expect(outcome.status == 0)
        for option in ["--db PATH", "--account NAME", "--latency SPEC", "--seed N", "--trace FILE", "--version"] {
            #expect(outcome.output.contains(option), "\(option)")
        }
    }
}
