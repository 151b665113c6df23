import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// A 10000×10000 window (the most tmux allows) made the app grow to 15.8 GB, kept after the
/// window went back to 120×40: every cell cost a canvas cell, a cell of the frame kept for the
/// diff, and ncurses' own grids. The app draws at most 1000 columns by 500 rows
/// (docs/terminals.md), the top left of the window, and gives the memory back when it shrinks.
@Suite(.tags(.tmux, .process), .serialized) struct EnormousWindowTmuxTests {
    @Test(.enabled(if: TmuxPane.shouldRun)) func anEnormousWindowIsDrawnInBoundedMemory() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let binary = try #require(BookshelfProcess.binary, "the bookshelf executable was not found")
        // exec: the pane's process is the app, whose memory /proc tells.
        let pane = try TmuxPane(
            "exec env HOME=\(shellQuoted(sandbox.path("home"))) \(shellQuoted(binary.path)) --db \(shellQuoted(db))",
            columns: 120, rows: 40)
        defer { pane.kill() }
        // The rule (the third row) ends at the last column drawn: "… 1–36 of 3,010 ─".
        func ruleIs(_ columns: Int) -> (String) -> Bool {
            { screen in
                let rule = screen.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).first ?? ""
                return rule.count == columns && rule.hasSuffix("of 3,010 ─")
            }
        }
        try pane.waitFor("the first results at 120 columns", rows: 0...2, ruleIs(120))
        let app = try #require(Int32(try pane.format("#{pane_pid}")))
        let before = try #require(Self.memory(of: app))

        try pane.resize(columns: 10_000, rows: 10_000)
        try pane.waitFor("the top left 1000 columns drawn", rows: 0...2, ruleIs(1000))
        let large = try #require(Self.memory(of: app))
        #expect(large.peakKB < 512 * 1024, "peak \(large.peakKB) kB at 10000×10000 (it was 15.8 GB)")

        try pane.resize(columns: 120, rows: 40)
        try pane.waitFor("the screen at 120 columns again", rows: 0...2, ruleIs(120))
        let after = try #require(Self.memory(of: app))
        #expect(
            after.residentKB < before.residentKB + 64 * 1024,
            "resident \(before.residentKB) kB before, \(large.residentKB) kB at 10000×10000, \(after.residentKB) kB after"
        )
    }

    /// VmRSS and VmHWM of process `pid`, in kB.
    static func memory(of pid: Int32) -> (residentKB: Int, peakKB: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") }
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return (resident, peak)
    }
}
