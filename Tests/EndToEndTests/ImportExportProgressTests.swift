import BookshelfTestSupport
import TerminalSafeText
import TestTags
@testable import bookshelf
import Foundation
import Testing

/// `bookshelf import` and `export` show progress on standard error as `sample` does: plain lines
/// for a log (one per tenth), a bar redrawn in place on a terminal. Standard output keeps what it
/// had: the "Added N books" line of an import, and an export's data, byte for byte.
@Suite(.tags(.postgres, .tmux)) struct ImportExportProgressTests {
    static let count = 30_000

    /// Zero-padded, so title order is number order and the export's bytes are known in advance.
    static func title(_ number: Int) -> String { "Progress Book " + String(format: "%05d", number) }
    static func author(_ number: Int) -> String { "Writer \(number % 97)" }

    /// The file to import: a header and one unquoted line per book.
    static let importFile = "title,author\n" + (1...count).map { "\(title($0)),\(author($0))\n" }.joined()
    /// What `export` must write for those books: the header, then every field quoted, in title order.
    /// Every column, the details empty (quoted, as export writes every field).
    static let exportedCSV =
        "title,author,isbn,year,publisher,series,series_index,tags,notes\n"
        + (1...count).map { "\"\(title($0))\",\"\(author($0))\"" + String(repeating: ",\"\"", count: 7) + "\n" }
        .joined()

    /// A new catalog holding only the imported books (an import creates one without sample books).
    static func importedCatalog(_ sandbox: BookshelfProcess) throws -> (
        db: String, file: String, result: BookshelfProcess.Outcome
    ) {
        let file = try sandbox.write("books.csv", importFile)
        let db = sandbox.path("catalog.sqlite")
        return (db, file, try sandbox.run(["import", file, "--db", db]))
    }

    @Test func importIntoALogWritesPlainProgressLinesAndTheAddedLineStaysOnStandardOutput() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let (_, _, result) = try Self.importedCatalog(sandbox)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 30,000 books to scope main.\n")
        // Counted in bytes of the file, read a chunk (a megabyte) at a time while the books are
        // added: a file this size is one chunk, so it gets its closing line only.
        SampleProgressTests.expectPlainProgress(
            result.errors, count: Self.importFile.utf8.count, label: "Reading books.csv (bytes)", lines: 1)
        let notes = result.errorLines.filter { !$0.hasPrefix("Reading books.csv (bytes): ") }
        // Two fields of each book: a title and an author.
        #expect(
            notes.count == 2 && notes[0].hasPrefix("bookshelf: created a new catalog at ")
                && notes[1] == "bookshelf import: Read 30,000 books (60,000 fields mapped).",
            "besides progress, only what was read and the note that the catalog was created: \(result.errors)")
    }

    @Test func exportWithProgressToALogWritesTheSameBytesAndPlainProgressLines() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let (db, _, imported) = try Self.importedCatalog(sandbox)
        #expect(imported.status == 0, "\(imported.errors)")

        let export = try sandbox.run(["export", "--db", db])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.output == Self.exportedCSV, "the data alone, byte for byte, on standard output")
        // Pages of 5,000 books: each page is a sixth, so each passes a new tenth.
        SampleProgressTests.expectPlainProgress(
            export.errors, count: Self.count, label: "Exporting books",
            lines: Self.count / 5_000)
        #expect(export.errorLines.allSatisfy { $0.hasPrefix("Exporting books: ") }, "\(export.errors)")

        // A query whose matches the store counts exactly gets a bar of its own total.
        let some = try sandbox.run(["export", "--query", "book 00001", "--db", db])
        #expect(some.status == 0, "\(some.errors)")
        #expect(some.outputLines.count == 1 + 1, "the header and Progress Book 00001: \(some.output)")
        SampleProgressTests.expectPlainProgress(some.errors, count: 1, label: "Exporting books", lines: 1)
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func onATerminalImportAndExportDrawBarsAndTheExportFileGetsOnlyData() throws
    {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let file = try sandbox.write("books.csv", Self.importFile)
        let db = sandbox.path("catalog.sqlite")
        let exported = sandbox.path("exported.csv")
        let bookshelf = "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path))"
        let pane = try TmuxPane(
            "\(bookshelf) import \(shellQuoted(file)) --db \(shellQuoted(db)) && "
                + "\(bookshelf) export --db \(shellQuoted(db)) > \(shellQuoted(exported)); echo EXITED $?; exec sleep 600",
            columns: 100, rows: 24)
        defer { pane.kill() }
        let screen = try pane.waitFor(text: "EXITED", timeout: .seconds(300))
        #expect(screen.contains("EXITED 0"), "\(screen)")
        let lines = screen.split(separator: "\n").map(String.init)
        for (label, total) in [
            ("Reading books.csv (bytes)", NumberText.grouped(Self.importFile.utf8.count)),
            ("Exporting books", "30,000"),
        ] {
            let bars = lines.filter { $0.hasPrefix(label) }
            #expect(bars.count == 1, "\(label): one line, redrawn: \(screen)")
            let bar = bars.first ?? ""
            #expect(bar.contains("\(total) of \(total)") && bar.contains("100%"), "\(label) ends at 100%: \(screen)")
            #expect(bar.contains("[" + String(repeating: "#", count: 10)), "\(label): a full bar: \(screen)")
        }
        #expect(lines.contains("Added 30,000 books to scope main."), "\(screen)")
        #expect(
            try String(contentsOfFile: exported, encoding: .utf8) == Self.exportedCSV, "the bar never reaches the data")
    }

    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func importIntoPostgresWritesPlainProgressLines() throws {
        // Private: `bookshelf setup` makes fixed role names (alice, bob…), which belong to the whole server.
        let server = try PostgresScratchServer()
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        try sandbox.setUp(server)
        let file = try sandbox.write("books.csv", Self.importFile)
        let result = try sandbox.run(
            ["import", file, "--scope", "imported", "--db", server.conninfo()], environment: clean)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 30,000 books to scope imported.\n")
        SampleProgressTests.expectPlainProgress(
            result.errors, count: Self.importFile.utf8.count, label: "Reading books.csv (bytes)", lines: 1)
    }
}
