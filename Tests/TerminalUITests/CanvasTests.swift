import Testing
@testable import TerminalUI

@Suite("Canvas")
struct CanvasTests {
    @Test("Text is placed at its column and clipped to the canvas")
    func placementAndClipping() {
        var canvas = Canvas(width: 8, height: 2)
        #expect(canvas.draw("hello world", x: 2, y: 1) == 6)
        #expect(canvas.textLines() == ["        ", "  hello "])
        #expect(canvas.draw("x", x: 0, y: 5) == 0, "rows outside the canvas draw nothing")
    }

    @Test("maxWidth clips without touching the cells after it")
    func maxWidth() {
        var canvas = Canvas(width: 10, height: 1)
        canvas.fill(canvas.bounds, symbol: ".")
        #expect(canvas.draw("abcdef", x: 1, y: 0, maxWidth: 3) == 3)
        #expect(canvas.textLines() == [".abc......"])
    }

    @Test("Wide characters occupy a lead and a continuation cell")
    func wideCells() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.draw("a漢b", x: 0, y: 0)
        #expect(canvas[1, 0].symbol == "漢")
        #expect(canvas[1, 0].width == 2)
        #expect(canvas[2, 0].isContinuation)
        #expect(canvas[3, 0].symbol == "b")
        #expect(canvas.textLines() == ["a漢b  "])
    }

    @Test("A wide character at the right edge is never split: a space is drawn instead")
    func wideAtRightEdge() {
        var canvas = Canvas(width: 5, height: 1)
        #expect(canvas.draw("abcd漢", x: 0, y: 0) == 5)
        #expect(canvas.textLines() == ["abcd "])
        #expect(!canvas[4, 0].isContinuation)
        #expect(canvas[4, 0].width == 1)
    }

    @Test("A wide character at a maxWidth edge is never split either")
    func wideAtClipEdge() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.fill(canvas.bounds, symbol: "-")
        #expect(canvas.draw("漢字", x: 0, y: 0, maxWidth: 3) == 3)
        #expect(canvas.textLines() == ["漢 ---"])
    }

    @Test("A wide character straddling the left edge shows as a space")
    func wideAtLeftEdge() {
        var canvas = Canvas(width: 4, height: 1)
        canvas.draw("漢字", x: -1, y: 0)
        #expect(canvas.textLines() == [" 字 "])
    }

    @Test("Overwriting half of a wide character blanks the other half")
    func overwriteHalves() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.draw("漢字", x: 0, y: 0)
        canvas.draw("x", x: 1, y: 0)  // the continuation of 漢
        #expect(canvas.textLines() == [" x字  "])
        canvas.draw("y", x: 2, y: 0)  // the lead of 字
        #expect(canvas.textLines() == [" xy   "])
        canvas.draw("漢", x: 3, y: 0)
        canvas.draw("字", x: 2, y: 0)  // covers the lead of 漢 at 3
        #expect(canvas.textLines() == [" x字  "])
        for x in 0..<canvas.width where canvas[x, 0].isContinuation {
            #expect(x > 0 && canvas[x - 1, 0].width == 2, "every continuation follows a wide lead")
        }
    }

    @Test("Combining marks and zero-width characters never shift later columns")
    func zeroWidthDoesNotShift() {
        var canvas = Canvas(width: 10, height: 3)
        canvas.draw("Cafe\u{301}|", x: 0, y: 0)
        canvas.draw("ab\u{200B}c|", x: 0, y: 1)
        canvas.draw("👨\u{200D}👩\u{200D}👧|", x: 0, y: 2)
        #expect(canvas[4, 0].symbol == "|")
        #expect(canvas[3, 0].symbol == "e\u{301}")
        #expect(canvas[3, 1].symbol == "|")
        #expect(canvas[2, 2].symbol == "|")
    }

    @Test("Truncated drawing fills exactly its width")
    func drawTruncated() {
        var canvas = Canvas(width: 12, height: 2)
        canvas.fill(canvas.bounds, symbol: "#")
        canvas.drawTruncated("The Left Hand of Darkness", x: 1, y: 0, width: 10, style: .bold)
        canvas.drawTruncated("短い", x: 1, y: 1, width: 10, style: .bold)
        #expect(canvas.textLines() == ["#The Left …#", "#短い      #"])
        #expect(canvas[10, 1].style == .bold, "padding takes the style")
        #expect(canvas[11, 1].style == .plain)
    }

    @Test("Fill and clear cover a clipped rectangle")
    func fillAndClear() {
        var canvas = Canvas(width: 5, height: 3)
        canvas.fill(Rect(x: 3, y: 1, width: 10, height: 10), symbol: "*", style: .reverse)
        #expect(canvas.textLines() == ["     ", "   **", "   **"])
        #expect(canvas[4, 2].style == .reverse)
        canvas.clear(Rect(x: 4, y: 0, width: 1, height: 3))
        #expect(canvas.textLines() == ["     ", "   * ", "   * "])
        #expect(canvas[4, 2].style == .plain)
    }

    @Test("setStyle restyles without changing text, keeping wide glyphs in one style")
    func setStyle() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.draw("a漢字", x: 0, y: 0)
        canvas.setStyle(.reverse, in: Rect(x: 0, y: 0, width: 2, height: 1))
        #expect(canvas.textLines() == ["a漢字 "])
        #expect(canvas[1, 0].style == .reverse)
        #expect(canvas[2, 0].style == .reverse, "continuation follows its lead")
        #expect(canvas[3, 0].style == .plain)
    }

    /// "न्दी": न, a virama, द and the vowel sign ी, one cluster that terminals give three columns
    /// (each letter and the spacing sign its own).
    static let conjunct = "\u{928}\u{94D}\u{926}\u{940}"

    @Test("A glyph three columns wide has a lead and two continuations, and goes whole")
    func threeColumnGlyph() {
        var canvas = Canvas(width: 8, height: 1)
        #expect(canvas.draw("a\(Self.conjunct)b", x: 0, y: 0) == 5)
        #expect(canvas[1, 0].symbol == Self.conjunct && canvas[1, 0].width == 3)
        #expect(canvas[2, 0].isContinuation && canvas[3, 0].isContinuation)
        #expect(canvas[4, 0].symbol == "b")
        #expect(canvas.textLines() == ["a\(Self.conjunct)b   "])

        // Overwriting its last column blanks the whole glyph, not only the cell written.
        canvas.draw("x", x: 3, y: 0)
        #expect(canvas.textLines() == ["a  xb   "])
        canvas.draw(Self.conjunct, x: 1, y: 0)
        canvas.draw("y", x: 2, y: 0)
        #expect(canvas.textLines() == ["a y b   "])
        for x in 0..<canvas.width { #expect(!canvas[x, 0].isContinuation) }
    }

    @Test("A glyph three columns wide at an edge becomes spaces, never a part of it")
    func threeColumnGlyphAtEdges() {
        var canvas = Canvas(width: 5, height: 1)
        #expect(canvas.draw("abc\(Self.conjunct)", x: 0, y: 0) == 5)
        #expect(canvas.textLines() == ["abc  "], "two columns left at the right edge")
        canvas = Canvas(width: 5, height: 1)
        canvas.fill(canvas.bounds, symbol: "-")
        #expect(canvas.draw("\(Self.conjunct)z", x: -2, y: 0) == 2)
        #expect(canvas.textLines() == [" z---"], "one column visible at the left edge")
        canvas.draw("\(Self.conjunct)z", x: -1, y: 0)
        #expect(canvas.textLines() == ["  z--"], "two columns visible at the left edge")
        canvas.draw(Self.conjunct, x: 0, y: 0, maxWidth: 2)
        #expect(canvas.textLines() == ["  z--"], "a clip of two columns")
    }

    @Test("setStyle keeps every cell of a three-column glyph in one style")
    func threeColumnGlyphStyle() {
        var canvas = Canvas(width: 6, height: 1)
        canvas.draw("a\(Self.conjunct)b", x: 0, y: 0)
        canvas.setStyle(.reverse, in: Rect(x: 2, y: 0, width: 1, height: 1))
        #expect((1...3).allSatisfy { canvas[$0, 0].style == .reverse }, "the lead and both continuations")
        #expect(canvas[0, 0].style == .plain && canvas[4, 0].style == .plain)
    }
}
