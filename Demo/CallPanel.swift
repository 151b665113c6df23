import CatalogSimulation
import TerminalUI

/// One store call in the interactive request panel: what it asked and what became of it.
struct CallLine: Equatable {
    let number: Int
    /// What sent it ("step 3", "after #4"), when known.
    let cause: String?
    /// What it asked: "search", "load #2", "save #2", "connect".
    let action: String
    /// A search's own query.
    let query: String?
    /// The account it was made for.
    let account: String?
    let latencyMilliseconds: Int
    /// What became of it, in the legend's words ("published", "applied, WRONG", "in flight").
    let fate: String
}

extension CallLine {
    init(_ call: ScriptedCall, cause: String?, fate: String) {
        self.init(
            number: call.number, cause: cause, action: call.kind.description,
            query: call.kind == .search ? call.query ?? "" : nil, account: call.label.isEmpty ? nil : call.label,
            latencyMilliseconds: call.latencyMilliseconds, fate: fate)
    }
}

/// The bottom of the interactive demo: a title and the legend, wrapped to the screen, and one
/// list of calls per pane. The point of the demo is what became of each request, so every
/// line keeps its number, its action and its fate whole; the other parts give way first, in
/// this order: what sent it, the query (cut, with "…"), the account, the latency, the query.
enum CallPanel {
    static let title =
        "Each pane's requests, numbered in the order they reached its store "
        + "(the same number may be another action on the other side)"

    /// One call in at most `width` columns when its number, action and fate fit there.
    /// `numberWidth` right-aligns the numbers of one list ("#9" under "#12").
    static func text(_ call: CallLine, width: Int, numberWidth: Int = 0) -> String {
        let number = "#\(call.number)"
        let head = String(repeating: " ", count: max(0, numberWidth - number.count)) + number
        func line(cause: Bool, query: String?, account: Bool, latency: String?) -> String {
            [
                head, cause ? call.cause.map { "(\($0))" } : nil, call.action, query.map { "\"\($0)\"" },
                account ? call.account.map { "(\($0))" } : nil, latency, call.fate,
            ].compactMap { $0 }.joined(separator: " ")
        }
        func fits(_ text: String) -> Bool { TextLayout.width(text) <= width }
        let (long, short) = ("\(call.latencyMilliseconds) ms", "\(call.latencyMilliseconds)ms")

        let whole = line(cause: true, query: call.query, account: true, latency: long)
        if fits(whole) { return whole }
        let uncaused = line(cause: false, query: call.query, account: true, latency: long)
        if fits(uncaused) { return uncaused }
        // The query cut to the room left, down to its first character and "…".
        if let query = call.query, !query.isEmpty {
            let room = width - TextLayout.width(line(cause: false, query: "", account: true, latency: long))
            if room >= 2 { return line(cause: false, query: cut(query, to: room), account: true, latency: long) }
        }
        let shortened: [String] = [
            line(cause: false, query: call.query.map { $0.isEmpty ? "" : "…" }, account: false, latency: long),
            line(cause: false, query: call.query.map { $0.isEmpty ? "" : "…" }, account: false, latency: short),
            line(cause: false, query: nil, account: false, latency: short),
        ]
        return shortened.first(where: fits) ?? line(cause: false, query: nil, account: false, latency: nil)
    }

    /// `text` in `room` columns: whole, or its start and "…".
    private static func cut(_ text: String, to room: Int) -> String {
        if TextLayout.width(text) <= room { return text }
        return TextLayout.truncate(text, toWidth: room)
    }

    /// Words of `text` in lines of at most `width` columns (a word longer than that is cut).
    static func wrapped(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let joined = current.isEmpty ? word : current + " " + word
            if TextLayout.width(joined) <= width {
                current = joined
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = TextLayout.width(word) <= width ? word : TextLayout.truncate(word, toWidth: width)
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// `entries` joined by " · " in lines of at most `width` columns, a line breaking only
    /// between entries (an entry wider than a line is wrapped by its words).
    static func wrapped(entries: [String], width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for entry in entries {
            let joined = current.isEmpty ? entry : current + " · " + entry
            if TextLayout.width(joined) <= width {
                current = joined
                continue
            }
            if !current.isEmpty { lines.append(current) }
            let pieces = wrapped(entry, width: width)
            lines += pieces.dropLast()
            current = pieces.last ?? ""
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The panel in `layout.panel`: the title and legend wrapped to its width, then each pane's calls,
    /// newest at the bottom, in the columns of its pane.
    static func draw(
        naive: [CallLine], real: [CallLine], layout: DemoScreenLayout, into canvas: inout Canvas
    ) {
        var y = layout.panel.y
        for line in layout.titleLines {
            canvas.drawTruncated(line, x: 0, y: y, width: layout.panel.width, style: .bold)
            y += 1
        }
        for line in layout.legendLines {
            canvas.drawTruncated(line, x: 0, y: y, width: layout.panel.width, style: .dim)
            y += 1
        }
        for (calls, column) in [(naive, layout.left), (real, layout.right)] {
            let numberWidth = calls.map { "#\($0.number)".count }.max() ?? 0
            for (offset, call) in calls.suffix(layout.callRows).enumerated() {
                canvas.drawTruncated(
                    text(call, width: column.width, numberWidth: numberWidth), x: column.x, y: y + offset,
                    width: column.width)
            }
        }
    }
}

/// Where the interactive demo draws what, for a screen of `width` × `height` (at least 40×12):
/// the two panes side by side at the top, the request panel below them. The panel's title and
/// legend are wrapped, and the panes give up rows so that the panel lists at least a few calls.
struct DemoScreenLayout {
    let width: Int
    let height: Int
    /// The first three rows: the scene, the clock and keys, a note while the conflict is held.
    static let headerRows = 3
    /// The calls the panel shows at least, when the screen has the rows.
    static let fewestCallRows = 6

    let titleLines: [String]
    let legendLines: [String]
    let paneHeight: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        titleLines = CallPanel.wrapped(CallPanel.title, width: width)
        legendLines = CallPanel.wrapped(entries: FateLegend.compact, width: width)
        let below = height - Self.headerRows
        // Three fifths for the panes, unless the panel would then list fewer than a few calls.
        let panelWanted = titleLines.count + legendLines.count + Self.fewestCallRows
        paneHeight = max(6, min(below * 3 / 5, below - panelWanted))
    }

    /// The columns of the left (naive) pane; the right one starts after a divider.
    var left: (x: Int, width: Int) { (0, (width - 1) / 2) }
    var right: (x: Int, width: Int) { (left.width + 1, width - left.width - 1) }

    var panel: Rect {
        let top = Self.headerRows + paneHeight
        return Rect(x: 0, y: top, width: width, height: max(0, height - top))
    }

    /// How many calls each list shows: the rows left under the title and legend.
    var callRows: Int { max(0, panel.height - titleLines.count - legendLines.count) }
}
