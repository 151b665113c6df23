import TerminalUI

/// A line made of differently styled pieces, drawn and cut as one: "…" marks the cut at the
/// right display width, whatever the pieces' styles. Every piece goes through the canvas,
/// which sanitises it, so store text can never act on the terminal.
public struct StyledText: Equatable, Sendable {
    public struct Run: Equatable, Sendable {
        public var text: String
        public var style: Style
    }

    public var runs: [Run] = []

    public init() {}
    public init(_ text: String, style: Style = .plain) { append(text, style: style) }

    public mutating func append(_ text: String, style: Style = .plain) {
        guard !text.isEmpty else { return }
        runs.append(Run(text: text, style: style))
    }

    public static func + (lhs: StyledText, rhs: StyledText) -> StyledText {
        var result = lhs
        result.runs += rhs.runs
        return result
    }

    /// `text` with the `ranges` in `highlight` style and the rest in `base`.
    public static func highlighted(_ text: String, ranges: [Range<String.Index>], base: Style, highlight: Style)
        -> StyledText
    {
        var result = StyledText()
        var position = text.startIndex
        for range in ranges where range.lowerBound >= position {
            result.append(String(text[position..<range.lowerBound]), style: base)
            result.append(String(text[range]), style: highlight)
            position = range.upperBound
        }
        result.append(String(text[position...]), style: base)
        return result
    }

    public var width: Int { runs.reduce(0) { $0 + TextLayout.width($1.text) } }

    /// What stands for a field with nothing in it, so a cleared author never reads as a blank.
    public static let emptyMarker = "(empty)"

    /// "(empty)", in the marker's style: a field's value that is not there.
    public mutating func appendEmptyMarker() { append(Self.emptyMarker, style: Theme.emptyValue) }

    /// Draws into exactly `width` columns from (`x`, `y`): cut with "…" (in the style of the
    /// text it replaces) when too wide, padded with `fill` when short.
    public func draw(in canvas: inout Canvas, x: Int, y: Int, width: Int, fill: Style = .plain) {
        guard width > 0 else { return }
        var pieces: [(glyphs: [Glyph], style: Style)] = runs.map { (TextLayout.glyphs($0.text), $0.style) }
        let total = pieces.reduce(0) { $0 + $1.glyphs.reduce(0) { $0 + $1.width } }
        var ellipsisStyle: Style?
        if total > width {
            // Keep whole glyphs up to width - 1 columns, then the ellipsis.
            var used = 0
            var kept: [(glyphs: [Glyph], style: Style)] = []
            outer: for piece in pieces {
                var glyphs: [Glyph] = []
                for glyph in piece.glyphs {
                    if used + glyph.width > width - 1 {
                        kept.append((glyphs, piece.style))
                        ellipsisStyle = piece.style
                        break outer
                    }
                    glyphs.append(glyph)
                    used += glyph.width
                }
                kept.append((glyphs, piece.style))
            }
            pieces = kept
        }
        var column = x
        for piece in pieces where !piece.glyphs.isEmpty {
            column += canvas.draw(piece.glyphs, x: column, y: y, style: piece.style, maxWidth: x + width - column)
        }
        if let ellipsisStyle {
            column += canvas.draw("…", x: column, y: y, style: ellipsisStyle, maxWidth: 1)
        }
        if column < x + width {
            canvas.fill(Rect(x: column, y: y, width: x + width - column, height: 1), style: fill)
        }
    }
}

/// Breaks text into lines of at most `width` columns, preferring to break after spaces,
/// never inside a character. Control characters are already made visible by `glyphs`.
public enum TextWrap {
    public static func lines(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line: [Glyph] = []
        var lineWidth = 0
        var lastSpace: Int?
        for glyph in TextLayout.glyphs(text) {
            if lineWidth + glyph.width > width {
                if let space = lastSpace, space > 0 {
                    lines.append(line[..<space].map(\.symbol).joined())
                    line = Array(line[(space + 1)...])
                } else {
                    lines.append(line.map(\.symbol).joined())
                    line = []
                }
                lineWidth = line.reduce(0) { $0 + $1.width }
                lastSpace = line.lastIndex { $0.symbol == " " }
                if glyph.symbol == " " && line.isEmpty { continue }
            }
            if glyph.symbol == " " { lastSpace = line.count }
            line.append(glyph)
            lineWidth += glyph.width
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line.map(\.symbol).joined()) }
        return lines
    }
}
