import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// The bulk edit as a user does it in a terminal (issue 61): mark every match of a search, one
/// change for all of them with its preview, the batch's outcomes, and its undo, each checked
/// against the catalog as `bookshelf export` writes it.
@Suite(.tags(.tmux, .process)) struct BulkEditTmuxTests {
    @Test(.enabled(if: TmuxPane.shouldRun)) func markEveryMatchAddATagThenUndoIt() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let books = sandbox.path("quokkas.csv")
        // Three books of a word no sample book has; the first already tagged.
        try "title,author,tags\nQuokka Dreams,Ann Author,wild\nThe Quokka Way,Ben Writer,\nQuokka Tales,Cy Scribe,\n"
            .write(toFile: books, atomically: true, encoding: .utf8)
        #expect(try sandbox.run(["import", books, "--db", db]).status == 0)
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let pane = try TmuxPane(
            "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) --db \(shellQuoted(db)); "
                + "exec sleep 600", columns: 110, rows: 30)
        defer { pane.kill() }
        try pane.waitFor(text: "3,013 books")

        try pane.type("quokka")
        try pane.waitFor(text: "1–3 of 3")
        try pane.send("F7")
        try pane.waitFor(text: "3 marked")
        try pane.send("F8")
        try pane.waitFor(text: "Edit the marked books")
        // The changes are a list: author, publisher, year, series, series index, notes, then tags.
        for _ in 0..<6 { try pane.send("Down") }
        try pane.waitFor(text: "Change: Add tags")
        try pane.type("signed")
        let preview = try pane.waitFor(text: "As read now, it changes 3.")
        #expect(preview.contains("“Quokka Dreams” tags: “wild” -> “signed, wild”"), "\(preview)")
        try pane.send("Enter")
        try pane.waitFor(text: "Batch 1: 3 saved")
        #expect(
            try tags(db, sandbox) == [
                "Quokka Dreams": ["signed", "wild"], "The Quokka Way": ["signed"], "Quokka Tales": ["signed"],
            ])

        try pane.send("F9")
        let outcomes = try pane.waitFor(text: "“Quokka Tales”: saved")
        #expect(outcomes.components(separatedBy: ": saved").count - 1 == 3, "\(outcomes)")
        try pane.type("u")
        try pane.waitFor(text: "Batch 2, undo of batch 1: 3 saved")
        #expect(try tags(db, sandbox) == ["Quokka Dreams": ["wild"], "The Quokka Way": [], "Quokka Tales": []])
        try pane.send("Escape")
        try pane.waitFor("the list to close") { !$0.contains("┌─ Bulk edit") }
    }

    /// Each quokka book's tags, as `bookshelf export` writes the catalog.
    private func tags(_ db: String, _ sandbox: BookshelfProcess) throws -> [String: [String]] {
        let exported = try sandbox.run(["export", "--db", db, "--format", "jsonl", "--query", "quokka"])
        try #require(exported.status == 0, "\(exported.errors)")
        var found: [String: [String]] = [:]
        for line in exported.output.split(separator: "\n") {
            let book = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            found[try #require(book["title"] as? String)] = (book["tags"] as? [String]) ?? []
        }
        return found
    }
}
