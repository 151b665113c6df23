import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Issue 42 in the app, in a real terminal under tmux: reads served by a standby 3 s behind
/// the primary still show the user's own save at once, and a failover that loses an
/// acknowledged save says so, keeps the text and lets it be saved again.
@Suite(.serialized, .tags(.postgres, .tmux)) struct PostgresReplicaTmuxTests {
    /// A catalog with the zebra book on `primary`, set up as a user does.
    static func catalog(on primary: PostgresScratchServer, in sandbox: BookshelfProcess) throws {
        try sandbox.setUp(primary)
        let file = try sandbox.write("zebra.csv", "title,author\nQuixotic Zebra Handbook,Ada Tester\n")
        let imported = try sandbox.run(
            ["import", file, "--db", primary.conninfo()], environment: sandbox.withoutLibpqSettings)
        try #require(imported.status == 0, "\(imported.errors)")
    }

    /// `bookshelf --db connection arguments` in its own pane, with libpq's settings emptied.
    static func app(_ sandbox: BookshelfProcess, db connection: String, _ arguments: [String] = []) throws -> TmuxPane {
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let command =
            "env HOME=\(shellQuoted(sandbox.path("home"))) PGPASSWORD= PGPASSFILE=\(shellQuoted(sandbox.path("no-pgpass"))) "
            + ([binary.path, "--db", connection] + arguments).map(shellQuoted).joined(separator: " ")
            + "; echo EXITED $?; exec sleep 600"
        return try TmuxPane(command, columns: 120, rows: 30)
    }

    /// Opens the zebra book from a search; its id.
    static func openZebra(in pane: TmuxPane, revision: Int) throws -> Int {
        try pane.type("quixotic")
        try pane.waitFor(text: "1–1 of 1")
        try pane.send("Enter")
        let screen = try pane.waitFor("the editor at revision \(revision)") { screen in
            screen.split(separator: "\n").contains {
                $0.contains("Edit book #") && $0.contains(" · revision \(revision)")
            }
        }
        let header = try #require(screen.split(separator: "\n").first { $0.contains("Edit book #") }, "\(screen)")
        let number = header.split(separator: "#")[1].prefix { $0.isNumber }
        return try #require(Int(number), "\(header)")
    }

    /// The editor pane's text (right of the list), its wrapped lines joined by spaces.
    static func editorPane(_ screen: String) -> String {
        screen.split(separator: "\n").compactMap { line in
            line.range(of: "│ ").map { line[$0.upperBound...].trimmingCharacters(in: .whitespaces) }
        }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun))
    func aSaveIsShownAtOnceThoughTheStandbyIsThreeSecondsBehind() throws {
        // Private: a delayed standby copies the whole server; `bookshelf setup` makes fixed role names.
        let primary = try PostgresScratchServer(passwordRoles: [])
        defer { primary.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        try Self.catalog(on: primary, in: sandbox)
        let standby = try PostgresScratchServer(
            standbyOf: primary, settings: ["fsync=off", "recovery_min_apply_delay=3s"])
        defer { standby.stop() }
        // The standby first: libpq's order must not decide where saves go.
        let both =
            "host=\(standby.directory),\(primary.directory) port=\(standby.port),\(primary.port) dbname=postgres user=alice"
        let standbyServer = "\(standby.directory):\(standby.port)"
        let primaryServer = "\(primary.directory):\(primary.port)"

        let pane = try Self.app(sandbox, db: both, ["--reads", "standby"])
        defer { pane.kill() }
        try pane.waitFor(text: "alice (editor) · ")
        let id = try Self.openZebra(in: pane, revision: 1)
        try pane.type(" Second Edition")
        try pane.send("Enter")
        try pane.waitFor(text: "Saved as revision 2.")
        try pane.send("Escape")
        // The list refreshed after the save, through a standby that replays it only 3 s later.
        let list = try pane.waitFor("the list row with the new title") { screen in
            !screen.contains("Edit book #") && screen.contains(" Quixotic Zebra Handbook Second Edition ")
        }
        #expect(!list.contains("Quixotic Zebra Handbook  "), "the old title is not listed\n\(list)")
        try pane.send("Enter")
        try pane.waitFor(text: "Edit book #\(id) · revision 2")
        try pane.send("Escape")
        try pane.waitFor("the editor closed") { !$0.contains("Edit book #") }

        // The request panel: the first search was served by the standby; the reads right after
        // the save fell back to the primary, as the standby had not replayed it.
        try pane.send("F4")
        let panel = try pane.waitFor(text: "Requests, newest first")
        let rows = panel.split(separator: "\n").map(String.init)
        #expect(
            rows.contains { $0.contains(" search ") && $0.contains("standby \(standbyServer)") },
            "a search served by the standby\n\(panel)")
        // Newest first: the refresh the save started is the nearest refresh above the save.
        let save = try #require(rows.firstIndex { $0.contains(" save ") && $0.contains("published") }, "\(panel)")
        let refresh = try #require(rows[..<save].lastIndex { $0.contains(" refresh ") }, "\(panel)")
        #expect(
            rows[refresh].contains("published") && rows[refresh].contains("primary \(primaryServer), fell back"),
            "the refresh right after the save fell back to the primary\n\(panel)")
        try pane.send("Escape")
        try pane.waitFor("the panel closed") { !$0.contains("Requests, newest first") }
    }

    /// With the editor still open on the book, the editor says which revision was lost and
    /// keeps the text as its draft; with it closed, the message line names the book and the
    /// revision, and opening the book brings the text back.
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun), arguments: [true, false])
    func aSaveTheFailoverLostIsNamedKeptAndSavedAgain(editorStaysOpen: Bool) throws {
        // Private: the primary is killed and its standby promoted.
        let primary = try PostgresScratchServer(passwordRoles: [])
        defer { primary.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        try Self.catalog(on: primary, in: sandbox)
        let standby = try PostgresScratchServer(standbyOf: primary, settings: ["fsync=off", "cluster_name=standby1"])
        defer { standby.stop() }
        try primary.waitForStandby(named: "standby1", syncState: "async")
        let pair = FailoverPair(primary: primary, standby: standby)

        let pane = try Self.app(sandbox, db: pair.connectionString(user: "alice"))
        defer { pane.kill() }
        try pane.waitFor(text: "alice (editor) · ")
        let id = try Self.openZebra(in: pane, revision: 1)

        // Cut off, the standby never receives the save the primary acknowledges next.
        try standby.superuserSQL("ALTER SYSTEM SET primary_conninfo = ''")
        try standby.superuserSQL("SELECT pg_reload_conf()")
        try primary.waitUntilNoStandbyStreams()
        try pane.type(" Lost")
        try pane.send("Enter")
        try pane.waitFor(text: "Saved as revision 2.")
        if !editorStaysOpen {
            try pane.send("Escape")
            try pane.waitFor("the list with the saved title") {
                !$0.contains("Edit book #") && $0.contains(" Quixotic Zebra Handbook Lost ")
            }
        }

        try primary.stopServerImmediately()
        try standby.promote()
        // The app reconnects through the same string to the promoted standby and re-reads
        // what it shows: the book is at revision 1 there.
        if editorStaysOpen {
            let told = try pane.waitFor(text: "Revision 2 was lost", timeout: .seconds(60))
            #expect(
                Self.editorPane(told).contains(
                    "Revision 2 was lost (a failover?): the catalog is back at revision 1. Your text is kept here"),
                "which revision, and that the text is kept\n\(told)")
            #expect(told.contains("Edit book #\(id) · revision 1"), "which book, rebased\n\(told)")
            #expect(told.contains("Title     Quixotic Zebra Handbook Lost"), "the text is kept\n\(told)")
        } else {
            let told = try pane.waitFor(text: "was lost", timeout: .seconds(60))
            #expect(
                told.contains(
                    "Your save of “Quixotic Zebra Handbook Lost” (revision 2) was lost. Open the book: your text is kept."
                ), "which book and which revision, whole on the status line\n\(told)")
            #expect(
                told.contains("!Quixotic Zebra Handbook "),
                "the list shows the book as the catalog has it, marked until the lost saves are seen\n\(told)")
            #expect(!told.contains(" Quixotic Zebra Handbook Lost "), "\(told)")
            try pane.send("Enter")
            // The editor's header comes first; its fields once the book is read again ("Opening…").
            try pane.waitFor("the editor on revision 1 with the lost text back") {
                $0.contains("Edit book #\(id) · revision 1") && $0.contains("Title     Quixotic Zebra Handbook Lost")
            }
        }

        try pane.send("Enter")
        try pane.waitFor(text: "Saved as revision 2.")
        let stored = try sandbox.run(
            ["search", "quixotic", "--db", standby.conninfo(user: "alice")], environment: sandbox.withoutLibpqSettings)
        #expect(stored.outputLines == ["\(id)\tQuixotic Zebra Handbook Lost\tAda Tester\t2"], "\(stored.output)")
    }
}

extension PostgresScratchServer {
    /// Waits until no standby streams from this primary (one was cut off).
    func waitUntilNoStandbyStreams(timeout: Duration = .seconds(20)) throws {
        let probe =
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_stat_replication) THEN RAISE 'still streaming'; END IF; END $$"
        try Await.until("no standby streaming", timeout: timeout, every: .milliseconds(50)) {
            (try? superuserSQL(probe)) != nil
        }
    }
}
