import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// The interactive `bookshelf` on a PostgreSQL catalog, in real terminals under tmux: two
/// people on one catalog see each other's saves, and a role that needs a password is asked
/// for it (without echo) before the screen opens.
@Suite(.serialized, .tags(.postgres, .tmux)) struct PostgresInteractiveTests {
    struct Fixture {
        let server: PostgresScratchServer
        let sandbox: BookshelfProcess
        let binary: URL

        init() throws {
            // Private: tests stop, kill and restart it; dave signs in with a password (pg_hba).
            server = try PostgresScratchServer(passwordRoles: ["dave"])
            sandbox = try BookshelfProcess()
            binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
            let setup = try sandbox.run(
                ["setup", "--db", server.conninfo()], environment: sandbox.withoutLibpqSettings)
            try #require(setup.status == 0, "\(setup.errors)")
            let file = try sandbox.write("zebra.csv", "title,author\nQuixotic Zebra Handbook,Ada Tester\n")
            let imported = try sandbox.run(
                ["import", file, "--db", server.conninfo()], environment: sandbox.withoutLibpqSettings)
            try #require(imported.status == 0, "\(imported.errors)")
        }

        /// `bookshelf --db <conninfo for user>` in its own pane.
        func pane(user: String) throws -> TmuxPane {
            let command =
                "env HOME=\(shellQuoted(sandbox.path("home"))) PGPASSWORD= PGPASSFILE=\(shellQuoted(sandbox.path("no-pgpass"))) "
                + "\(shellQuoted(binary.path)) --db \(shellQuoted(server.conninfo(user: user))); echo EXITED $?; exec sleep 600"
            // Wide enough that the editor's title field shows a title and a word typed after it whole.
            return try TmuxPane(command, columns: 120, rows: 30)
        }

        /// Adds dave, whose password is "correct horse", as a `role` in scope main.
        func addDave(as role: String) throws {
            let added = try sandbox.run(
                [
                    "setup", "--db", server.conninfo(), "--account", "dave", "--role", role, "--scope", "main",
                    "--password-stdin",
                ],
                environment: sandbox.withoutLibpqSettings, input: "correct horse\n")
            try #require(added.status == 0, "\(added.errors)")
        }

        /// Answers the start-up password prompt.
        static func signIn(_ pane: TmuxPane, password: String) throws {
            try pane.waitFor(text: "Password for postgresql")
            try pane.type(password)
            try pane.send("Enter")
        }

        /// Opens the Quixotic Zebra Handbook in the editor and adds " Draft" to its title, unsaved.
        static func startDraft(in pane: TmuxPane) throws {
            try pane.type("quixotic")
            try pane.waitFor(text: "1–1 of 1")
            try pane.send("Enter")
            try pane.waitFor(text: "Edit book #")
            try pane.type(" Draft")
            try pane.waitFor(text: "Title     Quixotic Zebra Handbook Draft")
        }

        func remove() {
            server.stop()
            sandbox.remove()
        }
    }

    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aSaveInOneSessionShowsUpInTheOther() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let alice = try fixture.pane(user: "alice")
        defer { alice.kill() }
        let bob = try fixture.pane(user: "bob")
        defer { bob.kill() }
        try alice.waitFor(text: "alice (editor) · 3,011 books  PostgreSQL dbname=postgres")
        try bob.waitFor(text: "of 3,011")

        for pane in [alice, bob] {
            try pane.type("quixotic")
            try pane.waitFor(text: "1–1 of 1")
        }
        try alice.send("Enter")
        try alice.waitFor(text: "Edit book #")  // the editor, not the detail pane, which also says "revision 1"
        try alice.send("C-w")
        try alice.type("Field Guide")
        try alice.waitFor(text: "Title     Quixotic Zebra Field Guide")
        try alice.send("Enter")
        try alice.waitFor(text: "Saved as revision 2.")

        // Bob's session hears of it (LISTEN/NOTIFY, checked every second) and re-reads.
        let seen = try bob.waitFor(text: "Quixotic Zebra Field Guide", timeout: .seconds(10))
        #expect(seen.contains("1–1 of 1"))
        #expect(!seen.contains("Quixotic Zebra Handbook"), "the old title is gone: \(seen)")
    }

    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aRoleThatNeedsAPasswordIsAskedBeforeTheScreenOpens() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.addDave(as: "reader")

        let wrong = try fixture.pane(user: "dave")
        defer { wrong.kill() }
        try Fixture.signIn(wrong, password: "battery staple")
        let refused = try wrong.waitFor(text: "EXITED 3")
        // The pane wraps the message where the terminal's width falls: read it as one line.
        let refusal = refused.replacingOccurrences(of: "\n", with: "")
        #expect(refusal.contains("password authentication failed for user \"dave\""), "\(refused)")
        #expect(!refused.contains("battery"), "the password is never echoed")

        let dave = try fixture.pane(user: "dave")
        defer { dave.kill() }
        try dave.waitFor(text: "Password for postgresql")
        try dave.type("correct horse")
        let prompt = try dave.capture()
        #expect(!prompt.contains("correct"), "the password is never echoed: \(prompt)")
        try dave.send("Enter")
        try dave.waitFor(text: "dave (reader) · 3,011 books  PostgreSQL")

        // Switching away and back asks again: the start-up password was not kept.
        try dave.send("C-t")
        // The switcher lays names, roles and scopes out in columns: dave's row is the current one.
        let switcher = try dave.waitFor(text: "(current)  (password)")
        #expect(
            switcher.split(separator: "\n").contains { $0.contains("dave ") && $0.contains("(current)  (password)") })
        try dave.send("Up", "Up", "Up", "Enter")
        try dave.waitFor(text: "alice (editor) · 3,011 books")
        try dave.send("C-t")
        try dave.waitFor(text: "Switch account")
        try dave.send("Down", "Down", "Down", "Enter")
        try dave.waitFor(text: "Account dave needs a password.")
        try dave.type("correct horse")
        try dave.send("Enter")
        try dave.waitFor(text: "dave (reader) · 3,011 books")
    }

    /// The server ends dave's connection while he edits (as a restart or a network cut would).
    /// Only his typed password can sign him in again, so the app asks for it, masked, over
    /// the screen he was using: the query and the draft stay, and nothing is written down.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aLostConnectionAsksForThePasswordAgainInPlace() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try fixture.addDave(as: "editor")

        let dave = try fixture.pane(user: "dave")
        defer { dave.kill() }
        try Fixture.signIn(dave, password: "correct horse")
        try dave.waitFor(text: "dave (editor) · 3,011 books")
        try Fixture.startDraft(in: dave)

        let cutOff = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'dave'"
        try fixture.server.superuserSQL(cutOff)
        // The freshness check (every second) finds the connection gone.
        try dave.waitFor(text: "The connection was lost.", timeout: .seconds(10))
        try dave.type("wrong")
        try dave.send("Enter")
        try dave.waitFor(text: "That password was not accepted.")
        // Esc leaves the screen as it was and says how to come back.
        try dave.send("Escape")
        let disconnected = try dave.waitFor(text: "Disconnected: F2, then Enter on dave")
        #expect(disconnected.contains("dave (editor) · disconnected"), "\(disconnected)")
        #expect(disconnected.contains("Title     Quixotic Zebra Handbook Draft"), "the draft stays: \(disconnected)")

        try dave.send("F2")
        // The switcher lays names, roles and scopes out in columns: dave's row is the current one.
        let switcher = try dave.waitFor(text: "(current)  (password)")
        #expect(
            switcher.split(separator: "\n").contains { $0.contains("dave ") && $0.contains("(current)  (password)") })
        try dave.send("Down", "Down", "Down", "Enter")
        try dave.waitFor(text: "The connection was lost.")
        try dave.type("correct horse")
        let masked = try dave.waitFor(text: "•••••••••••••")
        #expect(!masked.contains("correct"), "masked: \(masked)")
        try dave.send("Enter")
        let back = try dave.waitFor(text: "Reconnected as dave.")
        #expect(!back.contains("disconnected"), "\(back)")
        #expect(back.contains("Title     Quixotic Zebra Handbook Draft"), "the draft survived: \(back)")

        // The same session saves the draft it kept.
        try dave.send("Enter")
        try dave.waitFor(text: "Saved as revision 2.")
        // Nothing the app wrote in its home holds the password.
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: fixture.sandbox.path("home"))) ?? []
        for file in files {
            let text = (try? String(contentsOfFile: fixture.sandbox.path("home/" + file), encoding: .utf8)) ?? ""
            #expect(!text.contains("correct horse"), "the password was written to \(file)")
        }
    }

    /// Issue 43, item 9: dave signs in with his password in PGPASSWORD, or in the connection
    /// string, and switches to erin, who has a password of her own. That password is dave's
    /// alone: the switcher marks erin "(password)" and asks for hers; a wrong one asks again
    /// and says so (not a cut "The catalog is unavailable: connection to server at ..."), and
    /// the right one signs her in.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func anotherAccountIsAskedForItsOwnPasswordAndAWrongOneAgain() throws {
        // Private: dave and erin sign in with passwords (pg_hba); `bookshelf setup` makes fixed role names.
        let server = try PostgresScratchServer(passwordRoles: ["dave", "erin"])
        let sandbox = try BookshelfProcess()
        defer { server.stop(); sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let setup = try sandbox.run(["setup", "--db", server.conninfo()], environment: sandbox.withoutLibpqSettings)
        try #require(setup.status == 0, "\(setup.errors)")
        for (name, password) in [("dave", "correct horse"), ("erin", "erin's own")] {
            let added = try sandbox.run(
                [
                    "setup", "--db", server.conninfo(), "--account", name, "--role", "editor", "--scope", "main",
                    "--password-stdin",
                ], environment: sandbox.withoutLibpqSettings, input: password + "\n")
            try #require(added.status == 0, "\(added.errors)")
        }

        let home = "env HOME=\(shellQuoted(sandbox.path("home"))) PGPASSFILE=\(shellQuoted(sandbox.path("no-pgpass")))"
        let daveOnly = server.conninfo(user: "dave")
        let ways = [
            "PGPASSWORD":
                "\(home) PGPASSWORD='correct horse' \(shellQuoted(binary.path)) --db \(shellQuoted(daveOnly))",
            "the connection string": "\(home) PGPASSWORD= \(shellQuoted(binary.path)) --db "
                + shellQuoted(daveOnly + " password='correct horse'"),
            // The string names another user; the run is dave's, so PGPASSWORD is his.
            "PGPASSWORD with --account": "\(home) PGPASSWORD='correct horse' \(shellQuoted(binary.path)) --db "
                + "\(shellQuoted(server.conninfo())) --account dave",
        ]
        for (way, command) in ways.sorted(by: { $0.key < $1.key }) {
            let pane = try TmuxPane(command + "; echo EXITED $?; exec sleep 600", columns: 120, rows: 30)
            defer { pane.kill() }
            // No prompt before the screen: dave's password came with the command.
            try pane.waitFor(text: "dave (editor) · ")
            try pane.send("F2")
            let switcher = try pane.waitFor(text: "erin ")
            #expect(
                switcher.split(separator: "\n").contains { $0.contains("erin ") && $0.contains("(password)") },
                "with the password in \(way), erin is marked as needing her own: \(switcher)")
            // alice, bob, carol, dave, erin: from the top (the list may have arrived after the
            // switcher opened on the account that was current then), erin is the fifth.
            try pane.send("Up", "Up", "Up", "Up", "Up", "Down", "Down", "Down", "Down", "Enter")
            try pane.waitFor(text: "Account erin needs a password.")
            try pane.type("battery staple")
            try pane.send("Enter")
            let refused = try pane.waitFor(text: "That password was not accepted.")
            #expect(!refused.contains("unavailable") && !refused.contains("Could not switch"), "\(way): \(refused)")
            #expect(refused.contains("dave (editor)"), "dave's session stays until erin signs in: \(refused)")
            try pane.type("erin's own")
            try pane.send("Enter")
            try pane.waitFor(text: "erin (editor) · ")
        }
    }

    /// Issue 43, item 7: the server goes away while alice edits and types nothing. The
    /// freshness check (every second) says so in the header and on the status line, the
    /// draft stays, and once the server is back both say so no longer.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aServerLostWhileIdleShowsWithoutAKeyAndClearsWhenBack() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let alice = try fixture.pane(user: "alice")
        defer { alice.kill() }
        try alice.waitFor(text: "alice (editor) · ")
        try Fixture.startDraft(in: alice)

        // Both lines are waited for together: a capture can come while the terminal is between
        // the header's row and the status line's (the ten-run series caught one so).
        try fixture.server.stopServer()
        let lost = try alice.waitFor("the header and the status line to say the catalog is lost", timeout: .seconds(10))
        {
            $0.contains("alice (editor) · disconnected, retrying")
                && $0.contains("Cannot reach the catalog: still trying.")
        }
        #expect(lost.contains("Title     Quixotic Zebra Handbook Draft"), "the draft stays: \(lost)")

        try fixture.server.startServer()
        let back = try alice.waitFor("the header and the status line to say so no longer", timeout: .seconds(15)) {
            $0.contains("alice (editor) · 3,011 books") && !$0.contains("disconnected") && !$0.contains("Cannot reach")
        }
        #expect(back.contains("Title     Quixotic Zebra Handbook Draft"), "\(back)")
    }

    /// Issue 43, item 8: an administrator demotes alice, then moves her to scope north, in
    /// bookshelf.accounts while her session is open. The header follows each change within
    /// the freshness interval, and after the move main's rows are gone: the typed query runs
    /// again, for north.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func anAdministratorsRoleAndScopeChangesReachTheOpenSession() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let alice = try fixture.pane(user: "alice")
        defer { alice.kill() }
        try alice.waitFor(text: "alice (editor) · ")
        try alice.type("quixotic")
        try alice.waitFor(text: "1–1 of 1")

        try fixture.server.superuserSQL("UPDATE bookshelf.accounts SET role = 'reader' WHERE name = 'alice'")
        let demoted = try alice.waitFor(text: "alice (reader) · ", timeout: .seconds(10))
        #expect(demoted.contains("Quixotic Zebra Handbook"), "the same scope's rows stay: \(demoted)")

        try fixture.server.superuserSQL("UPDATE bookshelf.accounts SET scope = 'north' WHERE name = 'alice'")
        let moved = try alice.waitFor(text: "moved alice to scope north", timeout: .seconds(10))
        #expect(!moved.contains("Quixotic Zebra Handbook"), "main's rows are gone: \(moved)")
        try alice.waitFor(text: "no matches", timeout: .seconds(10))
    }

    /// Issue 43, item 4: alice's save waits on a row lock another transaction holds, and the
    /// server stops at once (`pg_ctl stop -m immediate`, as in a crash), then starts again. The
    /// save never committed; once the session is connected again the editor settles it through
    /// its operation id and says so, without a key. The draft stays.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aSaveCutOffByAnImmediateStopIsSettledWhenTheServerIsBack() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let alice = try fixture.pane(user: "alice")
        defer { alice.kill() }
        try alice.waitFor(text: "alice (editor) · ")
        try Fixture.startDraft(in: alice)

        try fixture.server.superuserSQL("CHECKPOINT")
        try fixture.server.superuserSQLInBackground(
            "BEGIN; SELECT id FROM bookshelf.books WHERE title = 'Quixotic Zebra Handbook' FOR UPDATE; SELECT pg_sleep(600);"
        )
        // The lock is held once that transaction sleeps: wait for it (psql starts on its own).
        try fixture.server.waitForActivity(where: "wait_event = 'PgSleep'")
        try alice.send("Enter")
        // The save waits on the lock: the server shows a session waiting for it. (The freshness
        // checks wait behind the save, which says nothing about reaching the server, so the
        // header does not say "disconnected" for them.)
        try fixture.server.waitForActivity(where: "wait_event_type = 'Lock'")

        try fixture.server.stopServerImmediately()
        try fixture.server.startServer()
        let settled = try alice.waitFor(text: "The last save did not go through.", timeout: .seconds(15))
        #expect(!settled.contains("Unknown whether"), "\(settled)")
        #expect(settled.contains("Title     Quixotic Zebra Handbook Draft"), "the draft stays: \(settled)")
    }
}
