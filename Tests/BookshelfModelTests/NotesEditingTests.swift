import BookCatalog
import Testing
@testable import BookshelfModel

/// The line keys in text of several lines (the notes): they act inside the cursor's line,
/// and Up and Down move between lines at the same column, or the line's end.
@Suite struct NotesEditingTests {
    /// "alpha beta" / "gamma delta epsilon" / "z", the cursor after "gamma de" (8 into line 2).
    static let text = "alpha beta\ngamma delta epsilon\nz"
    static let cursor = 11 + 8

    struct Case: CustomStringConvertible, Sendable {
        let edit: LineEditor.Edit
        let text: String
        let cursor: Int
        var description: String { "\(edit)" }
    }

    static let cases: [Case] = [
        Case(edit: .home, text: text, cursor: 11),
        Case(edit: .end, text: text, cursor: 11 + 19),
        Case(edit: .deleteToStart, text: "alpha beta\nlta epsilon\nz", cursor: 11),
        Case(edit: .deleteToEnd, text: "alpha beta\ngamma de\nz", cursor: 19),
        Case(edit: .deleteWordBackward, text: "alpha beta\ngamma lta epsilon\nz", cursor: 11 + 6),
        Case(edit: .wordLeft, text: text, cursor: 11 + 6),
        Case(edit: .wordRight, text: text, cursor: 11 + 11),
        Case(edit: .deleteWordForward, text: "alpha beta\ngamma de epsilon\nz", cursor: 19),
        Case(edit: .deleteAlphanumericWordBackward, text: "alpha beta\ngamma lta epsilon\nz", cursor: 11 + 6),
        // Up: column 8 of "alpha beta". Down: "z" is shorter, so its end.
        Case(edit: .lineUp, text: text, cursor: 8),
        Case(edit: .lineDown, text: text, cursor: 11 + 20 + 1),
        Case(edit: .insert("\n"), text: "alpha beta\ngamma de\nlta epsilon\nz", cursor: 11 + 9),
    ]

    @Test(arguments: cases)
    func aLineKeyActsInsideTheCursorsLine(_ expected: Case) {
        var line = LineEditor(Self.text, cursor: Self.cursor)
        line.apply(expected.edit)
        #expect(line.text == expected.text && line.cursor == expected.cursor)
    }

    @Test func theWordKeysStopAtTheLinesEdges() {
        var line = LineEditor("one\ntwo", cursor: 4)  // the start of "two"
        line.apply(.deleteWordBackward)
        line.apply(.wordLeft)
        line.apply(.deleteToStart)
        #expect(line.text == "one\ntwo" && line.cursor == 4)
        var end = LineEditor("one\ntwo", cursor: 3)  // the end of "one"
        end.apply(.wordRight)
        end.apply(.deleteWordForward)
        end.apply(.deleteToEnd)
        #expect(end.text == "one\ntwo" && end.cursor == 3)
    }

    @Test func backspaceAtALinesStartJoinsItToTheLineAbove() {
        var line = LineEditor("one\ntwo", cursor: 4)
        line.apply(.backspace)
        #expect(line.text == "onetwo" && line.cursor == 3)
    }

    @Test func upOnTheFirstLineAndDownOnTheLastStay() {
        var first = LineEditor("one\ntwo", cursor: 2)
        #expect(first.apply(.lineUp) == false && first.cursor == 2)
        var last = LineEditor("one\ntwo", cursor: 6)
        #expect(last.apply(.lineDown) == false && last.cursor == 6)
    }

    @Test func pastedLinesKeepTheirBreaksAndDropControlCharacters() {
        #expect(LineEditor.pastedLines("a\r\nb\rc\nd\te\u{1B}[31m") == "a\nb\nc\nd e[31m")
        #expect(LineEditor.pastedText("a\r\nb") == "a b", "a one-line field still joins them")
    }
}
