import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// A line longer than its field scrolls sideways; whatever it hides is marked, ‹ on the left
/// and › on the right, and the cursor stays on the character it is at.
@MainActor
@Suite struct LineScrollMarkerTests {
    /// What a field of `width` columns shows: the markers, the glyphs shown (by index into the
    /// text's glyphs, checked to be one unbroken run) and the column each starts in.
    struct Shown {
        var left = false, right = false
        var first = 0, end = 0
        var columns: [Int] = []
    }

    static func read(_ canvas: Canvas, glyphs: [Glyph], width: Int) throws -> Shown {
        var shown = Shown()
        shown.left = canvas[0, 0].symbol == "‹"
        shown.right = canvas[width - 1, 0].symbol == "›"
        var indices: [Int] = []
        for x in (shown.left ? 1 : 0)..<(shown.right ? width - 1 : width) {
            let cell = canvas[x, 0]
            guard !cell.isContinuation, cell.symbol != " " else { continue }
            // The test texts hold each glyph once, so a symbol names its place.
            let index = try #require(
                glyphs.firstIndex { $0.symbol == cell.symbol }, "unexpected \(cell.symbol) at \(x)")
            indices.append(index)
            shown.columns.append(x)
        }
        shown.first = indices.first ?? 0
        shown.end = (indices.last ?? -1) + 1
        #expect(indices == Array(shown.first..<shown.end), "the shown glyphs are one run of the text: \(indices)")
        return shown
    }

    nonisolated static let texts = [
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "漢字仮名交じり文例東京大阪神戸",
        "a漢b字c仮d名e交f東g京h",
    ]

    @Test(arguments: texts)
    func everyCursorPositionAndWidthMarksWhatIsHiddenAndShowsTheCursorCharacter(_ text: String) throws {
        let glyphs = TextLayout.glyphs(text)
        let total = glyphs.reduce(0) { $0 + $1.width }
        var cases = 0
        for width in 5...(total + 3) {
            for cursor in 0...glyphs.count {
                cases += 1
                var canvas = Canvas(width: width, height: 1)
                let line = LineEditor(text, cursor: cursor)
                let cursorX = FieldView.draw(line, in: &canvas, x: 0, y: 0, width: width, style: .plain)
                let shown = try Self.read(canvas, glyphs: glyphs, width: width)
                let context = "width \(width), cursor \(cursor): \(canvas.textLines()[0])"
                #expect(shown.left == (shown.first > 0), "‹ exactly when text is hidden on the left; \(context)")
                #expect(
                    shown.right == (shown.end < glyphs.count), "› exactly when text is hidden on the right; \(context)")
                let fits = total + (cursor == glyphs.count ? 1 : 0) <= width
                #expect(fits == (!shown.left && !shown.right), "markers only when the line does not fit; \(context)")
                if cursor < glyphs.count {
                    let place = try #require(
                        shown.columns.indices.first { shown.first + $0 == cursor }.map { shown.columns[$0] },
                        "the cursor's character is shown; \(context)")
                    #expect(cursorX == place, "the cursor is on its character; \(context)")
                } else {
                    #expect(shown.end == glyphs.count, "the end is shown; \(context)")
                    let after = (shown.columns.last ?? 0) + (glyphs.last?.width ?? 0)
                    #expect(
                        cursorX == after && cursorX < width && canvas[cursorX, 0].symbol == " ",
                        "the cursor sits after the text; \(context)")
                }
                // No room goes to waste: at most one blank column (a wide glyph that did not fit) on a side.
                if shown.left, let firstColumn = shown.columns.first { #expect(firstColumn <= 2, "\(context)") }
                if shown.right, let lastColumn = shown.columns.last {
                    #expect(lastColumn + glyphs[shown.end - 1].width >= width - 2, "\(context)")
                }
            }
        }
        print("FieldView: \(cases) widths × cursor positions of \(text.prefix(6))…")
    }

    @Test func aLongPasteIntoTheSearchLineShowsWhereTextIsHidden() async {
        let harness = AppHarness(columns: 40, rows: 12)
        await harness.start()
        let pasted = "the quick brown fox jumps over the lazy dog and the cat"
        await harness.press(.paste(pasted))
        var screen = harness.screen
        let prompt = Screen.promptText.count
        #expect(screen[prompt, 1].symbol == "‹", "\(harness.lines[1])")
        #expect(harness.lines[1].hasSuffix("and the cat"), "\(harness.lines[1])")
        #expect(screen.cursor == Position(x: 39, y: 1))
        #expect(screen[prompt, 1].style != .plain, "the marker is not text")

        await harness.press(.home)
        screen = harness.screen
        #expect(harness.lines[1].hasPrefix("Search: the quick"), "\(harness.lines[1])")
        #expect(screen[39, 1].symbol == "›", "\(harness.lines[1])")
        #expect(screen.cursor == Position(x: prompt, y: 1))

        // Halfway: both sides hidden, the cursor on the character it is before.
        for _ in 0..<40 { await harness.press(.right) }
        screen = harness.screen
        #expect(screen[prompt, 1].symbol == "‹" && screen[39, 1].symbol == "›", "\(harness.lines[1])")
        let cursor = try! #require(screen.cursor)
        #expect(screen[cursor.x, 1].symbol == String(Array(pasted)[40]), "\(harness.lines[1])")
    }

    @Test func aLongTitleInTheEditorShowsWhereTextIsHidden() async {
        let harness = AppHarness(columns: 40, rows: 14)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter, .end)
        await harness.type(": An Account of the Republic and the Empire")
        let screen = harness.screen
        let row = 4
        let label = " Title".padding(toLength: 1 + EditorForm.labelWidth, withPad: " ", startingAt: 0)
        #expect(harness.lines[row].hasPrefix(label + "‹"), "\(harness.lines[row])")
        #expect(screen.cursor?.y == row)
        await harness.press(.home)
        #expect(harness.lines[row].hasPrefix(label + "History of Rome"), "\(harness.lines[row])")
        #expect(harness.lines[row].hasSuffix("›"), "\(harness.lines[row])")
        #expect(harness.screen.cursor == Position(x: 1 + EditorForm.labelWidth, y: row))
    }

    @Test func aPasswordLongerThanItsFieldShowsThatSomeIsHidden() async {
        let harness = AppHarness(columns: 60, rows: 14, passwords: ["bob": "x"])
        await harness.start()
        await harness.press(.function(2), .down, .enter)
        await harness.type(String(repeating: "p", count: 80))
        let screen = harness.screen
        let cursor = try! #require(screen.cursor)
        let row = harness.lines[cursor.y]
        #expect(row.contains("‹•••"), "\(row)")
        #expect(!row.contains("p"), "never the password itself")
        #expect(screen[cursor.x, cursor.y].symbol == " " && screen[cursor.x - 1, cursor.y].symbol == "•")
    }
}
