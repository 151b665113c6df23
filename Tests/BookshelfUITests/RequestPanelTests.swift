import BookCatalog
import BookshelfModel
import Testing
@testable import BookshelfUI
@testable import TerminalUI

/// The request panel (F4) lists the recent requests and, when the store serves reads from
/// several servers, which one answered each shown read and whether it fell back.
@MainActor
@Suite struct RequestPanelTests {
    static func trace(
        _ request: Int, _ kind: RequestKind, _ fate: RequestFate = .published, answeredBy: ReadRoute? = nil,
        source: SearchAnswerSource? = nil
    ) -> RequestTrace {
        RequestTrace(
            request: request, session: 1, kind: kind, started: .milliseconds(request), storeTime: .microseconds(2_500),
            fate: fate, answeredBy: answeredBy, source: source)
    }

    static let standby = ReadRoute(server: "db2:5433", servedByStandby: true, fellBack: false)
    static let fellBack = ReadRoute(server: "db1:5432", servedByStandby: false, fellBack: true)

    /// Oldest first, as the log keeps them: a search served by the standby, a load the
    /// standby could not serve in time, and a search overtaken before it answered.
    static let requests = [
        trace(11, .search, answeredBy: standby),
        trace(12, .load, answeredBy: fellBack),
        trace(13, .search, .droppedStale),
    ]

    static func screen(columns: Int, rows: Int, requests: [RequestTrace]) async -> [String] {
        let harness = AppHarness(columns: columns, rows: rows)
        await harness.start()
        var ui = UIState()
        ui.overlay = .requests(scroll: 0)
        var canvas = Canvas(width: columns, height: rows)
        Screen.render(
            harness.model.state, ui: ui, store: StoreInfo(kind: "PostgreSQL", location: "books"), requests: requests,
            into: &canvas)
        return canvas.textLines()
    }

