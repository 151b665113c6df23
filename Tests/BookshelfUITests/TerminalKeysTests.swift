import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

@Suite struct WordEditingTests {
    /// "one two-three  four": words (letters and digits) start at 0, 4, 8 and 15.
    @Test func altAndCtrlWordMovesStopAtLettersAndDigits() {
        var line = LineEditor("one two-three  four")
        line.apply(.wordLeft)
        #expect(line.cursor == 15)
        line.apply(.wordLeft)
        #expect(line.cursor == 8, "the hyphen separates words")
        line.apply(.wordLeft)
        #expect(line.cursor == 4)
        line.apply(.wordRight)
        #expect(line.cursor == 7, "to the end of this word")
        line.apply(.wordRight)
        #expect(line.cursor == 13)
        line.apply(.wordRight)
        line.apply(.wordRight)
        #expect(line.cursor == 19, "stops at the end of the line")
        line.apply(.home)
        line.apply(.wordLeft)
        #expect(line.cursor == 0, "stops at the start")
    }

    @Test func altDAndAltBackspaceDeleteWordsButCtrlWDeletesToWhitespace() {
        var line = LineEditor("one two-three  four", cursor: 13)
        let deletedForward = line.apply(.deleteWordForward)
        #expect(deletedForward)
        #expect(line.text == "one two-three" && line.cursor == 13, "Alt-D takes the spaces and the next word")
        let deletedBackward = line.apply(.deleteAlphanumericWordBackward)
        #expect(deletedBackward)
        #expect(line.text == "one two-" && line.cursor == 8, "Alt-Backspace stops at the hyphen")
        line = LineEditor("one two-three")
        line.apply(.deleteWordBackward)
        #expect(line.text == "one ", "Ctrl-W deletes back to whitespace")
        line = LineEditor("日本 語😀", cursor: 0)
        line.apply(.wordRight)
        #expect(line.cursor == 2, "CJK letters are word characters; the cursor counts characters")
        line.apply(.end)
        line.apply(.wordLeft)
        #expect(line.cursor == 3)
    }

    @Test func pastedTextIsOneLineOfPlainText() {
        #expect(LineEditor.pastedText("two\nlines") == "two lines")
        #expect(LineEditor.pastedText("two\rlines") == "two lines", "tmux turns pasted LF into CR")
        #expect(LineEditor.pastedText("a\r\nb\tc") == "a b c", "CR LF is one line break")
        #expect(LineEditor.pastedText("\u{1B}[1~x\u{07}\u{7F}\u{9B}y") == "[1~xy", "control characters are dropped")
        #expect(LineEditor.pastedText("evil\u{202E}txt") == "eviltxt", "bidi overrides are dropped")
        #expect(LineEditor.pastedText("Café 日本 👩‍👩‍👧") == "Café 日本 👩‍👩‍👧")
    }

    @Test func insertingStopsAtTheLimit() {
        var line = LineEditor("abc", cursor: 1)
        let result = line.insert("XYZW", limit: 5)
        #expect(line.text == "aXYbc" && line.cursor == 3)
        #expect(result.changed && result.cut)
        let full = line.insert("Q", limit: 5)
        #expect(!full.changed && full.cut && line.text == "aXYbc")
        let fits = line.insert("", limit: 5)
        #expect(!fits.changed && !fits.cut)
    }
}

@MainActor
@Suite struct TerminalKeysTests {
    @Test func wordKeysWorkInTheSearchLine() async {
        let harness = AppHarness()
        await harness.start()
        await harness.type("history of rome")
        await harness.press(.modified(.character("b"), .alt))
        await harness.type("X")
        #expect(harness.model.state.search.query == "history of Xrome")
        await harness.press(.modified(.left, .ctrl), .modified(.left, .ctrl))
        await harness.press(.modified(.character("d"), .alt))
        #expect(harness.model.state.search.query == "history  Xrome")
        await harness.press(.modified(.right, .ctrl), .modified(.left, .ctrl), .modified(.backspace, .alt))
        #expect(harness.model.state.search.query == "Xrome")
        await harness.press(.modified(.character("F"), .alt), .modified(.character("B"), .alt))
        await harness.type("A ")
        #expect(harness.model.state.search.query == "A Xrome")
    }

    @Test func unboundModifiedKeysAreNeverText() async {
        let harness = AppHarness()
        await harness.start()
        await harness.type("rome")
        await harness.press(.modified(.character("x"), .alt), .modified(.up, .ctrl), .modified(.function(1), .alt))
        #expect(harness.model.state.search.query == "rome")
        #expect(harness.app.ui.overlay == nil)
        await harness.press(.modified(.home, .shift))
        await harness.type("a ")
        #expect(harness.model.state.search.query == "a rome", "Shift-Home is Home")
    }

