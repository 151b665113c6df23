import BookCatalog
import BookshelfModel
import TerminalUI

/// The request panel (F4): the recent requests to the catalog (the log keeps 200), newest first,
/// scrolled like the help, each with its number, kind, store time and fate; for a shown search,
/// what answered it (`SearchAnswerSource`: the index, the books while the index is built, the
/// database's search function…); and, when the store serves reads from several servers, which
/// server answered and whether a read meant for a standby fell back to the primary. Each of the
/// last two columns is left out while no request names one (the server: SQLite, a single
/// PostgreSQL host).
enum RequestPanel {
    static let title = "Requests, newest first"

    static func render(_ requests: [RequestTrace], scroll: Int, into canvas: inout Canvas) {
        box(requests, canvas: canvas, scroll: scroll).draw(into: &canvas)
    }

    /// The furthest the panel scrolls on a screen of this size: its last line at the bottom.
    static func maximumScroll(_ requests: [RequestTrace], columns: Int, rows: Int) -> Int {
        box(requests, canvas: Canvas(width: columns, height: rows), scroll: .max).scroll
    }

    private static func box(_ requests: [RequestTrace], canvas: Canvas, scroll: Int) -> Box {
        // As wide as the screen allows, up to a readable measure; the lines are made to fit it,
        // so the box never wraps one (which would break the columns).
        let innerWidth = max(1, min(canvas.width - 2, 100) - 4)
        return Box(
            title: title, lines: lines(requests, width: innerWidth), canvas: canvas, preferredWidth: 72, scroll: scroll)
    }

    /// The panel's lines for `requests` (oldest first, as the log keeps them), each at most
    /// `width` columns. A row whose server does not fit beside it gets it on a line of its own,
    /// indented, rather than cut at the box's edge.
    static func lines(_ requests: [RequestTrace], width: Int) -> [String] {
        guard !requests.isEmpty else { return ["No requests yet."] }
        let newestFirst = requests.reversed()
        let numbers = newestFirst.map { "#\($0.request)" }
        let kinds = newestFirst.map(\.kind.rawValue)
        let times = newestFirst.map { milliseconds($0.storeTime) }
        let fates = newestFirst.map(\.fate.description)
        let sources = newestFirst.map { $0.source?.description ?? "" }
        let servers = newestFirst.map { $0.answeredBy.map(serverText) ?? "" }
        let hasSources = sources.contains { !$0.isEmpty }
        let columns =
            [padded(numbers), padded(kinds), padded(times, alignRight: true), padded(fates)]
            + (hasSources ? [padded(sources)] : [])
        let hasServers = servers.contains { !$0.isEmpty }
        var lines: [String] = []
        for index in numbers.indices {
            let row = columns.map { $0[index] }.joined(separator: "  ")
            let server = servers[index]
            if server.isEmpty {
                lines.append(trimmed(row))
            } else if TextLayout.width(row) + 2 + TextLayout.width(server) <= width {
                lines.append(row + "  " + server)
            } else {
                lines.append(trimmed(row))
                lines.append("  " + server)
            }
        }
        let heading =
            ["request", "kind", "store time", "fate"] + (hasSources ? ["source"] : []) + (hasServers ? ["server"] : [])
        return [heading.joined(separator: ", ")] + lines
    }

    /// "standby db2:5433", "primary db1:5432, fell back"; the server's name is from a
    /// connection string, so it is made safe and measured as it will be drawn.
    static func serverText(_ route: ReadRoute) -> String {
        let server = sanitize(route.server)
        if route.servedByStandby { return "standby \(server)" }
        return route.fellBack ? "primary \(server), fell back" : "primary \(server)"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = max(0, seconds * 10_000 + attoseconds / 100_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    private static func padded(_ values: [String], alignRight: Bool = false) -> [String] {
        let widest = values.map(TextLayout.width).max() ?? 0
        return values.map {
            let padding = String(repeating: " ", count: widest - TextLayout.width($0))
            return alignRight ? padding + $0 : $0 + padding
        }
    }

    private static func trimmed(_ line: String) -> String {
        var line = line
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}
