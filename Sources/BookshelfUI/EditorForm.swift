import BookCatalog
import BookshelfModel
import TerminalUI

/// The editor's fields in the form's order, each with its problem under it. When the pane is
/// too short for all of them the form scrolls to keep the focused field's cursor in view, and
/// "more ↑" / "more ↓" say that fields are hidden above or below.
enum EditorForm {
    /// "Publisher" and a space.
    static let labelWidth = 10
    /// The most rows the notes take; longer notes scroll inside them.
    static let notesRows = 6
    static let moreAbove = "more ↑"
    static let moreBelow = "more ↓"

    enum Row: Equatable {
        /// A one-line field.
        case field(EditorField)
        /// One shown row of the notes (0 is the first shown).
        case notes(Int)
        /// A line of the problem of a field, under it.
        case problem(EditorField, String)
    }

    /// The rows the whole form takes in a pane `width` columns wide.
    static func height(_ editor: EditorState, width: Int) -> Int {
        let fieldWidth = max(1, width - labelWidth - 2)
        let notes = NotesArea(editor.lines[.notes], width: fieldWidth, focused: editor.focus == .notes)
        return rows(editor, notes: notes, fieldWidth: fieldWidth).count
    }

    /// Draws the form into `area`; returns where the cursor goes, if the focused field shows.
    static func render(_ editor: EditorState, in area: Rect, into canvas: inout Canvas) -> Position? {
        guard area.height > 0, area.width > 0 else { return nil }
        let fieldWidth = max(1, area.width - labelWidth - 2)
        let notes = NotesArea(editor.lines[.notes], width: fieldWidth, focused: editor.focus == .notes)
        let rows = rows(editor, notes: notes, fieldWidth: fieldWidth)
        let target = targetRows(rows, editor: editor, notes: notes)
        let window = window(rows: rows.count, height: area.height, showing: target)
        var y = area.y
        var cursor: Position?
        if window.lowerBound > 0 {
            canvas.draw(moreAbove, x: area.x + 1, y: y, style: Theme.hint)
            y += 1
        }
        let x = area.x + 1 + labelWidth
        for row in rows[window] {
            switch row {
            case let .field(field):
                let focused = field == editor.focus
                drawLabel(field, focused: focused, x: area.x + 1, y: y, into: &canvas)
                let cursorX = FieldView.draw(
                    editor.lines[field], in: &canvas, x: x, y: y, width: fieldWidth,
                    style: focused ? Theme.focusedField : Theme.field)
                if focused { cursor = Position(x: cursorX, y: y) }
            case let .notes(index):
                let focused = editor.focus == .notes
                // The label goes on the first notes row shown, also when the form hides the ones above.
                if index == 0 || row == rows[window.lowerBound] {
                    drawLabel(.notes, focused: focused, x: area.x + 1, y: y, into: &canvas)
                } else if let marker = notes.marker(onRow: index) {
                    canvas.draw(marker, x: area.x + 1, y: y, style: Theme.hint)
                }
                let style = focused ? Theme.focusedField : Theme.field
                if let column = notes.draw(row: index, in: &canvas, x: x, y: y, width: fieldWidth, style: style),
                    focused
                {
                    cursor = Position(x: x + column, y: y)
                }
            case let .problem(_, text):
                canvas.draw(text, x: x, y: y, style: Theme.error, maxWidth: fieldWidth)
            }
            y += 1
        }
        if window.upperBound < rows.count {
            canvas.draw(moreBelow, x: area.x + 1, y: y, style: Theme.hint)
        }
        return cursor
    }

    private static func drawLabel(_ field: EditorField, focused: Bool, x: Int, y: Int, into canvas: inout Canvas) {
        canvas.draw(label(field), x: x, y: y, style: focused ? Theme.label : Theme.hint, maxWidth: labelWidth - 1)
    }

    /// The field's name beside it; the series index is "Series #", so the labels leave the
    /// text of a narrow pane room.
    static func label(_ field: EditorField) -> String { field == .seriesIndex ? "Series #" : field.label }

    /// Every row of the form, top to bottom.
    static func rows(_ editor: EditorState, notes: NotesArea, fieldWidth: Int) -> [Row] {
        var rows: [Row] = []
        for field in EditorField.allCases {
            if field == .notes {
                rows += (0..<notes.shownRows).map(Row.notes)
            } else {
                rows.append(.field(field))
            }
            if let problem = editor.problems[field] {
                // A problem beside its field: at most two lines, the second cut with "…".
                let lines = TextWrap.lines(besideItsField(problem, field), width: fieldWidth)
                for (index, line) in lines.prefix(2).enumerated() {
                    let cut = index == 1 && lines.count > 2
                    rows.append(.problem(field, cut ? TextLayout.truncate(line + " …", toWidth: fieldWidth) : line))
                }
            }
        }
        return rows
    }

    /// A problem without the field's name ("ISBN: its check digit…"), which its place says.
    static func besideItsField(_ problem: String, _ field: EditorField) -> String {
        let named = field.label + ": "
        guard problem.hasPrefix(named) else { return problem }
        let reason = problem.dropFirst(named.count)
        return reason.prefix(1).uppercased() + reason.dropFirst()
    }

