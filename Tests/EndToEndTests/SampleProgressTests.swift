import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `bookshelf sample --count N` shows its progress on standard error: plain lines for a log
/// (one per tenth of the work, counts rising to N), a bar redrawn in place on a terminal, and
/// refuses a count it cannot add before it writes anything.
@Suite(.tags(.postgres, .tmux)) struct SampleProgressTests {
    static let label = "Adding sample books"

    /// The progress lines of standard error that start with `label`, as (count done, percent).
    static func progressLines(_ errors: String, label: String = label) -> [(done: Int, percent: Int)] {
        errors.split(separator: "\n").filter { $0.hasPrefix(label + ":") }.compactMap { line in
            // "Adding sample books: 13,000 of 25,000 (52%), 41,000/s, 0 s"
            let facts = line.dropFirst(label.count + 2)
            let parts = facts.split(separator: " ")
            guard parts.count >= 4, let done = Int(parts[0].replacingOccurrences(of: ",", with: "")),
                let percent = Int(parts[3].trimmingCharacters(in: CharacterSet(charactersIn: "(%),")))
            else { return nil }
            return (done, percent)
        }
    }

    /// Plain lines: one each time another tenth is done (`lines` of them: fewer when the count
    /// comes in steps larger than a tenth), rising, the last at N and 100%.
    static func expectPlainProgress(_ errors: String, count: Int, label: String = label, lines expected: Int = 10) {
        let lines = progressLines(errors, label: label)
        #expect(lines.count == expected, "one line per tenth: \(errors)")
        for (position, line) in lines.enumerated() {
            if expected == 10 {
                #expect(line.percent >= (position + 1) * 10, "line \(position + 1) is past its tenth: \(errors)")
            }
            if position > 0 {
                #expect(line.percent / 10 > lines[position - 1].percent / 10, "one line per tenth: \(errors)")
            }
            if position > 0 { #expect(line.done > lines[position - 1].done, "counts rise: \(errors)") }
        }
        #expect(lines.last?.done == count && lines.last?.percent == 100, "ends at N: \(errors)")
        #expect(!errors.contains("\r"), "nothing is redrawn in a log: \(errors.debugDescription)")
    }

    @Test func sampleIntoSQLiteWritesPlainProgressLinesWhenNotOnATerminal() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["sample", "--count", "25000", "--scope", "extra", "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 25,000 sample books (seed 1) to scope extra.\n")
        Self.expectPlainProgress(result.errors, count: 25_000)
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: "extra") == 25_000)
    }

    @Test(.enabled(if: PostgresScratchServer.shouldRun))
    func sampleIntoPostgresStreamsWithPlainProgressLines() throws {
        // Private: `bookshelf setup` makes fixed role names (alice, bob…), which belong to the whole server.
        let server = try PostgresScratchServer()
        defer { server.stop() }
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let clean = sandbox.withoutLibpqSettings
        try sandbox.setUp(server)
        // Every book of scope main, one JSON line each (a search's total stops being exact at 10,000).
        func booksInMain() throws -> Int {
            let export = try sandbox.run(
                ["export", "--format", "jsonl", "--db", server.conninfo(user: "alice")], environment: clean)
            #expect(export.status == 0, "\(export.errors)")
            return export.outputLines.count
        }
        let starter = try booksInMain()
        #expect(starter > 0)

        let result = try sandbox.run(["sample", "--count", "25000", "--db", server.conninfo()], environment: clean)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 25,000 sample books (seed 1) to scope main.\n")
        Self.expectPlainProgress(result.errors, count: 25_000)
        #expect(try booksInMain() == starter + 25_000)
    }

    @Test(.enabled(if: TmuxPane.shouldRun)) func onATerminalTheBarIsOneLineRedrawnInPlaceEndingAtAHundredPercent()
        throws
    {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        let db = sandbox.path("catalog.sqlite")
        let pane = try TmuxPane(
            "env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) "
                + "sample --count 200000 --db \(shellQuoted(db)); echo EXITED $?; exec sleep 600", columns: 100,
            rows: 24)
        defer { pane.kill() }
        let screen = try pane.waitFor(text: "EXITED", timeout: .seconds(300))
        #expect(screen.contains("EXITED 0"), "\(screen)")
        let bars = screen.split(separator: "\n").filter { $0.hasPrefix(Self.label) }
        #expect(bars.count == 1, "one line, redrawn: \(screen)")
        let bar = String(bars.first ?? "")
        #expect(bar.contains("200,000 of 200,000") && bar.contains("100%"), "ends at 100%: \(screen)")
        #expect(bar.contains("[" + String(repeating: "#", count: 10)), "a full bar: \(screen)")
        #expect(screen.contains("Added 200,000 sample books (seed 1) to scope main."), "\(screen)")
    }

    @Test func aCountOutOfRangeOrNotANumberIsRefusedBeforeAnythingIsWritten() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        for count in ["0", "-5", "10000001", "99999999999999999999999", "ten", "1e6", "1,000", ""] {
            let result = try sandbox.run(["sample", "--count", count, "--db", db])
            #expect(result.status == 2, "\(count): \(result.errors)")
            #expect(result.errorLines.count == 1, "\(count): \(result.errors)")
            #expect(
                result.errors.contains("--count needs a whole number from 1 to 10000000"), "\(count): \(result.errors)")
            #expect(result.output.isEmpty, "\(count)")
            #expect(!FileManager.default.fileExists(atPath: db), "\(count): nothing written")
        }
    }
}
