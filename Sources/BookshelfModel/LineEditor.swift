import BookCatalog

/// One line of editable text and a cursor, with the readline keys a terminal user expects.
/// The model owns every line being edited (the query, the draft's fields): the UI draws it
/// and sends edits as intents, so there is no second copy to keep in step.
/// The cursor counts characters (grapheme clusters), so it can never sit inside an emoji or
/// between a letter and its accent. Text of several lines (notes: "\n" between them) is edited
/// the same way: the line keys (Home, Ctrl-U, the word keys…) act inside the cursor's line,
/// and Up and Down move between lines.
public struct LineEditor: Equatable, Sendable {
    public private(set) var text: String
    /// Characters before the cursor, 0...text.count.
    public private(set) var cursor: Int

    public init(_ text: String = "", cursor: Int? = nil) {
        self.text = text
        self.cursor = min(max(0, cursor ?? text.count), text.count)
    }

    /// An edit the line understands.
    public enum Edit: Equatable, Sendable {
        case insert(String)
        case backspace, deleteForward
        case left, right, home, end
        /// Ctrl-U: delete from the start of the line to the cursor.
        case deleteToStart
        /// Ctrl-K: delete from the cursor to the end of the line.
        case deleteToEnd
        /// Ctrl-W: delete the word before the cursor (and the spaces after it); words are
        /// separated by whitespace.
        case deleteWordBackward
        /// Alt-B, Ctrl-Left: to the start of this or the previous word. Words here (as in
        /// readline's Alt keys) are runs of letters and digits.
        case wordLeft
        /// Alt-F, Ctrl-Right: to the end of this or the next word.
        case wordRight
        /// Alt-D: delete to the end of this or the next word.
        case deleteWordForward
        /// Alt-Backspace: delete to the start of this or the previous word.
        case deleteAlphanumericWordBackward
        /// Up, Down: to the line above or below, at the same column or its end (nothing on
        /// the first or last line).
        case lineUp, lineDown
    }

    /// The cursor's line: where it starts and ends in `characters` (the "\n"s around it excluded).
    private static func lineBounds(at position: Int, in characters: [Character]) -> Range<Int> {
        var start = position, end = position
        while start > 0, characters[start - 1] != "\n" { start -= 1 }
        while end < characters.count, characters[end] != "\n" { end += 1 }
        return start..<end
    }

    /// Applies `edit`; returns whether the text changed (the cursor may move either way).
    @discardableResult
    public mutating func apply(_ edit: Edit) -> Bool {
        var characters = Array(text)
        let before = text
        let line = Self.lineBounds(at: cursor, in: characters)
        switch edit {
        case let .insert(inserted):
            let new = Array(inserted)
            characters.insert(contentsOf: new, at: cursor)
            cursor += new.count
        case .backspace:
            guard cursor > 0 else { return false }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .deleteForward:
            guard cursor < characters.count else { return false }
            characters.remove(at: cursor)
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = line.lowerBound
        case .end: cursor = line.upperBound
        case .deleteToStart:
            characters.removeSubrange(line.lowerBound..<cursor)
            cursor = line.lowerBound
        case .deleteToEnd:
            characters.removeSubrange(cursor..<line.upperBound)
        case .deleteWordBackward:
            var start = cursor
            while start > line.lowerBound, characters[start - 1].isWhitespace { start -= 1 }
            while start > line.lowerBound, !characters[start - 1].isWhitespace { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .wordLeft:
            cursor = Self.wordStart(before: cursor, in: characters, from: line.lowerBound)
        case .wordRight:
            cursor = Self.wordEnd(after: cursor, in: characters, to: line.upperBound)
        case .deleteWordForward:
            characters.removeSubrange(cursor..<Self.wordEnd(after: cursor, in: characters, to: line.upperBound))
        case .deleteAlphanumericWordBackward:
            let start = Self.wordStart(before: cursor, in: characters, from: line.lowerBound)
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .lineUp:
            guard line.lowerBound > 0 else { return false }
            let above = Self.lineBounds(at: line.lowerBound - 1, in: characters)
            cursor = min(above.lowerBound + cursor - line.lowerBound, above.upperBound)
        case .lineDown:
            guard line.upperBound < characters.count else { return false }
            let below = Self.lineBounds(at: line.upperBound + 1, in: characters)
            cursor = min(below.lowerBound + cursor - line.lowerBound, below.upperBound)
        }
        // Joining can merge clusters (a combining mark typed after a letter): keep the
        // cursor in range of what the string now holds.
        text = String(characters)
        cursor = min(cursor, text.count)
        return text != before
    }

    static func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    static func wordStart(before position: Int, in characters: [Character], from start: Int = 0) -> Int {
        var index = position
        while index > start, !isWordCharacter(characters[index - 1]) { index -= 1 }
        while index > start, isWordCharacter(characters[index - 1]) { index -= 1 }
        return index
    }

    static func wordEnd(after position: Int, in characters: [Character], to end: Int? = nil) -> Int {
        let end = end ?? characters.count
        var index = position
        while index < end, !isWordCharacter(characters[index]) { index += 1 }
        while index < end, isWordCharacter(characters[index]) { index += 1 }
        return index
    }

    /// Pasted text as one line of text: each line break (CR LF, CR or LF) and tab becomes a
    /// space, other control characters and escape sequences' Esc are dropped. Nothing in it
    /// can act as a key.
    public static func pastedText(_ raw: String) -> String { pasted(raw, lineBreak: " ") }

    /// Pasted text as lines, for a field of several lines (notes): each line break (CR LF, CR
    /// or LF) becomes "\n" and stays a line break, a tab becomes a space, other control
    /// characters and escape sequences' Esc are dropped.
    public static func pastedLines(_ raw: String) -> String { pasted(raw, lineBreak: "\n") }

    private static func pasted(_ raw: String, lineBreak: Unicode.Scalar) -> String {
        var result = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in raw.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCarriageReturn: continue
            case "\r", "\n": result.append(lineBreak)
            case "\t": result.append(" ")
            default:
                if BookValidation.isControl(scalar) { continue }
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The cursor's line (from 0) and column (characters from the line's start), for drawing it.
    public var cursorLineAndColumn: (line: Int, column: Int) {
        let before = text.prefix(cursor)
        let line = before.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        let column =
            before.count
            - (before.lastIndex(of: "\n").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0)
        return (line, column)
    }

    /// Inserts `text` at the cursor, keeping the line within `limit` characters; returns
    /// whether the text had to be cut.
    public mutating func insert(_ text: String, limit: Int) -> (changed: Bool, cut: Bool) {
        let room = max(0, limit - self.text.count)
        let kept = text.count > room ? String(text.prefix(room)) : text
        let changed = kept.isEmpty ? false : apply(.insert(kept))
        return (changed, kept.count < text.count)
    }

    /// The owner put other text in the line (a reload, a merge, a newly opened record, a
    /// query cleared): the cursor goes to its end. The same text keeps its cursor.
    public mutating func replaceText(_ new: String) {
        guard new != text else { return }
        text = new
        cursor = new.count
    }

    /// The text before the cursor, for measuring the column the cursor is drawn at.
    public var textBeforeCursor: String { String(text.prefix(cursor)) }
}
