import TerminalUI

/// Two versions of one text (theirs and yours), each cut to the same width so that the part
/// where they differ stays visible and is marked. A plain cut at the end would hide exactly
/// that part when two long titles differ only in their last words ("A Short History of the
/// Ottoma…" twice); instead the common middle is elided and the differing part kept:
/// "A Short Hist…Ottoman Empire" over "A Short Hist…Ottoman Turks".
///
/// The texts are compared as one common prefix, one differing middle and one common suffix.
/// Both lines elide the common parts identically, so their differing parts start in the same
/// column.
enum DifferenceElision {
    struct Piece: Equatable {
        var text: String
        /// Part of the span where the two versions differ.
        var differs: Bool

        static let ellipsis = Piece(text: "…", differs: false)
    }

    static func elide(_ first: String, _ second: String, width: Int) -> (first: [Piece], second: [Piece]) {
        elide(first, second, width: width, roomFor: { max(columns($0), columns($1)) })
    }

    /// The newer of two versions alone, as the history shows a revision against the one before
    /// it. Only its own differing part needs room, so a revision that cut text off the end
    /// still shows the text it kept, whole where it fits.
    static func elideChange(from older: String, to newer: String, width: Int) -> [Piece] {
        elide(older, newer, width: width, roomFor: { columns($1) }).second
    }

    /// `roomFor` says how many columns the differing middles want, given both.
    private static func elide(
        _ first: String, _ second: String, width: Int,
        roomFor: ([Glyph], [Glyph]) -> Int
    ) -> (first: [Piece], second: [Piece]) {
        let a = TextLayout.glyphs(first), b = TextLayout.glyphs(second)
        var prefixCount = 0
        while prefixCount < a.count, prefixCount < b.count, a[prefixCount].symbol == b[prefixCount].symbol {
            prefixCount += 1
        }
        var suffixCount = 0
        while suffixCount < a.count - prefixCount, suffixCount < b.count - prefixCount,
            a[a.count - 1 - suffixCount].symbol == b[b.count - 1 - suffixCount].symbol
        { suffixCount += 1 }
        let prefix = Array(a[..<prefixCount])
        let suffix = Array(a[(a.count - suffixCount)...])
        let middles = (Array(a[prefixCount..<(a.count - suffixCount)]), Array(b[prefixCount..<(b.count - suffixCount)]))
        // The difference gets the room, less one column for each "…" the common parts may need.
        let markers = (prefix.isEmpty ? 0 : 1) + (suffix.isEmpty ? 0 : 1)
        let middleWidth = min(roomFor(middles.0, middles.1), max(1, width - markers))

        let (head, tail) = shownContext(prefix: prefix, suffix: suffix, room: max(0, width - middleWidth))
        func line(_ middle: [Glyph]) -> [Piece] {
            var pieces = head
            if columns(middle) <= middleWidth {
                pieces.append(Piece(text: text(middle), differs: true))
            } else {
                pieces.append(Piece(text: text(leading(middle, columns: middleWidth - 1)), differs: true))
                pieces.append(Piece(text: "…", differs: true))
            }
            pieces += tail
            return pieces.filter { !$0.text.isEmpty }
        }
        return (line(middles.0), line(middles.1))
    }

    /// The common prefix and suffix as shown in `room` columns: whole when they fit; else the
    /// suffix keeps its start (up to a third of the room), and the prefix its start and the
    /// few columns just before the difference, with "…" for what is left out.
    private static func shownContext(prefix: [Glyph], suffix: [Glyph], room: Int) -> (head: [Piece], tail: [Piece]) {
        let whole = (
            head: [Piece(text: text(prefix), differs: false)], tail: [Piece(text: text(suffix), differs: false)]
        )
        if columns(prefix) + columns(suffix) <= room { return whole }
        let prefixWidth = columns(prefix)
        var suffixBudget = min(columns(suffix), max(suffix.isEmpty ? 0 : 1, room / 3))
        if prefixWidth <= room - suffixBudget { suffixBudget = room - prefixWidth }
        let prefixBudget = room - suffixBudget

        var head: [Piece]
        if prefixWidth <= prefixBudget {
            head = whole.head
        } else if prefixBudget <= 1 {
            head = prefix.isEmpty ? [] : [.ellipsis]
        } else {
            let tailBudget = min(prefixWidth, (prefixBudget - 1) / 2)
            let start = leading(prefix, columns: prefixBudget - 1 - tailBudget)
            let end = trailing(prefix, columns: tailBudget)
            head = [Piece(text: text(start), differs: false), .ellipsis, Piece(text: text(end), differs: false)]
        }

        var tail: [Piece]
        if columns(suffix) <= suffixBudget {
            tail = whole.tail
        } else if suffixBudget <= 1 {
            tail = suffix.isEmpty ? [] : [.ellipsis]
        } else {
            tail = [Piece(text: text(leading(suffix, columns: suffixBudget - 1)), differs: false), .ellipsis]
        }
        return (head, tail)
    }

    private static func columns(_ glyphs: [Glyph]) -> Int { glyphs.reduce(0) { $0 + $1.width } }

    private static func text(_ glyphs: [Glyph]) -> String { glyphs.map(\.symbol).joined() }

    /// The longest start of `glyphs` within `columns`.
    private static func leading(_ glyphs: [Glyph], columns limit: Int) -> [Glyph] {
        var used = 0
        var kept: [Glyph] = []
        for glyph in glyphs {
            guard used + glyph.width <= limit else { break }
            kept.append(glyph)
            used += glyph.width
        }
        return kept
    }

    /// The longest end of `glyphs` within `columns`.
    private static func trailing(_ glyphs: [Glyph], columns limit: Int) -> [Glyph] {
        Array(leading(glyphs.reversed(), columns: limit).reversed())
    }
}
