/// A position on the grid; `x` is the column, `y` the row, both from 0.
public struct Position: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

public struct Rect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// One cell of the grid. A wide glyph occupies its own cell (the lead, `width` 2 or more) and
/// the cells to its right (continuations: empty `symbol`, `width` 0, same style). Most wide
/// glyphs are 2 columns; a Devanagari conjunct with a vowel sign ("न्दी") is 3.
public struct Cell: Hashable, Sendable {
    public private(set) var symbol: String
    public private(set) var width: Int
    public var style: Style

    public static func blank(_ style: Style = .plain) -> Cell {
        Cell(symbol: " ", width: 1, style: style)
    }

    static func continuation(_ style: Style) -> Cell {
        Cell(symbol: "", width: 0, style: style)
    }

    init(symbol: String, width: Int, style: Style) {
        self.symbol = symbol
        self.width = width
        self.style = style
    }

    public var isContinuation: Bool { width == 0 }
}

/// The frame a render function paints: a `width` × `height` grid of cells plus where
/// the cursor should be (nil hides it).
///
/// Invariants every mutation keeps, so backends never see a broken frame:
/// - a lead of width n is followed by exactly n - 1 continuation cells on the same row, and
///   every continuation cell belongs to such a lead;
/// - a wide glyph never reaches past the last column (a space is drawn instead);
/// - overwriting any cell of a wide glyph blanks the rest of it;
/// - every symbol went through `sanitize`, so no control character is ever emitted.
public struct Canvas: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public var cursor: Position?
    private var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: .blank(), count: self.width * self.height)
    }

    public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    public subscript(x: Int, y: Int) -> Cell {
        precondition(contains(x: x, y: y), "cell (\(x), \(y)) outside \(width)x\(height) canvas")
        return cells[y * width + x]
    }

    public func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    /// Draws `text` from column `x` on row `y`, clipped to `maxWidth` columns (and to the
    /// canvas). A wide glyph that would cross the clip edge is replaced by spaces.
    /// Returns the number of columns drawn.
    @discardableResult
    public mutating func draw(_ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        return draw(TextLayout.glyphs(text), x: x, y: y, style: style, maxWidth: maxWidth)
    }

    /// The same for text already laid out (`TextLayout.glyphs`, which sanitises it): a caller
    /// that measured its text first draws it without laying it out again.
    @discardableResult
    public mutating func draw(
        _ glyphs: some Sequence<Glyph>, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        var column = x
        for glyph in glyphs {
            if column >= limit { break }
            if column + glyph.width > limit {
                // Only a wide glyph can overhang: never cut it, blank what is left.
                while column < limit {
                    if column >= 0 { place(.space, style: style, x: column, y: y) }
                    column += 1
                }
                break
            }
            if column >= 0 {
                place(glyph, style: style, x: column, y: y)
            } else if column + glyph.width > 0 {
                // A wide glyph straddling the left edge: show its visible columns as spaces.
                for visible in 0..<(column + glyph.width) { place(.space, style: style, x: visible, y: y) }
            }
            column += glyph.width
        }
        return max(0, column - max(x, 0))
    }

    /// Draws `text` into exactly `width` columns: cut with "…" when too long (see
    /// `TextLayout.truncate`), padded with spaces in `style` when short.
    public mutating func drawTruncated(_ text: String, x: Int, y: Int, width: Int, style: Style = .plain) {
        guard width > 0 else { return }
        let fitted = TextLayout.truncate(text, toWidth: width)
        let drawn = draw(fitted, x: x, y: y, style: style, maxWidth: width)
        if drawn < width {
            fill(Rect(x: x + drawn, y: y, width: width - drawn, height: 1), style: style)
        }
    }

    /// Paints every cell of `rect` (clipped to the canvas) with `symbol` in `style`.
    /// `symbol` must be one column wide; anything else fills with spaces.
    public mutating func fill(_ rect: Rect, symbol: Character = " ", style: Style = .plain) {
        let glyphs = TextLayout.glyphs(String(symbol))
        let glyph = glyphs.count == 1 && glyphs[0].width == 1 ? glyphs[0] : .space
        let left = max(0, rect.x), right = min(width, rect.x + rect.width)
        let top = max(0, rect.y), bottom = min(height, rect.y + rect.height)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            for column in left..<right {
                place(glyph, style: style, x: column, y: row)
            }
        }
    }

    /// Blanks `rect` to plain spaces.
    public mutating func clear(_ rect: Rect) {
        fill(rect, style: .plain)
    }

    /// Changes the style of the cells in `rect` without touching their text, e.g. to
    /// highlight a selected row after drawing it.
    public mutating func setStyle(_ style: Style, in rect: Rect) {
        let left = max(0, rect.x), right = min(width, rect.x + rect.width)
        let top = max(0, rect.y), bottom = min(height, rect.y + rect.height)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            for column in left..<right {
                cells[row * width + column].style = style
            }
            // Keep every cell of a wide glyph cut by the rect in one style.
            var column = left
            while column > 0, cells[row * width + column].isContinuation {
                column -= 1
                cells[row * width + column].style = style
            }
            column = right
            while column < width, cells[row * width + column].isContinuation {
                cells[row * width + column].style = style
                column += 1
            }
        }
    }

    private mutating func place(_ glyph: Glyph, style: Style, x: Int, y: Int) {
        let glyph = x + glyph.width <= width ? glyph : .space
        for column in x..<(x + glyph.width) { detachWideGlyph(x: column, y: y) }
        cells[y * width + x] = Cell(symbol: glyph.symbol, width: glyph.width, style: style)
        for column in (x + 1)..<(x + glyph.width) {
            cells[y * width + column] = .continuation(style)
        }
    }

    /// Before (x, y) is overwritten: if it is part of a wide glyph, blank the whole glyph (each
    /// cell keeping its style).
    private mutating func detachWideGlyph(x: Int, y: Int) {
        var lead = x
        while lead > 0, cells[y * width + lead].isContinuation { lead -= 1 }
        let cell = cells[y * width + lead]
        guard cell.width > 1 else { return }
        for column in lead..<min(width, lead + cell.width) {
            cells[y * width + column] = .blank(cells[y * width + column].style)
        }
    }
}