    /// The rows that must show: the focused field's cursor row, then as much of its problem.
    private static func targetRows(_ rows: [Row], editor: EditorState, notes: NotesArea) -> ClosedRange<Int> {
        let focus = editor.focus
        let cursorRow =
            rows.firstIndex { row in
                switch row {
                case let .field(field): field == focus
                case let .notes(index): focus == .notes && index == notes.cursorRow
                case .problem: false
                }
            } ?? 0
        let lastProblem = rows.lastIndex { if case let .problem(field, _) = $0 { field == focus } else { false } }
        return cursorRow...max(cursorRow, lastProblem ?? cursorRow)
    }

    /// The rows shown in `height` lines, markers included, keeping `target` in view (its
    /// first row first, when all of it cannot show). No memory: the same state draws the same.
    static func window(rows count: Int, height: Int, showing target: ClosedRange<Int>) -> Range<Int> {
        guard count > height else { return 0..<count }
        func shown(from top: Int) -> Range<Int> {
            var room = height - (top > 0 ? 1 : 0)
            if top + room < count { room -= 1 }
            return top..<min(count, top + max(1, room))
        }
        var top = 0
        while top < target.lowerBound, !shown(from: top).contains(target.upperBound) { top += 1 }
        return shown(from: top)
    }
}

/// The notes as drawn: each line wrapped at the field's width (a full row leaves the next one
/// for the cursor), at most `EditorForm.notesRows` rows shown, scrolled to the cursor when they
/// have focus, and "more ↑" / "more ↓" in the label column when rows are hidden.
struct NotesArea {
    /// Each wrapped row: its glyphs, and the character offsets in the notes it covers.
    private let visualRows: [(glyphs: [Glyph], start: Int, end: Int)]
    /// The visual row and column of the cursor.
    private let cursor: (row: Int, column: Int)
    let shownRows: Int
    /// The first visual row shown.
    let top: Int

    init(_ line: LineEditor, width: Int, focused: Bool) {
        var rows: [(glyphs: [Glyph], start: Int, end: Int)] = []
        var cursor = (row: 0, column: 0)
        var offset = 0
        for text in line.text.split(separator: "\n", omittingEmptySubsequences: false) {
            let characters = Array(text)
            let glyphs = characters.map { TextLayout.glyphs(String($0)) }
            let widths = glyphs.map { $0.reduce(0) { $0 + $1.width } }
            for range in Self.wrap(characters, widths: widths, width: width) {
                let rowWidth = widths[range].reduce(0, +)
                let isLast = range.upperBound == characters.count
                if (offset + range.lowerBound..<offset + range.upperBound).contains(line.cursor) {
                    cursor = (rows.count, widths[range.lowerBound..<line.cursor - offset].reduce(0, +))
                } else if isLast, line.cursor == offset + characters.count {
                    // At the end of a full row the cursor waits on the next one.
                    cursor = rowWidth >= width ? (rows.count + 1, 0) : (rows.count, rowWidth)
                }
                rows.append((glyphs[range].flatMap { $0 }, offset + range.lowerBound, offset + range.upperBound))
                if isLast, rowWidth >= width {
                    rows.append(([], offset + characters.count, offset + characters.count))
                }
            }
            offset += characters.count + 1
        }
        visualRows = rows
        self.cursor = cursor
        shownRows = min(EditorForm.notesRows, rows.count)
        top = focused ? max(0, cursor.row - shownRows + 1) : 0
    }

    /// Where one line of the notes breaks into rows of `width` columns: after the last space
    /// that fits, or, for a word longer than a row, inside it. An empty line is one empty row.
    static func wrap(_ characters: [Character], widths: [Int], width: Int) -> [Range<Int>] {
        var rows: [Range<Int>] = []
        var start = 0
        repeat {
            var end = start, used = 0
            while end < characters.count, used + widths[end] <= width || end == start {
                used += widths[end]
                end += 1
            }
            if end < characters.count, let space = characters[start..<end].lastIndex(where: \.isWhitespace),
                space > start
            {
                let wordEnd = characters[end...].firstIndex(where: \.isWhitespace) ?? characters.count
                // Only a word that a row of its own can hold moves down whole.
                if widths[(space + 1)..<wordEnd].reduce(0, +) <= width { end = space + 1 }
            }
            rows.append(start..<end)
            start = end
        } while start < characters.count
        return rows
    }

    /// The shown row the cursor is on, when it is shown.
    var cursorRow: Int { cursor.row - top }

    /// Draws shown row `index`; returns the cursor's column in it, if it is there.
    func draw(row index: Int, in canvas: inout Canvas, x: Int, y: Int, width: Int, style: Style) -> Int? {
        canvas.fill(Rect(x: x, y: y, width: width, height: 1), style: style)
        let row = visualRows[top + index]
        var column = 0
        for glyph in row.glyphs {
            canvas.draw([glyph], x: x + column, y: y, style: style, maxWidth: glyph.width)
            column += glyph.width
        }
        return cursor.row == top + index ? cursor.column : nil
    }

    /// "more ↑" or "more ↓" on the label column of a shown row, where rows are hidden.
    func marker(onRow index: Int) -> String? {
        let hiddenAbove = top > 0, hiddenBelow = top + shownRows < visualRows.count
        if index == 1, hiddenAbove { return shownRows == 2 && hiddenBelow ? "more ↕" : EditorForm.moreAbove }
        if index == shownRows - 1, hiddenBelow { return EditorForm.moreBelow }
        return nil
    }
}
