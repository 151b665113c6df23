import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The editor's form: every field in order, Tab and Shift-Tab through them, the notes as a
/// text area, problems beside their field, and on a short pane a form that scrolls and says so.
@MainActor
@Suite struct EditorFormTests {
    static let details = BookDetails(
        isbn: "9780140449082", year: 1854, publisher: "Weidmann", series: "Römische Geschichte",
        seriesIndex: SeriesIndex(thousandths: 1000), tags: ["history", "rome"], notes: "first line\nsecond line")

    /// Mommsen's book (#2) with every field filled, open in the editor.
    func openMommsen(columns: Int, rows: Int, details: BookDetails = details) async -> AppHarness {
        let harness = AppHarness(columns: columns, rows: rows)
        harness.catalog.put(
            BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Theodor Mommsen", details: details),
            scope: "main")
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        return harness
    }

    /// Rows `rows` of the screen from column `x` on.
    func pane(_ harness: AppHarness, x: Int, rows: ClosedRange<Int>) -> [String] {
        rows.map { String(harness.lines[$0].dropFirst(x)) }
    }

    @Test func onAWideScreenEveryFieldShowsInOrder() async {
        let harness = await openMommsen(columns: 120, rows: 40)
        // The pane is 48 columns wide from column 72.
        #expect(
            pane(harness, x: 72, rows: 3...15) == [
                " Edit book #2 · revision 1",
                " Title     History of Rome",
                " Author    Theodor Mommsen",
                " ISBN      9780140449082",
                " Year      1854",
                " Publisher Weidmann",
                " Series    Römische Geschichte",
                " Series #  1",
                " Tags      history, rome",
                " Notes     first line",
                "           second line",
                "",
                " Tab next field · Enter save · Esc close",
            ], "\(harness.text)")
        #expect(harness.screen.cursor == Position(x: 72 + 11 + 15, y: 4))
    }

    @Test func tabAndShiftTabGoThroughEveryFieldInOrder() async {
        let harness = await openMommsen(columns: 80, rows: 24)
        var visited: [EditorField] = []
        for _ in 0..<9 {
            await harness.press(.tab)
            visited.append(harness.model.state.editor!.focus)
        }
        #expect(visited == [.author, .isbn, .year, .publisher, .series, .seriesIndex, .tags, .notes, .title])
        visited = []
        for _ in 0..<9 {
            await harness.press(.backTab)
            visited.append(harness.model.state.editor!.focus)
        }
        #expect(visited == [.notes, .tags, .seriesIndex, .series, .publisher, .year, .isbn, .author, .title])
        // The cursor is drawn in the focused field: the year's row, after "1854".
        await harness.press(.tab, .tab, .tab)
        #expect(harness.screen.cursor == Position(x: 11 + 4, y: 7))
    }

    @Test func theNotesWrapScrollAndSayWhatIsHidden() async {
        let harness = await openMommsen(columns: 80, rows: 24, details: .empty)
        await harness.press(.backTab)
        for line in 1...8 {
            if line > 1 { await harness.press(.enter) }
            await harness.type("line \(line)")
        }
        #expect(harness.model.state.editor?.draft.notes == (1...8).map { "line \($0)" }.joined(separator: "\n"))
        // Six rows of notes, the cursor's last: lines 1 and 2 are hidden above.
        #expect(
            pane(harness, x: 0, rows: 12...17) == [
                " Notes     line 3", " more ↑    line 4", "           line 5", "           line 6",
                "           line 7", "           line 8",
            ], "\(harness.text)")
        #expect(harness.screen.cursor == Position(x: 11 + 6, y: 17))
        #expect(harness.lines[19] == " Tab next field · Enter new line · Ctrl-S save · Esc close")
        #expect(harness.lines[23] == " Tab field · Enter line · Ctrl-S save · Esc close · F1 help")
        for _ in 0..<7 { await harness.press(.up) }
        #expect(
            pane(harness, x: 0, rows: 12...17) == [
                " Notes     line 1", "           line 2", "           line 3", "           line 4",
                "           line 5", " more ↓    line 6",
            ], "\(harness.text)")
        #expect(harness.screen.cursor == Position(x: 11 + 6, y: 12))
        // A line longer than the field's 68 columns wraps after the last word that fits (a
        // word longer than a row is cut); the cursor follows it.
        await harness.press(.end)
        await harness.type(" spills over the edge of the notes so the rest of this sentence wraps")
        #expect(
            pane(harness, x: 0, rows: 12...14) == [
                " Notes     line 1 spills over the edge of the notes so the rest of this",
                "           sentence wraps", "           line 2",
            ], "\(harness.text)")
        #expect(harness.screen.cursor == Position(x: 11 + 14, y: 13))
        await harness.press(.down, .end)
        await harness.type(String(repeating: "x", count: 70))
        #expect(
            pane(harness, x: 0, rows: 14...15) == [
                "           line 2" + String(repeating: "x", count: 62), "           xxxxxxxx",
            ], "\(harness.text)")
    }

    @Test func aPasteIntoTheNotesKeepsItsLinesAndIntoAFieldJoinsThem() async {
        let harness = await openMommsen(columns: 80, rows: 24, details: .empty)
        await harness.press(.tab, .tab, .tab, .tab)  // the publisher
        await harness.press(.paste("Weidmann\r\nLeipzig"))
        #expect(harness.model.state.editor?.draft.publisher == "Weidmann Leipzig")
        await harness.press(.backTab, .backTab, .backTab, .backTab, .backTab)  // the notes
        await harness.press(.paste("one\r\ntwo\rthree\n"))
        #expect(harness.model.state.editor?.draft.notes == "one\ntwo\nthree\n")
        #expect(pane(harness, x: 0, rows: 12...15) == [" Notes     one", "           two", "           three", ""])
        #expect(harness.screen.cursor == Position(x: 11, y: 15), "on the new last line")
    }

    @Test func aFieldsProblemShowsBesideItAndTheDraftIsKept() async throws {
        let harness = await openMommsen(columns: 80, rows: 24)
        await harness.press(.tab, .tab, .end)  // the ISBN
        await harness.press(.backspace)
        await harness.type("3")
        await harness.press(.enter)
        // The message without "ISBN: ", which its place says.
        let beside = String(repeating: " ", count: 11)
        #expect(harness.lines[6] == " ISBN      9780140449083")
        #expect(
            harness.lines[7] == beside + "Its check digit is wrong: a digit was mistyped or two were swapped.",
            "\(harness.text)")
        #expect(harness.lines[8] == " Year      1854", "the fields below make room")
        #expect(harness.lines.last?.hasPrefix(" Fix the problems shown before saving.") == true)
        #expect(harness.model.state.editor?.draft.isbn == "9780140449083")
        #expect(try await harness.otherEditor().load(id: 2).revision == 1, "nothing saved")
    }

    @Test func aSaveWritesEveryFieldTyped() async throws {
        let harness = await openMommsen(columns: 80, rows: 24, details: .empty)
        await harness.press(.tab, .tab)
        for text in ["0-14-044908-6", "1854", "Weidmann", "Römische Geschichte", "1", "rome, History"] {
            await harness.type(text)
            await harness.press(.tab)
        }
        await harness.type("one")
        await harness.press(.enter)
        await harness.type("two")
        await harness.press(.ctrl("s"))
        #expect(harness.model.state.editor?.outcome == .saved(revision: 2), "\(harness.text)")
        let saved = try await harness.otherEditor().load(id: 2)
        #expect(
            saved.details
                == BookDetails(
                    isbn: "9780140449082", year: 1854, publisher: "Weidmann", series: "Römische Geschichte",
                    seriesIndex: SeriesIndex(thousandths: 1000), tags: ["History", "rome"], notes: "one\ntwo"))
    }

    @Test func onAShortPaneTheFormScrollsAndSaysThereIsMore() async {
        let harness = await openMommsen(columns: 40, rows: 10)
        // Six rows of pane: the heading, three for the form, a blank row and the keys.
        #expect(
            pane(harness, x: 0, rows: 3...6) == [
                " Edit book #2 · revision 1", " Title     History of Rome", " Author    Theodor Mommsen", " more ↓",
            ], "\(harness.text)")
        await harness.press(.backTab)
        // The cursor is at the end of the notes, on their second line: the fields above scroll away.
        #expect(
            pane(harness, x: 0, rows: 3...6) == [
                " Edit book #2 · revision 1", " more ↑", " Notes     first line", "           second line",
            ], "\(harness.text)")
        #expect(harness.screen.cursor == Position(x: 11 + 11, y: 6))
        await harness.press(.up)
        #expect(harness.screen.cursor == Position(x: 11 + 10, y: 5))
        await harness.press(.backTab)
        // The tags alone fit between the two signs.
        #expect(
            pane(harness, x: 0, rows: 3...6) == [
                " Edit book #2 · revision 1", " more ↑", " Tags      history, rome", " more ↓",
            ], "\(harness.text)")
        await harness.press(.tab, .tab)
        #expect(harness.model.state.editor?.focus == .title)
        #expect(harness.lines[4] == " Title     History of Rome")
    }

    @Test func notesBothChangedOnTheSameLineAreAConflictShownAsBaseTheirsYours() async throws {
        let harness = await openMommsen(
            columns: 80, rows: 24, details: BookDetails(tags: ["rome"], notes: "one\ntwo\nthree"))
        _ = try await harness.otherEditor().save(
            SaveRequest(
                id: 2, title: "History of Rome", author: "Theodor Mommsen",
                details: BookDetails(tags: ["rome"], notes: "one\nTWO (bob)\nthree"), expectedRevision: 1))
        // The second line, mine now.
        await harness.press(.backTab, .up, .ctrl("u"))
        await harness.type("mine")
        await harness.press(.ctrl("s"))
        #expect(harness.model.state.editor?.conflict?.fields.map(\.field) == [.notes], "\(harness.text)")
        let row = try #require(harness.screen.row(containing: "Both changed the notes:"), "\(harness.text)")
        #expect(
            harness.lines[(row + 1)...(row + 3)] == [
                " Base:   one ↵ two ↵ three", " Theirs: one ↵ TWO (bob) ↵ three", " Yours:  one ↵ mine ↵ three",
            ], "\(harness.text)")
        #expect(harness.model.state.editor?.draft.notes == "one\nmine\nthree", "the draft is kept")
        #expect(try await harness.otherEditor().load(id: 2).revision == 2, "nothing more saved")
    }

    @Test func theDetailPaneShowsTheFieldsOfTheSelectedBook() async {
        let harness = AppHarness(columns: 120, rows: 20)
        harness.catalog.put(
            BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Theodor Mommsen", details: Self.details),
            scope: "main")
        await harness.start()
        await harness.type("mommsen")
        #expect(
            pane(harness, x: 72, rows: 3...9) == [
                " History of Rome", " by Theodor Mommsen", " #2 · revision 1 · Enter to edit",
                " ISBN 9780140449082 · 1854 · Weidmann", " Series Römische Geschichte #1", " Tags history, rome",
                " Notes first line …",
            ], "\(harness.text)")
    }

    /// A book found by its series or a tag shows why: what the query matched in those fields is
    /// highlighted in the detail pane, as in the rows, each tag on its own.
    @Test func theDetailPaneHighlightsWhatTheQueryMatchedInTheOtherFields() async throws {
        let harness = AppHarness(columns: 120, rows: 20)
        harness.catalog.put(
            BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Theodor Mommsen", details: Self.details),
            scope: "main")
        await harness.start()
        await harness.type("römisch weid")
        let screen = harness.screen
        let series = try #require(screen.column(of: "Römische", row: 7))
        for x in series..<(series + 7) { #expect(screen[x, 7].style == Theme.match, "cell \(x) of 'Römisch'") }
        #expect(screen[series + 7, 7].style == .plain, "'e' is past the match")
        let publisher = try #require(screen.column(of: "Weidmann", row: 6))
        for x in publisher..<(publisher + 4) { #expect(screen[x, 6].style == Theme.match) }
        #expect(screen[publisher + 4, 6].style == .plain)

        await harness.press(.ctrl("u"))
        await harness.type("9780140449082")
        let isbn = try #require(harness.screen.column(of: "9780140449082", row: 6))
        #expect(harness.screen[isbn, 6].style == Theme.match, "the ISBN the query names")
        #expect(harness.screen[isbn + 12, 6].style == Theme.match)
    }
}