    @Test func aPasteIntoTheSearchLineIsTextAndNeverOpensHelp() async {
        let harness = AppHarness()
        await harness.start()
        await harness.press(.paste("?"))
        #expect(harness.app.ui.overlay == nil, "a pasted ? is text, not the help key")
        #expect(harness.model.state.search.query == "?")
        await harness.press(.ctrl("u"), .paste("history\nof\r\nrome\r"))
        #expect(harness.model.state.search.query == "history of rome ")
        #expect(harness.text.contains("A History of Rome"), "\(harness.text)")
    }

    @Test func aLongPasteIsCutAtTheSearchLimitWithANotice() async {
        let harness = AppHarness(columns: 100)
        await harness.start()
        await harness.press(.paste(String(repeating: "ab ", count: 100)))
        let query = harness.model.state.search.query
        #expect(query.count == BookshelfApp.searchLineLimit)
        #expect(query == String(String(repeating: "ab ", count: 100).prefix(BookshelfApp.searchLineLimit)))
        #expect(harness.text.contains("Pasted text cut to 200 characters (the search limit)."), "\(harness.text)")
    }

    /// Opens "History of Rome" (Mommsen) in the editor.
    func openMommsen() async -> AppHarness {
        let harness = AppHarness(columns: 100, rows: 14)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        #expect(harness.model.state.editor?.isLoaded == true)
        return harness
    }

    @Test func aPasteIntoTheEditorChangesTheDraftAndNeverSaves() async throws {
        let harness = await openMommsen()
        await harness.press(.paste(" two\nlines\n"))
        #expect(harness.model.state.editor?.draft.title == "History of Rome two lines ")
        await harness.press(.tab, .home, .paste("Prof.\t"))
        #expect(harness.model.state.editor?.draft.author == "Prof. Theodor Mommsen")
        #expect(harness.model.state.editor != nil, "still editing")
        #expect(try await harness.otherEditor().load(id: 2).revision == 1, "nothing was saved")
        #expect(harness.text.contains("revision 1 · modified"), "\(harness.text)")
    }

    @Test func aPasteLongerThanAFieldIsCutWithANotice() async throws {
        let harness = await openMommsen()
        await harness.press(.tab, .ctrl("a"), .ctrl("k"), .paste(String(repeating: "x", count: 250)))
        #expect(
            harness.model.state.editor?.draft.author
                == String(repeating: "x", count: BookValidation.maximumAuthorLength))
        #expect(harness.text.contains("Pasted text cut to 200 characters (the author limit)."), "\(harness.text)")
        await harness.press(.backTab, .paste(String(repeating: "y", count: 600)))
        #expect(harness.model.state.editor?.draft.title.count == BookValidation.maximumTitleLength)
        #expect(harness.text.contains("Pasted text cut to 500 characters (the title limit)."), "\(harness.text)")
        await harness.press(.left)
        #expect(!harness.text.contains("Pasted text cut"), "the notice goes with the next key")
    }

    @Test func aPasteNeverAnswersAQuestionOrActsInAnOverlay() async throws {
        let harness = await openMommsen()
        await harness.type("!")
        await harness.press(.escape)  // unsaved: asks first
        #expect(harness.model.state.confirmation != nil)
        await harness.press(.paste("y\r"))
        #expect(harness.model.state.confirmation != nil, "a pasted y is not an answer")
        #expect(harness.model.state.editor?.draft.title == "History of Rome!")
        await harness.press(.character("n"), .function(1))
        #expect(harness.app.ui.overlay == .help(scroll: 0))
        await harness.press(.paste("text"))
        #expect(harness.app.ui.overlay == .help(scroll: 0), "help stays open")
        #expect(harness.model.state.editor?.draft.title == "History of Rome!")
    }

    @Test func aPastedPasswordIsMaskedAndOnlyEnterSubmitsIt() async {
        let harness = AppHarness(columns: 60, rows: 14, passwords: ["bob": "s3cret pass"])
        await harness.start()
        await harness.press(.function(2), .down, .enter)
        #expect(harness.model.state.passwordPrompt?.account == "bob")
        await harness.press(.paste("s3cret\tpass\r\n"))
        #expect(harness.model.state.passwordPrompt != nil, "the pasted line break did not submit")
        #expect(harness.text.contains("•••••••••••"))
        #expect(!harness.text.contains("s3cret"))
        await harness.press(.enter)
        #expect(harness.model.state.account == "bob")
    }
}
