@testable import bookshelf_demo
import BookshelfTestSupport
import Foundation
import TerminalUI
import TestTags
import Testing

/// The interactive demo's request panel, whose point is what became of each request: at 80×24
/// and wider every call it lists shows its number, its action and its fate whole, and the
/// title and legend are wrapped rather than cut.
@MainActor
@Suite struct DemoCallPanelTests {
    static let sizes = [(80, 24), (100, 30), (120, 40), (200, 50)]

    /// Each scene on its default schedule, on virtual time: the calls and fates `--script` gives.
    @Test(arguments: SceneKind.allCases)
    func everyListedCallShowsItsNumberActionAndFate(scene: SceneKind) async throws {
        var options = DemoOptions()
        options.scene = scene
        let run = ScriptRun(options: options, schedule: try options.schedule())
        _ = await run.run()
        let panes = [run.callLines(pane: 0), run.callLines(pane: 1)]
        #expect(panes.allSatisfy { !$0.isEmpty }, "each pane made calls")

        for (width, height) in Self.sizes {
            let layout = DemoScreenLayout(width: width, height: height)
            var canvas = Canvas(width: width, height: height)
            CallPanel.draw(naive: panes[0], real: panes[1], layout: layout, into: &canvas)
            let lines = canvas.textLines()
            let size = "\(width)×\(height)"

            let prose = layout.titleLines.count + layout.legendLines.count
            let drawnProse = lines[layout.panel.y..<(layout.panel.y + prose)].joined(separator: " ")
            for word in (CallPanel.title + " " + FateLegend.compact.joined(separator: " ")).split(separator: " ") {
                #expect(drawnProse.contains(word), "\(size): the title and legend are whole: \(word)")
            }
            #expect(!drawnProse.contains("…"), "\(size): nothing of the title and legend is cut")
            #expect(layout.callRows >= DemoScreenLayout.fewestCallRows, "\(size): the panel lists a few calls at least")
            #expect(layout.panel.y + prose + layout.callRows == height, "\(size): the panel reaches the bottom")

            for (calls, column) in zip(panes, [layout.left, layout.right]) {
                let shown = calls.suffix(layout.callRows)
                for (offset, call) in shown.enumerated() {
                    let line = lines[layout.panel.y + prose + offset]
                    let cell = String(line.dropFirst(column.x).prefix(column.width))
                        .trimmingCharacters(in: .whitespaces)
                    #expect(
                        cell.hasPrefix("#\(call.number) ") && cell.contains(" \(call.action) ")
                            && cell.hasSuffix(" \(call.fate)"),
                        "\(scene) at \(size): \(cell) is #\(call.number) \(call.action) … \(call.fate)")
                }
            }
        }
    }

    /// What gives way first: the cause, then the query (cut, never the fate).
    @Test func theQueryAndTheAccountGiveWayBeforeTheFate() {
        let call = CallLine(
            number: 13, cause: "step 13", action: "search", query: "history of r", account: "alice",
            latencyMilliseconds: 600, fate: "dropped-old-session")
        #expect(
            CallPanel.text(call, width: 80)
                == "#13 (step 13) search \"history of r\" (alice) 600 ms dropped-old-session")
        #expect(CallPanel.text(call, width: 62) == "#13 search \"history of r\" (alice) 600 ms dropped-old-session")
        #expect(CallPanel.text(call, width: 56) == "#13 search \"history…\" (alice) 600 ms dropped-old-session")
        #expect(CallPanel.text(call, width: 42) == "#13 search \"…\" 600 ms dropped-old-session")
        #expect(CallPanel.text(call, width: 40) == "#13 search \"…\" 600ms dropped-old-session")
        #expect(CallPanel.text(call, width: 36) == "#13 search 600ms dropped-old-session")
        #expect(CallPanel.text(call, width: 30) == "#13 search dropped-old-session")
    }
}

/// The demo itself in a terminal, at the two sizes the panel is made for: once the scene is
/// over, every call row of both lists ends with a fate of the legend.
@Suite(.tags(.tmux, .process), .serialized) struct DemoTerminalTests {
    @Test(.enabled(if: TmuxPane.shouldRun), arguments: [(80, 24), (120, 40)])
    func everyCallRowEndsWithItsFate(size: (columns: Int, rows: Int)) throws {
        let fate =
            #/#\d+ (\(step \d+\) |\(after #\d+\) )?(search|connect|load #\d+|save #\d+)\b.* (applied(, retried)?|published|dropped-stale|dropped-old-session|cancelled|answered|in flight|never answered|failed\([a-zA-Z]+\))(, WRONG)?$/#
        let binary = try DemoRun.binary()
        // Short, mixed latencies: searches overtake each other, and the scene is over in a second.
        let pane = try TmuxPane(
            "\(shellQuoted(binary.path)) typing --latency 150,20,90,10 --typing-ms 30; exec sleep 600",
            columns: size.columns, rows: size.rows)
        defer { pane.kill() }
        // A second or two on an idle machine; a loaded one runs the wall-clock scene slower.
        let screen = try pane.waitFor(text: "(scene over)", timeout: .seconds(90))
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let left = (size.columns - 1) / 2
        var rows = 0
        for line in lines where line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
            for half in [String(line.prefix(left)), String(line.dropFirst(left + 1))] {
                let cell = half.trimmingCharacters(in: .whitespaces)
                guard !cell.isEmpty else { continue }
                rows += 1
                #expect(cell.wholeMatch(of: fate) != nil, "\(size): \(cell)\n\(screen)")
            }
        }
        #expect(rows >= 12, "both lists show calls: \(screen)")
    }
}
