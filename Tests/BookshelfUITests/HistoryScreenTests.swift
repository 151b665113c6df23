import BookCatalog
import BookshelfModel
import BookshelfUI
import TerminalUI
import Testing

/// The history view: a book's revisions newest first, each change marked, and a restore that
/// is a new save.
@MainActor
@Suite struct HistoryScreenTests {
    private func mommsenWithHistory(account: String = "alice") async throws -> AppHarness {
        try await AppHarness.mommsenWithHistory(account: account)
    }

    @Test func f3ShowsTheRevisionsNewestFirstWithEachChangeMarked() async throws {
        let harness = try await mommsenWithHistory()
        let text = harness.text
        let screen = harness.screen
        #expect(text.contains("History of book #2 · newest first"), "\(text)")
        let rows = ["Revision 3 ·", "Revision 2 ·", "Revision 1 ·"].compactMap { screen.row(containing: $0) }
        #expect(rows.count == 3 && rows == rows.sorted(), "newest first: \(text)")
        #expect(
            harness.lines[rows[0]].contains("Revision 3 · bob · ")
                && harness.lines[rows[2]].contains("Revision 1 · no account · "),
            "\(text)")
        // Revision 3 changed the title: ", Vol. 2" is marked, the rest is not.
        let title3 = rows[0] + 1
        let changed = try #require(screen.column(of: ", Vol. 2", row: title3), "\(text)")
        #expect(screen[changed, title3].style == Theme.difference && screen[changed - 1, title3].style == .plain)
        let author3 = rows[0] + 2
        let author3Column = try #require(screen.column(of: "T. Mommsen", row: author3))
        #expect(screen[author3Column, author3].style == .plain, "revision 3 left the author")
        // Revision 2 changed the author.
        let author2 = rows[1] + 2
        let author2Column = try #require(screen.column(of: "T. Mommsen", row: author2))
        // "Theodor Mommsen" became "T. Mommsen": the "T" and " Mommsen" they share are not marked.
        #expect(
            screen[author2Column, author2].style == .plain
                && screen[author2Column + 1, author2].style == Theme.difference)
        #expect(screen[author2Column + 3, author2].style == .plain)
        #expect(harness.lines.last?.contains("Enter restore") == true)

        await harness.press(.escape)
        #expect(harness.model.state.history == nil)
        #expect(!harness.text.contains("History of book"))
    }

    /// A revision that cut the end off a long title shows the title it kept, not a bare "…":
    /// only the longer, older title needs the room the elision gives a difference.
    @Test func aRevisionThatShortenedATitleShowsWhatItKept() async throws {
        let harness = AppHarness(
            columns: 100, rows: 20,
            accounts: [
                Account(name: "alice", role: .editor, scope: "main"),
                Account(name: "bob", role: .editor, scope: "main"),
            ], account: "alice")
        let bob = harness.otherEditor()
        let long = "History of Rome with a long pasted tail that runs on and on"
        _ = try await bob.save(SaveRequest(id: 2, title: long, author: "Theodor Mommsen", expectedRevision: 1))
        _ = try await bob.save(
            SaveRequest(id: 2, title: "History of Rome", author: "Theodor Mommsen", expectedRevision: 2))
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.function(3))
        let screen = harness.screen
        let revision3 = try #require(screen.row(containing: "Revision 3 ·"), "\(harness.text)")
        #expect(harness.lines[revision3 + 1].contains("Title     History of Rome"), "\(harness.text)")
    }

    /// On a screen too narrow for list and pane side by side, the history takes the main area
    /// (as the editor does), and a paste goes nowhere: the search behind it stays as it was.
    @Test func onANarrowScreenTheHistoryIsShownAndAPasteLeavesTheSearchAlone() async throws {
        let harness = try await mommsenWithHistory()
        harness.resize(columns: 40, rows: 12)
        let text = harness.text
        #expect(text.contains("History of book #2") && text.contains("Revision 3 ·"), "\(text)")
        await harness.press(.paste("x\ty"))
        #expect(harness.model.state.search.query == "mommsen")
        #expect(harness.model.state.history != nil)
    }

    /// Enter opens everywhere else, so here it asks before it saves anything.
    @Test func enterAsksBeforeRestoringAndNoKeepsTheHistoryOpen() async throws {
        let harness = try await mommsenWithHistory()
        await harness.press(.down, .down, .enter)
        let text = harness.text
        #expect(text.contains("Restore revision 1 as a new revision?"), "\(text)")
        #expect(text.contains("y yes, restore · n no"), "\(text)")
        #expect(harness.lines.last == " y yes · n no")
        #expect(try await harness.otherEditor().load(id: 2).revision == 3, "nothing saved before the answer")
        // Keys other than an answer do not act behind the question.
        await harness.press(.up, .character("x"))
        #expect(harness.model.state.history?.selection == 2)
        #expect(harness.text.contains("Restore revision 1 as a new revision?"))
        await harness.press(.character("n"))
        #expect(!harness.text.contains("Restore revision 1 as a new revision?"), "\(harness.text)")
        #expect(harness.model.state.history?.selection == 2, "the history stays open on the same revision")
        await harness.press(.enter, .escape)
        #expect(harness.model.state.history != nil, "Esc answers no; it does not close the history too")
        #expect(!harness.text.contains("Restore revision"))
        #expect(try await harness.otherEditor().load(id: 2).revision == 3)
    }

    @Test func enterThenYesRestoresTheChosenRevisionAsANewSave() async throws {
        let harness = try await mommsenWithHistory()
        await harness.press(.down, .down)
        #expect(harness.model.state.history?.selection == 2)
        await harness.press(.enter)
        #expect(harness.model.state.history?.restoreQuestion == 1)
        await harness.press(.character("y"))
        #expect(harness.model.state.history == nil)
        #expect(harness.model.state.editor?.outcome == .saved(revision: 4), "\(harness.text)")
        #expect(
            try await harness.otherEditor().load(id: 2)
                == BookRecord(
                    id: 2, title: "History of Rome", revision: 4,
                    author: "Theodor Mommsen"))
        #expect(harness.text.contains("Saved as revision 4."))
        let history = try await harness.otherEditor().history(of: 2)
        #expect(history.map(\.revision) == [4, 3, 2, 1] && history[0].account == "alice")
    }

    @Test func aReaderSeesTheHistoryButCannotRestore() async throws {
        let harness = try await mommsenWithHistory(account: "carl")
        #expect(harness.text.contains("Revision 3 ·"))
        #expect(harness.text.contains("↑↓ choose · Esc close"))
        await harness.press(.down, .enter)
        #expect(harness.model.state.editor == nil)
        #expect(try await harness.otherEditor().load(id: 2).revision == 3)
    }
}
