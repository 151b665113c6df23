import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Issue 43, item 6, on a real server: alice edits the author while erin retitles the book
/// and saves first. Alice's Enter merges erin's title in, and the status line says so, naming
/// erin, rather than reporting a plain save while her title field quietly changes.
@Suite(.serialized, .tags(.postgres, .tmux)) struct PostgresMergeTmuxTests {
    @Test(.enabled(if: TmuxPane.shouldRun && PostgresScratchServer.shouldRun), arguments: [false, true])
    func anAutomaticMergeSaysWhatWasMergedAndWhose(aliceHearsOfItFirst: Bool) throws {
        // Private: `bookshelf setup` makes fixed role names (alice, erin…), which belong to the whole server.
        let server = try PostgresScratchServer()
        let sandbox = try BookshelfProcess()
        defer { server.stop(); sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let setup = try sandbox.run(["setup", "--db", server.conninfo()], environment: sandbox.withoutLibpqSettings)
        try #require(setup.status == 0, "\(setup.errors)")
        let erin = try sandbox.run(
            ["setup", "--db", server.conninfo(), "--account", "erin", "--role", "editor", "--scope", "main"],
            environment: sandbox.withoutLibpqSettings)
        try #require(erin.status == 0, "\(erin.errors)")
        let file = try sandbox.write("zebra.csv", "title,author\nQuixotic Zebra Handbook,Ada Tester\n")
        let imported = try sandbox.run(
            ["import", file, "--db", server.conninfo()], environment: sandbox.withoutLibpqSettings)
        try #require(imported.status == 0, "\(imported.errors)")
        let found = try sandbox.run(
            ["search", "quixotic", "--db", server.conninfo(user: "erin")],
            environment: sandbox.withoutLibpqSettings)
        let id = try #require(found.output.split(separator: "\t").first.flatMap { Int($0) }, "\(found.output)")

        let command =
            "env HOME=\(shellQuoted(sandbox.path("home"))) PGPASSWORD= PGPASSFILE=\(shellQuoted(sandbox.path("no-pgpass"))) "
            + "\(shellQuoted(binary.path)) --db \(shellQuoted(server.conninfo(user: "alice"))); echo EXITED $?; exec sleep 600"
        let alice = try TmuxPane(command, columns: 100, rows: 30)
        defer { alice.kill() }
        try alice.waitFor(text: "alice (editor) · ")
        try alice.type("quixotic")
        try alice.waitFor(text: "1–1 of 1")
        try alice.send("Enter")
        try alice.waitFor(text: "Edit book #\(id) · revision 1")
        try alice.send("Tab", "C-u")
        try alice.type("Bea Tester")
        try alice.waitFor(text: "Author    Bea Tester")

        let retitled = try sandbox.run(
            [
                "edit", String(id), "--title", "Quixotic Zebra Field Guide",
                "--db", server.conninfo(user: "erin"),
            ], environment: sandbox.withoutLibpqSettings)
        try #require(retitled.status == 0, "\(retitled.errors)")
        if aliceHearsOfItFirst {
            // The freshness check (every second) re-reads the book she edits.
            try alice.waitFor(text: "Someone else saved revision 2 since", timeout: .seconds(10))
        }
        try alice.send("Enter")
        let merged = try alice.waitFor(text: "Saved as revision 3.")
        #expect(merged.contains("Merged with revision 2 by erin: they changed the title."), "\(merged)")
        #expect(
            merged.contains("Title     Quixotic Zebra Field Guide") && merged.contains("Author    Bea Tester"),
            "\(merged)")
    }
}
