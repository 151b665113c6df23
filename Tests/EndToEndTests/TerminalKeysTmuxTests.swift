import BookCatalog
import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Keys as tmux really sends them, whatever TERM the app was given: tmux sends VT220
/// `Esc [1~` / `Esc [4~` for Home and End even where terminfo (xterm's) says `Esc OH` /
/// `Esc OF`, and many users run it with `default-terminal xterm-256color`.
@Suite(.serialized, .tags(.tmux)) struct TerminalKeysTmuxTests {
    static let terminalTypes = ["xterm-256color", "screen-256color", "tmux-256color", "xterm"]

    @Test(.enabled(if: TmuxPane.shouldRun), arguments: terminalTypes)
    func editingKeysHelpAndPasteWork(term: String) async throws {
        let fixture = try InteractiveTests.Fixture(environment: "TERM=\(term)")
        defer { fixture.remove() }
        let pane = fixture.pane

        // Search line: Home, Delete, End edit it; nothing of a sequence is typed or acts as Esc.
        try pane.type("quixotic zebrX")
        try pane.waitFor(text: "Search: quixotic zebrX")
        try pane.send("Home")
        try pane.send("DC")
        try pane.type("Q")
        try pane.send("End")
        try pane.send("BSpace")
        try pane.type("a")
        var screen = try pane.waitFor(text: "Search: Quixotic zebra")
        try pane.waitFor(text: "1–1 of 1")
        // Ctrl-Right from the start of the line: after "Quixotic". Alt-B from the end: before "zebra".
        try pane.send("Home")
        try pane.send("C-Right")
        try pane.type(",")
        try pane.send("End")
        try pane.send("M-b")
        try pane.type("_")
        screen = try pane.waitFor(text: "Search: Quixotic, _zebra")
        #expect(!screen.contains("~"), "no part of an escape sequence became text:\n\(screen)")

        // F1 opens the help; any key closes it.
        try pane.send("F1")
        try pane.waitFor(text: "When someone else saved first")
        try pane.send("Left")
        try pane.waitFor("the help to close") { !$0.contains("When someone else saved first") }

        // The editor's fields.
        try pane.send("C-u")
        try pane.send("C-k")
        try pane.waitFor(text: "of 3,011")
        try pane.type("quixotic")
        try pane.waitFor("the one result") { $0.contains("Search: quixotic\n") && $0.contains("1–1 of 1") }
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #\(fixture.book.id) · revision 1")
        try pane.send("Home")
        try pane.send("DC")
        try pane.type("K")
        try pane.send("End")
        try pane.type("!")
        try pane.waitFor(text: "Title     Kuixotic Zebra Handbook!")
        try pane.send("Tab")
        try pane.send("Home")
        try pane.send("C-Right")
        try pane.paste(" two\nlines")
        // Keys that arrive in the same read as a paste are taken as part of it: wait for it.
        try pane.waitFor(text: "Author    Ada two lines Tester")
        try pane.send("End")
        try pane.send("M-b")
        try pane.send("DC")
        screen = try pane.waitFor(text: "Author    Ada two lines ester")
        #expect(screen.contains("revision 1 · modifi"), "\(screen)")  // cut to the pane's width
        #expect(screen.contains("Edit book #"), "the pasted line break neither saved nor closed the editor")

        let stored = try await fixture.stored()
        #expect(stored.revision == 1)
        #expect(stored.title == "Quixotic Zebra Handbook")
        #expect(stored.author == "Ada Tester")
    }

    /// Ctrl-Z stops the app and gives the shell the terminal back, with bracketed paste
    /// off; `fg` brings the app back, redrawn, with keys and paste working again.
    @Test(.enabled(if: TmuxPane.shouldRun))
    func ctrlZSuspendsAndFgResumes() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        _ = try sandbox.run(["setup", "--db", db])  // the starter catalog
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        // An interactive shell with job control; its prompt is easy to wait for.
        let pane = try TmuxPane("env PS1='shell> ' HOME=\(shellQuoted(sandbox.path("home"))) TERM=xterm-256color sh -i")
        defer { pane.kill() }
        try pane.waitFor(text: "shell>")  // capture-pane drops trailing spaces
        try pane.type("\(shellQuoted(binary.path)) --db \(shellQuoted(db))")
        try pane.send("Enter")
        try pane.waitFor(text: "of 3,010")  // the starter catalog
        try pane.type("rome")
        try pane.waitFor(text: "Search: rome")

        try pane.send("C-z")
        var screen = try pane.waitFor("the shell's prompt after the stop") { promptFollows("Stopped", in: $0) }
        #expect(!screen.contains("Search: rome"), "the app's screen is gone while it is stopped:\n\(screen)")
        // With bracketed paste still on, the shell would read the markers as part of the command.
        try pane.paste("echo pasted-into-the-shell")
        try pane.send("Enter")
        screen = try pane.waitFor(text: "\npasted-into-the-shell")

        try pane.type("fg")
        try pane.send("Enter")
        screen = try pane.waitFor(text: "Search: rome")
        #expect(screen.contains("Bookshelf  alice"), "the whole screen is redrawn:\n\(screen)")
        #expect(!screen.contains("shell>"), "nothing of the shell is left on the app's screen:\n\(screen)")
        try pane.send("Home")
        try pane.type("new ")
        try pane.waitFor(text: "Search: new rome")
        try pane.paste("a\nb")
        try pane.waitFor(text: "Search: new a brome")

        try pane.send("C-q")
        try pane.waitFor("the shell's prompt after quitting") { promptFollows("fg", in: $0) }
        try pane.paste("echo pasted-after-quit")
        try pane.send("Enter")
        try pane.waitFor(text: "\npasted-after-quit")
    }

    /// A signal and a crash leave the terminal as they found it too: with bracketed paste
    /// off, the shell reads a paste as plain text.
    @Test(.enabled(if: TmuxPane.shouldRun), arguments: [SIGTERM, SIGSEGV])
    func aSignalOrACrashSwitchesPasteOff(signal: Int32) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        _ = try sandbox.run(["setup", "--db", db])  // the starter catalog
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let pidFile = sandbox.path("app.pid")
        // No Swift backtrace after the crash: it takes seconds and is not what is tested. Nor
        // a sanitizer's report of it (`Scripts/sanitize` fails on any report): the crash is
        // the test's doing, so SIGSEGV goes to the app's handler and the default action, as
        // in an uninstrumented build.
        let pane = try TmuxPane(
            "env PS1='shell> ' HOME=\(shellQuoted(sandbox.path("home"))) TERM=xterm-256color "
                + "SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=\"${ASAN_OPTIONS:-} handle_segv=0\" "
                + "TSAN_OPTIONS=\"${TSAN_OPTIONS:-} handle_segv=0\" sh -i")
        defer { pane.kill() }
        try pane.waitFor(text: "shell>")
        // The app's own process id, for the test to signal it.
        let command = "echo $$ > \(shellQuoted(pidFile)); exec \(shellQuoted(binary.path)) --db \(shellQuoted(db))"
        try pane.type("sh -c \(shellQuoted(command))")
        try pane.send("Enter")
        try pane.waitFor(text: "of 3,010")
        let text = try String(contentsOfFile: pidFile, encoding: .utf8)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, signal) == 0)
        try pane.waitFor("the shell's prompt after the app ended") { screen in
            !screen.contains("Search:") && screen.split(separator: "\n").last == "shell>"
        }
        try pane.paste("echo pasted-after-signal")
        try pane.send("Enter")
        try pane.waitFor(text: "\npasted-after-signal")
    }

    /// Clusters of every class that ncurses alone would cut, each in a title of its own.
    static let clusters = [
        "कि", "ता", "กำ", "ที่", "\u{1112}\u{1161}\u{11AB}", "🇯🇵", "👍🏽",
        "👨\u{200D}👩\u{200D}👧", "1\u{FE0F}\u{20E3}", "a\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}",
    ]

    /// The app on a new catalog that also holds `titles` (by "Zed"), run under `script`, which
    /// keeps every byte the app writes to the terminal in `typescript`.
    struct RecordedApp {
        let sandbox: BookshelfProcess
        let pane: TmuxPane
        let typescript: String

        init(titles: [String], columns: Int) throws {
            let sandbox = try BookshelfProcess()
            self.sandbox = sandbox
            var started = false
            defer { if !started { sandbox.remove() } }
            let db = sandbox.path("catalog.sqlite")
            _ = try sandbox.run(["setup", "--db", db])
            let books = sandbox.path("books.jsonl")
            try titles.map { "{\"title\": \"\($0)\", \"author\": \"Zed\"}\n" }.joined()
                .write(toFile: books, atomically: true, encoding: .utf8)
            _ = try sandbox.run(["import", books, "--db", db])
            let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            typescript = sandbox.path("typescript")
            let app = "\(shellQuoted(binary.path)) --db \(shellQuoted(db))"
            pane = try TmuxPane(
                "env HOME=\(shellQuoted(sandbox.path("home"))) TERM=xterm-256color "
                    + "script -q -c \(shellQuoted(app)) \(shellQuoted(typescript)); echo EXITED; exec sleep 600",
                columns: columns)
            try pane.waitFor(text: "of 3,0")
            started = true
        }

        /// Quits the app and returns what it wrote to the terminal.
        func quit() throws -> String {
            try pane.send("C-q")
            try pane.waitFor(text: "EXITED")
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
        }

        func remove() {
            pane.kill()
            sandbox.remove()
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun && ChildProcess.onPath("script") != nil))
    func theBytesSentToTheTerminalHoldEveryClusterWhole() throws {
        let app = try RecordedApp(
            titles: Self.clusters.enumerated().map { "\($0.element) zz\($0.offset)" }, columns: 120)
        defer { app.remove() }
        try app.pane.type("zz")
        try app.pane.waitFor(text: "1–\(Self.clusters.count) of \(Self.clusters.count)")
        let written = try app.quit()
        for cluster in Self.clusters {
            #expect(
                written.contains(cluster),
                "\(cluster.unicodeScalars.map { String($0.value, radix: 16) }) reached the terminal whole")
        }
        #expect(!written.contains("कत"), "no vowel sign dropped")
        let scalars = Array(written.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar.value == 0x200D {
            let before = index > 0 ? scalars[index - 1].properties.isEmoji : false
            let after = index + 1 < scalars.count ? scalars[index + 1].properties.isEmoji : false
            #expect(before && after, "a joiner sits between two emoji, never alone")
        }
        let flag = scalars.indices.filter { scalars[$0].value == 0x1F1EF }
        #expect(flag.allSatisfy { $0 + 1 < scalars.count && scalars[$0 + 1].value == 0x1F1F5 }, "no half flag")
    }

    /// Columns tmux gives `text`: where its cursor stands after printing it on an empty line.
    static func tmuxColumns(_ text: String) throws -> Int {
        let pane = try TmuxPane("printf '%s|' \(shellQuoted(text)); exec sleep 600")
        defer { pane.kill() }
        try pane.waitFor("printed") { $0.contains("|") }
        return try #require(Int(pane.format("#{cursor_x}"))) - 1
    }

    @Test(.enabled(if: TmuxPane.shouldRun && ChildProcess.onPath("script") != nil))
    func aClusterWiderThanTwoColumnsIsDrawnWholeAndLeavesNoTrace() throws {
        let hindi = "\u{939}\u{93F}\u{928}\u{94D}\u{926}\u{940}"  // हिन्दी: हि (2 columns), न्दी (3)
        // Two titles whose "zz0" stands in the same column if हिन्दी takes 5: four of them and
        // their three spaces are 23 columns, as the other title's 23 spaces.
        let clustered = "p \(Array(repeating: hindi, count: 4).joined(separator: " ")) zz0 q"
        let spaced = "p \(String(repeating: " ", count: 23)) zz0 r"
        let app = try RecordedApp(titles: [clustered, spaced], columns: 100)
        defer { app.remove() }
        let pane = app.pane
        func rows(holding text: String, in screen: String) -> [String] {
            screen.split(separator: "\n").map(String.init).filter { $0.contains(text) }
        }
        try pane.type("zz0 ")
        let both = try pane.waitFor(text: "1–2 of 2")
        // Each title took the columns tmux gives it: the author column starts in the same
        // terminal column on both rows.
        let listRows = [clustered, spaced].compactMap { title in
            rows(holding: title, in: both).first.flatMap { row in row.range(of: "Zed").map { row[..<$0.lowerBound] } }
        }
        #expect(listRows.count == 2, "both drawn whole: \(both)")
        let columns = try listRows.map { try Self.tmuxColumns(String($0)) }
        #expect(columns.count == 2 && columns[0] == columns[1], "\(columns): \(both)")

        // The details show the clustered book, then the spaced one over it: ncurses was told
        // only blanks stood where the clusters were, and the blanks are what it must leave.
        try pane.type("q")
        try pane.waitFor(text: "1–1 of 1")
        try pane.send("BSpace")
        let back = try pane.waitFor(text: "1–2 of 2")
        for row in rows(holding: "zz0 r", in: back) {
            #expect(!row.contains("\u{939}") && !row.contains("\u{928}"), "nothing left of हिन्दी: \(back)")
        }
        let written = try app.quit()
        for cluster in ["\u{939}\u{93F}", "\u{928}\u{94D}\u{926}\u{940}"] {
            #expect(written.contains(cluster), "\(cluster) reached the terminal whole")
        }
        #expect(!written.contains("\u{FFFD}"), "nothing shown as a replacement")
    }

    @Test(.enabled(if: TmuxPane.shouldRun))
    func aPastedPasteEndRunsNothingThatFollowsIt() throws {
        let fixture = try InteractiveTests.Fixture()
        defer { fixture.remove() }
        let pane = fixture.pane
        // tmux sends the buffer as it is between its own markers: the pasted end marker ends
        // the paste early, and Ctrl-Q after it would quit.
        try pane.paste("abc\u{1B}[201~\u{11}after")
        let screen = try pane.waitFor(text: "Search: abcafter")
        #expect(!screen.contains("EXITED"))
        try pane.send("C-q")
        try pane.waitFor(text: "EXITED 0")
    }

    @Test(.enabled(if: TmuxPane.shouldRun), arguments: ["enable=no", "enable=yes,interactive=no"])
    func aRuntimeTrapInsideTheAppRestoresTheTerminal(backtrace: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        _ = try sandbox.run(["setup", "--db", db])
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let log = sandbox.path("stderr.log")
        let pane = try TmuxPane(
            "env PS1='shell> ' HOME=\(shellQuoted(sandbox.path("home"))) TERM=xterm-256color "
                + "SWIFT_BACKTRACE=\(backtrace) ASAN_OPTIONS=\"${ASAN_OPTIONS:-} handle_abort=0 handle_sigill=0\" sh -i"
        )
        defer { pane.kill() }
        try pane.waitFor(text: "shell>")
        try pane.type(
            "clear; BOOKSHELF_TEST_TRAP_AFTER_START=1 \(shellQuoted(binary.path)) --db \(shellQuoted(db)) 2>\(shellQuoted(log)); echo exit=$?"
        )
        try pane.send("Enter")
        // The typed command line holds "exit=$?" too: wait for the status the shell printed (a
        // line of its own, digits after "exit=") and its prompt after it, or a slow start is
        // mistaken for the app's end and the checks below look at the app's own screen.
        let screen = try pane.waitFor("the shell after the trap", timeout: .seconds(60)) { screen in
            screen.split(separator: "\n").contains { $0.hasPrefix("exit=") && $0.dropFirst(5).first?.isNumber == true }
                && promptFollows("exit=", in: screen)
        }
        #expect(screen.contains("exit=132") || screen.contains("exit=133"), "died of the trap: \(screen)")
        #expect(!screen.contains("Search:"), "the app's screen is gone: \(screen)")
        #expect(
            !screen.contains("Fatal error") && !screen.contains("Crash") && !screen.contains("Thread 0"),
            "no backtrace painted over the screen: \(screen)")
        #expect(try pane.format("#{alternate_on}") == "0")
        #expect(try pane.format("#{mouse_any_flag}") == "0")
        #expect(try pane.format("#{cursor_flag}") == "1")
        #expect(try pane.format("#{keypad_cursor_flag}") == "0")
        // Bracketed paste off and the line discipline cooked with echo: a paste arrives as plain
        // typed text the shell echoes and runs.
        try pane.paste("echo pasted-after-trap")
        try pane.send("Enter")
        try pane.waitFor(text: "\npasted-after-trap")
    }

    /// The shell printed its prompt after the last line containing `marker`: whatever the
    /// app wrote before it stopped or ended has been processed by then.
    private func promptFollows(_ marker: String, in screen: String) -> Bool {
        guard let last = screen.range(of: marker, options: .backwards) else { return false }
        return screen[last.upperBound...].contains("shell>")
    }
}
