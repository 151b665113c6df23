import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

@MainActor
@Suite struct SearchScreenTests {
    @Test func typingAQueryShowsTheMatchesWithTheMatchedPartsHighlighted() async throws {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.type("hist rom")
        #expect(
            harness.lines == [
                " Bookshelf  alice (editor)  Memory test",
                "Search: hist rom",
                "───────────────────────────────────────────────────────────────────── 1–2 of 2 ─",
                " History of Rome                                     Theodor Mommsen",
                " A History of Rome                                   Mary Beard",
                "",
                "",
                "",
                "",
                "",
                "",
                " Enter edit · F1 help · F2 switch · Ctrl-Q quit",
            ])
        let screen = harness.screen
        // The selected first row: matched letters in the selected-match style, the rest reversed.
        #expect(screen.column(of: "History", row: 3) == 1)
        for x in 1...4 { #expect(screen[x, 3].style == Theme.selectedMatch, "cell \(x) of 'Hist'") }
        for x in 5...7 { #expect(screen[x, 3].style == Theme.selected, "cell \(x) of 'ory'") }
        for x in 12...14 { #expect(screen[x, 3].style == Theme.selectedMatch, "cell \(x) of 'Rom'") }
        #expect(screen[15, 3].style == Theme.selected)
        // An unselected row: matched letters highlighted, the rest plain.
        let second = try #require(screen.column(of: "History", row: 4))
        for x in second..<(second + 4) { #expect(screen[x, 4].style == Theme.match) }
        #expect(screen[second + 4, 4].style == .plain)
        #expect(screen[1, 4].style == .plain, "'A' is not part of any match")
        // The cursor sits after the query.
        #expect(screen.cursor == Position(x: 16, y: 1))
    }

    /// While a search runs after one the store answered without its index (it is building one),
    /// the status line says why the wait is long; otherwise it says only "Searching…".
    @Test func aSlowSearchWhileTheIndexIsBuiltIsExplainedOnTheStatusLine() async {
        let harness = AppHarness(columns: 120, rows: 12)
        await harness.start()
        var state = harness.model.state
        state.search.isBusy = true
        func statusLine() -> String {
            var canvas = Canvas(width: 120, height: 1)
            StatusLine.render(state, ui: UIState(), in: canvas.bounds, into: &canvas)
            return canvas.textLines()[0]
        }
        #expect(statusLine().hasPrefix(" | Searching… "), "\(statusLine())")
        #expect(!statusLine().contains("index"))
        state.search.answeredWhileIndexing = true
        #expect(
            statusLine().hasPrefix(
                " | Searching… (the search index is being built; until then a new word reads the whole catalog)"),
            "\(statusLine())")
        state.search.isBusy = false
        #expect(!statusLine().contains("Searching"))
    }

    @Test func aQueryOfOnlyPunctuationSaysItHasNoSearchableWords() async {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.type("...")
        #expect(harness.model.state.search.rows.isEmpty && harness.model.state.search.total == 0)
        #expect(harness.lines[2].hasSuffix(" no searchable words ─"), "\(harness.lines[2])")
        #expect(harness.lines[3].hasPrefix(" No books: no searchable words"), "\(harness.lines[3])")
    }

    @Test func readlineKeysEditTheQueryAndEveryChangeSearches() async {
        let harness = AppHarness()
        await harness.start()
        await harness.type("war peace")
        #expect(harness.model.state.search.query == "war peace")
        await harness.press(.ctrl("w"))
        #expect(harness.model.state.search.query == "war ")
        await harness.press(.ctrl("a"), .character("x"), .end, .character("y"))
        #expect(harness.model.state.search.query == "xwar y")
        await harness.press(.home, .delete, .right, .right, .right, .ctrl("k"))
        #expect(harness.model.state.search.query == "war")
        await harness.press(.left, .backspace)
        #expect(harness.model.state.search.query == "wr")
        #expect(harness.screen.cursor == Position(x: 9, y: 1))
        await harness.press(.ctrl("e"), .ctrl("u"))
        #expect(harness.model.state.search.query == "")
        #expect(harness.model.state.search.rows.count == 5, "the empty query lists every book")
    }

    @Test func theSelectionScrollsTheListAndTheCountFollows() async {
        let books = (1...40).map { (String(format: "Book %02d", $0), "") }
        let harness = AppHarness(columns: 60, rows: 12, books: books)
        await harness.start()
        #expect(harness.lines[2].hasSuffix(" 1–8 of 40 ─"))
        await harness.press(.down)
        #expect(harness.lines[3] == " Book 01", "the window moves only as far as needed")
        await harness.press(.pageDown)
        #expect(harness.model.state.search.selection == 9)
        #expect(harness.lines[3] == " Book 09", "a page moves the view by a whole page too")
        #expect(harness.lines[2].hasSuffix(" 9–16 of 40 ─"))
        await harness.press(.pageUp)
        #expect(harness.model.state.search.selection == 1)
        #expect(harness.lines[3] == " Book 01")
        // A click selects, a second click opens.
        await harness.press(.mouse(MouseEvent(.click, row: 5, column: 3)))
        #expect(harness.model.state.search.selection == 2)
        #expect(harness.model.state.editor == nil)
        await harness.press(.mouse(MouseEvent(.click, row: 5, column: 3)))
        #expect(harness.model.state.editor?.bookID == harness.model.state.search.rows[2].id)
    }

    /// A page shown before its count (`TotalCount.counting`) says so on the rule, with the
    /// matches found so far, until the count arrives; rows of an older query never say it.
    @Test func aPageShownBeforeItsCountSaysTheCountIsComing() async {
        let harness = AppHarness(columns: 60, rows: 12)
        await harness.start()
        var state = harness.model.state
        func rule() -> String {
            var canvas = Canvas(width: 60, height: 12)
            Screen.render(
                state, ui: UIState(), store: StoreInfo(kind: "SQLite", location: "books.sqlite"), into: &canvas)
            return canvas.textLines()[2]
        }
        state.search.totalCount = .counting(atLeast: 57)
        state.search.total = 57
        #expect(rule().hasSuffix(" 1–5 of 57+, counting… ─"), "\(rule())")
        state.search.query = "x"
        #expect(!rule().contains("counting"), "\(rule())")
        state.search.query = state.search.rowsQuery
        state.search.totalCount = .exact(57)
        #expect(rule().hasSuffix(" 1–5 of 57 ─"), "\(rule())")
    }

    /// Issue 43, item 10: the header counts the account's books exactly (203,010) while the
    /// store estimates the matches of the query that lists them all ("about 200,000"). Listing
    /// every book, the rule says the header's number; a query with words keeps its estimate.
    @Test func theRuleListingEveryBookSaysTheHeadersExactCount() async {
        let harness = AppHarness(columns: 100, rows: 12)
        await harness.start()
        var state = harness.model.state
        let ui = UIState()
        state.search.accountBooks = 203_010
        func lines() -> [String] {
            var canvas = Canvas(width: 100, height: 12)
            Screen.render(state, ui: ui, store: StoreInfo(kind: "PostgreSQL", location: "books"), into: &canvas)
            return canvas.textLines()
        }
        state.search.totalCount = .about(200_000)
        state.search.total = 200_000
        #expect(lines()[0].contains("203,010 books"), "\(lines()[0])")
        #expect(lines()[2].hasSuffix(" 1–5 of 203,010 ─"), "\(lines()[2])")
        // No count of this session's books (another account's is dropped at the switch): the estimate.
        state.search.accountBooks = nil
        #expect(lines()[2].hasSuffix(" 1–5 of about 200,000 ─"), "\(lines()[2])")
        state.search.accountBooks = 203_010
        state.search.query = "rome"
        state.search.rowsQuery = "rome"
        #expect(lines()[2].hasSuffix(" 1–5 of about 200,000 ─"), "\(lines()[2])")
    }

    @Test func theWheelScrollsTheViewAndTheSelectionStaysOnItsBookWhileItIsVisible() async {
        let books = (1...40).map { (String(format: "Book %02d", $0), "") }
        let harness = AppHarness(columns: 60, rows: 12, books: books)
        await harness.start()
        await harness.press(.down, .down, .down, .down)
        await harness.press(.mouse(MouseEvent(.wheelDown, row: 5, column: 3)))
        #expect(harness.lines[3] == " Book 04", "the view scrolled three rows")
        #expect(harness.model.state.search.selection == 4, "Book 05 is still in view and still selected")
        await harness.press(.mouse(MouseEvent(.wheelDown, row: 5, column: 3)))
        #expect(harness.lines[3] == " Book 07")
        #expect(harness.model.state.search.selection == 6, "the selection stays at the top edge, in view")
        await harness.press(
            .mouse(MouseEvent(.wheelUp, row: 5, column: 3)), .mouse(MouseEvent(.wheelUp, row: 5, column: 3)))
        #expect(harness.lines[3] == " Book 01")
        #expect(harness.model.state.search.selection == 6)
    }

    @Test func aTallScreenLoadsEnoughRowsToFillTheList() async {
        let books = (1...300).map { (String(format: "Book %03d", $0), "") }
        let harness = AppHarness(columns: 250, rows: 60, books: books)
        await harness.start()
        let height = harness.app.layout.list.height
        #expect(height == 56)
        #expect(harness.model.state.search.rows.count >= height)
        #expect(
            harness.lines[3 + height - 1].hasPrefix(" Book 056"),
            "the last list row is filled: \(harness.lines[3 + height - 1])")
        #expect(harness.lines[2].contains(" 1–56 of 300 "))
        #expect(ScreenLayout.pageSize(forRows: 60) >= 60 && ScreenLayout.pageSize(forRows: 10) == 50)
    }

    @Test func pageDownMovesAWholePageAcrossPageLoads() async {
        let books = (1...100).map { (String(format: "Book %03d", $0), "") }
        let harness = AppHarness(columns: 60, rows: 12, books: books, pageSize: 10)
        await harness.start()
        #expect(harness.app.layout.list.height == 8)
        #expect(harness.model.state.search.rows.count == 10)
        // The first PgDn starts loading the next page; the second comes while it loads.
        harness.app.handle(.key(.pageDown))
        #expect(harness.model.state.search.isLoadingMore)
        harness.app.handle(.key(.pageDown))
        await harness.settle()
        #expect(harness.model.state.search.selection == 16, "two whole pages down, not one page and one row")
        #expect(harness.lines[3] == " Book 017")
        #expect(harness.lines[2].hasSuffix(" 17–24 of 100 ─"))
        // Past the loaded rows in one press: the page loads and the move completes.
        for _ in 0..<3 { harness.app.handle(.key(.pageDown)) }
        await harness.settle()
        #expect(harness.model.state.search.selection == 40)
        #expect(harness.lines[3] == " Book 041")
        await harness.press(.pageUp, .pageUp)
        #expect(harness.model.state.search.selection == 24)
        #expect(harness.lines[3] == " Book 025")
        // At the end, PgDn stops on the last book.
        for _ in 0..<20 { harness.app.handle(.key(.pageDown)) }
        await harness.settle()
        #expect(harness.model.state.search.selection == 99)
        #expect(harness.lines[10] == " Book 100")
    }

    @Test func aTitleFullOfControlCharactersIsDrawnAsVisiblePlaceholders() async {
        let evil = "Evil\u{1B}[31mRed\u{1B}]0;owned\u{07}\u{08}\u{7F}\u{9B}2J\u{202E}txet"
        let harness = AppHarness(columns: 70, rows: 10, books: [(evil, "Bad\u{1B}[2JGuy")])
        await harness.start()
        let screen = harness.screen
        let row = harness.lines[3]
        #expect(row.hasPrefix(" Evil␛[31mRed␛]0;owned␇␈␡�2J�txet"), "\(row)")
        #expect(row.hasSuffix("Bad␛[2JGuy"))
        for y in 0..<screen.height {
            for x in 0..<screen.width {
                #expect(!screen[x, y].symbol.unicodeScalars.contains { BookValidation.isControl($0) }, "cell \(x),\(y)")
            }
        }
    }

    @Test func wideCharactersAtTheRightEdgeAreNeverCutInHalf() async {
        let title = "日本の歴史と文化についての長い物語日本の歴史と文化"
        let harness = AppHarness(columns: 41, rows: 10, books: [(title, ""), ("短い", "")])
        await harness.start()
        let screen = harness.screen
        for y in 0..<screen.height {
            #expect(TextLayout.width(harness.screen.textLines()[y]) == 41, "row \(y) is exactly the terminal's width")
        }
        // 1 space of margin, then 19 wide glyphs (38 columns), then the ellipsis in the 40th,
        // and one column left over that a wide glyph cannot fill.
        #expect(harness.lines[3] == " 日本の歴史と文化についての長い物語日本…", "\(harness.lines[3])")
        #expect(harness.lines[4] == " 短い")
        #expect(harness.screen[39, 3].symbol == "…" && harness.screen[40, 3].symbol == " ")
    }

    @Test func aTinyTerminalSaysSoAndRecoversOnResize() async {
        let harness = AppHarness(columns: 20, rows: 6)
        await harness.start()
        let text = harness.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(
            separator: " ")
        #expect(text == "Terminal too small: 20x6, needs 40x10. Resize it, or Ctrl-Q to quit.")
        // Typing does nothing while too small; a resize brings the screen back.
        await harness.type("rome")
        #expect(harness.model.state.search.query == "")
        harness.resize(columns: 60, rows: 12)
        #expect(harness.lines[1] == "Search:")
        #expect(harness.lines[3] == " A History of Rome                     Mary Beard")
        await harness.press(.ctrl("q"))
        #expect(harness.quitCount == 1)
    }

    /// An open editor with an unsaved change, then the terminal shrinks to `columns`x`rows`.
    func unsavedDraftOnATinyScreen(columns: Int, rows: Int) async -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 24)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        await harness.type("!")
        harness.resize(columns: columns, rows: rows)
        return harness
    }

    @Test func onATinyScreenTheQuitQuestionIsDrawnBeforeItIsAnswered() async {
        let harness = await unsavedDraftOnATinyScreen(columns: 30, rows: 8)
        await harness.press(.ctrl("q"))
        let text = harness.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(
            text == [
                "Discard your unsaved changes", "and quit?", "y yes, discard · n no, keep", "editing",
                "Terminal too small: 30x8,", "needs 40x10.",
            ], "\(harness.text)")
        await harness.press(.character("n"))
        #expect(harness.quitCount == 0 && harness.model.state.editor?.draft.title == "History of Rome!")
        await harness.press(.ctrl("q"), .character("y"))
        #expect(harness.quitCount == 1)
    }

    @Test func aQuestionThatCannotBeDrawnIsNotAnsweredYes() async {
        let harness = await unsavedDraftOnATinyScreen(columns: 12, rows: 3)
        await harness.press(.ctrl("q"))
        #expect(!harness.text.contains("Discard"), "too small for the question: \(harness.text)")
        await harness.press(.character("y"))
        await harness.press(.enter)
        #expect(harness.quitCount == 0, "yes to an unseen question does nothing")
        #expect(harness.model.state.editor?.draft.title == "History of Rome!")
        // Once the question can be seen, it can be answered.
        harness.resize(columns: 30, rows: 8)
        #expect(harness.text.contains("Discard your unsaved changes"))
        await harness.press(.character("y"))
        #expect(harness.quitCount == 1)
    }

    @Test func escClearsTheQueryAndQuestionMarkOpensHelpOnlyWhenItIsEmpty() async {
        let harness = AppHarness()
        await harness.start()
        await harness.type("rome?")
        #expect(harness.model.state.search.query == "rome?")
        #expect(harness.app.ui.overlay == nil)
        await harness.press(.escape)
        #expect(harness.model.state.search.query == "")
        await harness.type("?")
        #expect(harness.app.ui.overlay == .help(scroll: 0))
    }
}