    @Test func eachShownReadNamesItsServerAndAFallBackSaysSo() async {
        let lines = await Self.screen(columns: 80, rows: 12, requests: Self.requests)
        let text = lines.joined(separator: "\n")
        let search = lines.first { $0.contains("#11") } ?? ""
        let load = lines.first { $0.contains("#12") } ?? ""
        let stale = lines.first { $0.contains("#13") } ?? ""
        #expect(
            search.contains("search") && search.contains("published") && search.contains("standby db2:5433"), "\(text)")
        #expect(load.contains("load") && load.contains("primary db1:5432, fell back"), "\(text)")
        #expect(stale.contains("dropped-stale") && !stale.contains("db"), "\(text)")
        let rows = [stale, load, search].map { line in lines.firstIndex(of: line) ?? -1 }
        #expect(rows == rows.sorted() && !rows.contains(-1), "newest first\n\(text)")
    }

    /// On a narrow screen a server that does not fit beside its row gets a line of its own,
    /// whole, instead of being cut off at the box's edge.
    @Test func onANarrowScreenTheServerGetsALineOfItsOwn() async {
        let lines = await Self.screen(columns: 40, rows: 14, requests: Self.requests)
        let text = lines.joined(separator: "\n")
        let search = lines.firstIndex { $0.contains("#11") } ?? -1
        let load = lines.firstIndex { $0.contains("#12") } ?? -1
        #expect(search > 0 && lines[search + 1].contains("│   standby db2:5433"), "\(text)")
        #expect(load > 0 && lines[load + 1].contains("│   primary db1:5432, fell back"), "\(text)")
        #expect(lines.allSatisfy { TextLayout.width($0) <= 40 })
    }

    /// The server's name comes from a connection string: what a terminal would act on is drawn
    /// as a visible stand-in, and measured as drawn.
    @Test func aServerNameIsDrawnSafely() async {
        let odd = ReadRoute(server: "db\u{1B}[31m2\u{202E}:5433", servedByStandby: true, fellBack: false)
        let lines = await Self.screen(columns: 80, rows: 12, requests: [Self.trace(5, .search, answeredBy: odd)])
        #expect(lines.contains { $0.contains("standby db␛[31m2\u{FFFD}:5433") }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.joined().unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    }

    /// Each shown search names what answered it, in a column of its own before the server; a
    /// request with no source (a load, an overtaken search) leaves it empty.
    @Test func eachShownSearchNamesItsSource() async {
        let requests = [
            Self.trace(21, .search, answeredBy: Self.standby, source: .searchFunction),
            Self.trace(22, .load, answeredBy: Self.fellBack),
            Self.trace(23, .search, .droppedStale),
            Self.trace(24, .count, source: .staleIndex),
        ]
        let lines = await Self.screen(columns: 100, rows: 12, requests: requests)
        let text = lines.joined(separator: "\n")
        let row = { (number: Int) in lines.first { $0.contains("#\(number) ") } ?? "" }
        #expect(text.contains("request, kind, store time, fate, source, server"), "\(text)")
        #expect(row(21).contains("published") && row(21).contains("search-function  standby db2:5433"), "\(text)")
        #expect(row(24).contains("stale-index"), "\(text)")
        for number in [22, 23] {
            #expect(!SearchAnswerSource.allCases.contains { row(number).contains($0.description) }, "\(text)")
        }
        // The source column lines up: it begins at the same place on every row that has one.
        let starts = [(21, "search-function"), (24, "stale-index")].map { number, name in
            row(number).range(of: name).map { row(number).distance(from: row(number).startIndex, to: $0.lowerBound) }
        }
        #expect(starts[0] != nil && starts[0] == starts[1], "\(text)")
    }

    /// The app's own searches over the in-memory store say so: F4 names the memory store as
    /// what answered the first results.
    @Test func theAppsSearchesNameTheirSourceInThePanel() async {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.press(.function(4))
        let text = harness.lines.joined(separator: "\n")
        #expect(text.contains("request, kind, store time, fate, source"), "\(text)")
        #expect(
            harness.lines.contains { $0.contains("search") && $0.contains("published") && $0.contains("memory") },
            "\(text)")
    }

    /// A store with one server names none: the panel has no server column, and F4 opens and
    /// closes it over the app's own requests.
    @Test func withOneServerThePanelHasNoServerColumn() async {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.press(.function(4))
        let text = harness.lines.joined(separator: "\n")
        #expect(text.contains(RequestPanel.title), "\(text)")
        #expect(harness.lines.contains { $0.contains("search") && $0.contains("published") }, "\(text)")
        #expect(!text.contains("server"), "\(text)")
        await harness.press(.character("x"))
        #expect(!harness.lines.joined().contains(RequestPanel.title))
        #expect(harness.model.state.search.query.isEmpty, "the key that closed the panel did nothing else")
    }

    /// More requests than rows: the panel opens on the newest, says there is more below, and
    /// scrolls down to the oldest request the log keeps.
    @Test func thePanelScrollsToTheOldestRequest() async {
        let harness = AppHarness(columns: 60, rows: 12)
        await harness.start()
        await harness.type("abcdefghijklmnopqrstuvwxyzabcd")
        let entries = harness.model.log.entries
        let newest = "#\(entries[entries.count - 1].request) ", oldest = "#\(entries[0].request) "
        await harness.press(.function(4))
        var text = harness.lines.joined(separator: "\n")
        #expect(text.contains(newest) && !text.contains(oldest) && text.contains("more ↓"), "\(text)")
        for _ in 0..<5 { await harness.press(.pageDown) }
        text = harness.lines.joined(separator: "\n")
        #expect(text.contains(oldest) && !text.contains(newest), "\(text)")
        #expect(text.contains("more ↑") && !text.contains("more ↓"), "\(text)")
        await harness.press(.pageUp, .pageUp, .pageUp, .pageUp, .pageUp)
        #expect(harness.app.ui.overlay == .requests(scroll: 0))
    }
}
