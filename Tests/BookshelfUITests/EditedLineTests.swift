import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The text being edited has one owner, the model: when it replaces the text (a reload, a
/// merge, a restore, a query cleared, a newly opened book) the cursor goes to the end of the
/// new text, and where the text stays (a save, an account switch) the cursor stays too. Each
/// case types a character after the change: where it lands shows where the cursor was.
@MainActor
@Suite struct EditedLineTests {
    /// The classics on an 80-column screen, signed in as alice (or as `account`, the only one),
    /// `query` typed.
    func searching(_ query: String, rows: Int = 12, as account: Account? = nil) async -> AppHarness {
        let harness =
            account.map { AppHarness(columns: 80, rows: rows, accounts: [$0], account: $0.name) }
            ?? AppHarness(columns: 80, rows: rows)
        await harness.start()
        await harness.type(query)
        return harness
    }

    /// The first match of `query` open in the editor on an 80×16 screen: the pane starts at
    /// column 0 and the field's text at column 8, on row 4 (the title) or 5 (the author).
    func opening(_ query: String, as account: Account? = nil) async -> AppHarness {
        let harness = await searching(query, rows: 16, as: account)
        await harness.press(.enter)
        return harness
    }

    /// "History of Rome" (Mommsen, #2) open in the editor.
    func openMommsen() async -> AppHarness { await opening("mommsen") }

    static let fieldX = 1 + EditorForm.labelWidth

    @Test func reloadingTheirVersionPutsTheCursorAtTheEndOfTheirTitle() async throws {
        let harness = await openMommsen()
        _ = try await harness.otherEditor().save(
            SaveRequest(
                id: 2, title: "Rome: A History", author: "Theodor Mommsen",
                expectedRevision: 1))
        await harness.press(.home)
        await harness.type("The ")
        await harness.press(.enter)
        try #require(harness.model.state.editor?.conflict?.theirs != nil)
        await harness.press(.ctrl("r"))
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 15, y: 4), "after “Rome: A History”")
        await harness.type("!")
        #expect(harness.model.state.editor?.draft == BookDraft(title: "Rome: A History!", author: "Theodor Mommsen"))
    }

    @Test func editingAMergePutsTheCursorAtTheEndOfTheMergedField() async throws {
        let harness = await openMommsen()
        _ = try await harness.otherEditor().save(
            SaveRequest(
                id: 2, title: "Rome", author: "T. Mommsen",
                expectedRevision: 1))
        // My title with the cursor at its start, and the author's cursor at its start too.
        await harness.press(.home)
        await harness.type("My ")
        await harness.press(.tab, .home, .backTab)
        await harness.press(.enter)
        try #require(harness.model.state.editor?.conflict?.merged != nil)
        await harness.press(.ctrl("e"))
        // The title is still mine: its cursor stays after "My ". The author is theirs now.
        #expect(harness.model.state.editor?.focus == .title)
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 3, y: 4))
        await harness.type("#")
        await harness.press(.tab)
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 10, y: 5), "after “T. Mommsen”")
        await harness.type("!")
        #expect(harness.model.state.editor?.draft == BookDraft(title: "My #History of Rome", author: "T. Mommsen!"))
    }

    @Test func aMergedSaveMovesTheCursorOnlyInTheFieldItChanged() async throws {
        let harness = await openMommsen()
        _ = try await harness.otherEditor().save(
            SaveRequest(
                id: 2, title: "History of Rome",
                author: "Mommsen, Theodor", expectedRevision: 1))
        // The author's cursor at its start, then the title's after "History".
        await harness.press(.tab, .home, .backTab, .home)
        for _ in 0..<7 { await harness.press(.right) }
        await harness.type(" Of")
        await harness.press(.enter)
        try #require(harness.model.state.editor?.outcome == .saved(revision: 3))
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 10, y: 4), "the saved title kept its cursor")
        await harness.type("!")
        await harness.press(.tab)
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 16, y: 5), "after their “Mommsen, Theodor”")
        await harness.type("?")
        #expect(
            harness.model.state.editor?.draft
                == BookDraft(title: "History Of! of Rome", author: "Mommsen, Theodor?"))
    }

    @Test func overwritingKeepsTheirAuthorWithTheCursorAtItsEnd() async throws {
        let harness = await openMommsen()
        _ = try await harness.otherEditor().save(
            SaveRequest(
                id: 2, title: "Rome", author: "T. Mommsen",
                expectedRevision: 1))
        await harness.press(.home)
        await harness.type("My ")
        await harness.press(.tab, .home, .backTab, .enter)
        try #require(harness.model.state.editor?.conflict?.merged != nil)
        await harness.press(.ctrl("o"))
        try #require(harness.model.state.editor?.outcome == .saved(revision: 3))
        await harness.press(.tab)
        await harness.type("!")
        #expect(harness.model.state.editor?.draft == BookDraft(title: "My History of Rome", author: "T. Mommsen!"))
    }

    @Test func aRestoredRevisionIsEditedFromItsEnd() async throws {
        let harness = try await AppHarness.mommsenWithHistory()
        // The second newest, revision 2: "History of Rome" by T. Mommsen.
        await harness.press(.down, .enter, .character("y"))
        try #require(harness.model.state.editor?.outcome == .saved(revision: 4))
        #expect(harness.model.state.editor?.draft == BookDraft(title: "History of Rome", author: "T. Mommsen"))
        await harness.type("!")
        #expect(harness.model.state.editor?.draft == BookDraft(title: "History of Rome!", author: "T. Mommsen"))
    }

    @Test func anotherBookOpensWithTheCursorAtTheEndOfItsTitle() async throws {
        let harness = await opening("rome")
        let first = try #require(harness.model.state.editor?.draft.title)
        await harness.press(.home, .escape, .down, .enter)
        let second = try #require(harness.model.state.editor?.draft.title)
        try #require(second != first)
        #expect(harness.screen.cursor == Position(x: Self.fieldX + second.count, y: 4))
        await harness.type("!")
        #expect(harness.model.state.editor?.draft.title == second + "!")
    }

    @Test func aReaderMovesTheCursorButTypingChangesNothing() async throws {
        let harness = await opening("mommsen", as: Account(name: "carl", role: .reader, scope: "main"))
        try #require(harness.model.state.editor?.readOnlyReason != nil)
        await harness.press(.home, .right)
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 1, y: 4))
        await harness.type("x")
        await harness.press(.ctrl("k"))
        #expect(harness.model.state.editor?.draft == BookDraft(title: "History of Rome", author: "Theodor Mommsen"))
        #expect(harness.screen.cursor == Position(x: Self.fieldX + 1, y: 4), "what is not typed does not move it")
    }

    @Test func aQueryTheModelClearsIsTypedFromItsStart() async {
        let harness = await searching("rome")
        await harness.press(.left, .left)
        harness.model.setQuery("")
        await harness.settle()
        #expect(harness.screen.cursor == Position(x: Screen.promptText.count, y: 1))
        await harness.type("x")
        #expect(harness.model.state.search.query == "x")
        #expect(harness.screen.cursor == Position(x: Screen.promptText.count + 1, y: 1))
    }

    @Test func aQueryTheModelReplacesIsTypedFromItsEnd() async {
        let harness = await searching("rome")
        await harness.press(.home)
        harness.model.setQuery("war")
        await harness.settle()
        await harness.type("s")
        #expect(harness.model.state.search.query == "wars")
    }

    @Test func anAccountSwitchKeepsTheQueryAndItsCursor() async throws {
        let harness = await searching("rome")
        await harness.press(.left, .left)
        await harness.press(.function(2), .down, .enter)
        try #require(harness.model.state.account == "bob")
        #expect(harness.model.state.search.query == "rome")
        #expect(harness.screen.cursor == Position(x: Screen.promptText.count + 2, y: 1))
        await harness.type("x")
        #expect(harness.model.state.search.query == "roxme")
    }
}
