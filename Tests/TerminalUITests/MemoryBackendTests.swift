import Testing
@testable import TerminalUI

@Suite("Memory backend")
struct MemoryBackendTests {
    /// A small screen the way an app would compose one: a title bar, a list with a
    /// selected row, CJK and emoji titles, a status line that must be truncated.
    static func composedScreen(selected: Int) -> Canvas {
        var canvas = Canvas(width: 20, height: 6)
        let titleBar = Style(foreground: .white, background: .blue, attributes: .bold)
        canvas.fill(Rect(x: 0, y: 0, width: 20, height: 1), style: titleBar)
        canvas.draw("Bookshelf", x: 1, y: 0, style: titleBar)
        let rows = ["Dune", "ノルウェイの森", "Emoji 📚 book", "Lais \u{1B}[31mMarie"]
        for (index, title) in rows.enumerated() {
            let style: Style = index == selected ? .reverse : .plain
            canvas.drawTruncated(title, x: 0, y: index + 1, width: 20, style: style)
        }
        canvas.drawTruncated("3 results for \"murakami haruki\"", x: 0, y: 5, width: 20, style: .dim)
        canvas.cursor = Position(x: 4, y: 5)
        return canvas
    }

    @Test("A composed 20x6 screen renders as text with styles")
    func composedScreen() {
        var backend = MemoryBackend(width: 20, height: 6)
        backend.present(Self.composedScreen(selected: 1))
        #expect(
            backend.lines == [
                " Bookshelf          ",
                "Dune                ",
                "ノルウェイの森      ",
                "Emoji 📚 book       ",
                "Lais ␛[31mMarie     ",
                "3 results for \"mura…",
            ])
        #expect(backend.style(x: 0, y: 0) == Style(foreground: .white, background: .blue, attributes: .bold))
        #expect(backend.style(x: 19, y: 0).background == .blue, "the title bar spans the row")
        #expect(backend.style(x: 0, y: 1) == .plain)
        #expect(backend.style(x: 0, y: 2) == .reverse, "selected row")
        #expect(backend.style(x: 19, y: 2) == .reverse, "selection padded to the full width")
        #expect(backend.style(x: 19, y: 5) == .dim)
        #expect(backend.screen.cursor == Position(x: 4, y: 5))
    }

    @Test("The next frame sends only the cells that changed")
    func secondFrameSendsChanges() {
        var backend = MemoryBackend(width: 20, height: 6)
        backend.present(Self.composedScreen(selected: 1))
        #expect(
            backend.lastUpdates.count == 20 * 6 - 8,
            "first frame: everything but 8 continuation cells (7 kana, 1 emoji)")
        backend.present(Self.composedScreen(selected: 1))
        #expect(backend.lastUpdates.isEmpty)
        backend.present(Self.composedScreen(selected: 2))
        // Row 2 (7 wide glyphs + 6 padding cells) and row 3 (all 19 non-continuation
        // cells) change style; nothing else is sent.
        #expect(Set(backend.lastUpdates.map(\.position.y)) == [2, 3])
        #expect(backend.lastUpdates.count == 13 + 19)
        #expect(backend.style(x: 0, y: 3) == .reverse)
        #expect(backend.style(x: 0, y: 2) == .plain)
    }

    @Test("invalidate forces a full redraw; a new size starts over")
    func invalidate() {
        var backend = MemoryBackend(width: 20, height: 6)
        let frame = Self.composedScreen(selected: 0)
        backend.present(frame)
        backend.invalidate()
        backend.present(frame)
        #expect(backend.lastUpdates.count == 20 * 6 - 8)
        var small = Canvas(width: 4, height: 1)
        small.draw("abcd", x: 0, y: 0)
        backend.present(small)
        #expect(backend.lines == ["abcd"])
    }

    @Test("ncurses receives a cluster only when a cchar_t holds it whole; never a part of one")
    func cursesCharacters() {
        func cell(_ text: String) -> Cell {
            let glyph = TextLayout.glyphs(text)[0]
            return Cell(symbol: glyph.symbol, width: glyph.width, style: .plain)
        }
        #expect(NcursesBackend.cursesCharacters(cell("a")) == [97, 0])
        #expect(NcursesBackend.cursesCharacters(cell("e\u{301}")) == [0x65, 0x301, 0])
        #expect(
            NcursesBackend.cursesCharacters(cell("a\u{301}\u{302}\u{303}\u{304}")) == [
                0x61, 0x301, 0x302, 0x303, 0x304, 0,
            ])
        #expect(
            NcursesBackend.cursesCharacters(cell("\u{1112}\u{1161}\u{11AB}")) == [0x1112, 0x1161, 0x11AB, 0],
            "Hangul jamo")
        #expect(NcursesBackend.cursesCharacters(cell("ที่")) == [0xE17, 0xE35, 0xE48, 0])
        for whole in [
            "a\u{301}\u{302}\u{303}\u{304}\u{305}", "👨\u{200D}👩\u{200D}👧", "🇯🇵", "👍🏽", "1\u{FE0F}\u{20E3}", "कि", "กำ",
            "न्दी",
        ] {
            #expect(NcursesBackend.cursesCharacters(cell(whole)) == nil, "\(whole) is written beside ncurses")
        }
    }

    @Test("clusters ncurses cannot hold are written whole, placed and styled, the cursor restored")
    func clustersBeyondCurses() {
        var canvas = Canvas(width: 12, height: 2)
        canvas.draw("a🇯🇵b", x: 0, y: 0)
        canvas.draw("👨\u{200D}👩\u{200D}👧", x: 3, y: 1, style: .bold)
        canvas.draw("e\u{301}", x: 0, y: 1)
        #expect(
            NcursesBackend.clustersBeyondCurses(in: canvas)
                == "\u{1B}7\u{1B}[1;2H\u{1B}[0m🇯🇵\u{1B}[2;4H\u{1B}[0;1m👨\u{200D}👩\u{200D}👧\u{1B}[0m\u{1B}8")
        #expect(NcursesBackend.clustersBeyondCurses(in: Canvas(width: 3, height: 1)) == "")
    }

    @Test("a row that held a cluster written beside ncurses is written whole when it changes")
    func rowsToRepaint() {
        var previous = Canvas(width: 10, height: 4)
        previous.draw("a न्दी b", x: 0, y: 0)
        previous.draw("🇯🇵 x", x: 0, y: 1)
        previous.draw("漢字 plain", x: 0, y: 2)
        previous.draw("é stays", x: 0, y: 3)
        var next = previous
        next.draw("gone     ", x: 0, y: 0)
        next.draw("other", x: 0, y: 2)
        next.draw("x", x: 9, y: 3)
        let updates = FrameDiff.updates(from: previous, to: next)
        // Row 0 changed and held न्दी; row 1 held a flag but did not change; rows 2 and 3 changed
        // but ncurses held all they had (漢, é).
        #expect(NcursesBackend.rowsToRepaint(from: previous, updates: updates) == [0])
        #expect(NcursesBackend.rowsToRepaint(from: nil, updates: updates) == [], "a first frame is written whole")
    }
}
