import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TerminalSafeText
import TestTags
import Testing

/// The app open on the starter catalog while another program imports books into it: the header
/// and the rule of the list of every book say how many there are now. Past 10,000 matches the
/// store stops counting and the rule says the header's count, which was made once per session:
/// after an import of 20,000 both kept saying 3,010 while paging showed the new books.
@Suite(.tags(.tmux, .process), .serialized) struct CatalogGrowthTmuxTests {
    @Test(.enabled(if: TmuxPane.shouldRun)) func anImportBesideTheAppIsCounted() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: "main")
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let pane = try TmuxPane(
            "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) --db \(shellQuoted(db)); "
                + "exec sleep 600", columns: 100, rows: 30)
        defer { pane.kill() }
        let shown = NumberText.grouped(before)
        try pane.waitFor(text: "alice (editor) · \(shown) books")
        try pane.waitFor(text: "of \(shown)")

        let imported = 20_000
        let rows = (1...imported).map { "Imported Volume \($0),Editor \($0 % 7)" }
        let file = try sandbox.write("many.csv", "title,author\n" + rows.joined(separator: "\n") + "\n")
        let result = try sandbox.run(["import", file, "--db", db, "--scope", "main"])
        #expect(result.status == 0, "\(result.errors)")

        let now = NumberText.grouped(before + imported)
        let screen = try pane.waitFor("the header and the rule to count \(now) books") {
            $0.contains("alice (editor) · \(now) books") && $0.contains("of \(now)")
        }
        #expect(!screen.contains(" \(shown) books") && !screen.contains("of \(shown)"), "\(screen)")
    }
}
