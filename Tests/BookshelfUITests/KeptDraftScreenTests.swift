import BookCatalog
import BookshelfModel
import BookshelfUI
import TerminalUI
import Testing

/// The question a session begins with when an earlier run kept an unsaved draft.
@MainActor
@Suite struct KeptDraftScreenTests {
    /// Holds drafts in memory, as the app's keeper holds files.
    final class Keeper: DraftKeeping {
        var drafts: [KeptDraft]
        init(_ drafts: [KeptDraft]) { self.drafts = drafts }
        func keep(_ draft: KeptDraft) throws {
            drafts.removeAll { $0.account == draft.account && $0.bookID == draft.bookID }
            drafts.append(draft)
        }
        func remove(account: String, bookID: Int) throws {
            drafts.removeAll { $0.account == account && $0.bookID == bookID }
        }
        func kept(account: String) -> KeptDraftsFound {
            KeptDraftsFound(drafts: drafts.filter { $0.account == account })
        }
    }

    /// Mommsen's book as the catalog holds it (the second of the classics, never edited).
    let mommsen = BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Theodor Mommsen")
    var notes: BookDraft {
        var draft = BookDraft(mommsen)
        draft.notes = "An hour of notes"
        return draft
    }

    @Test func theQuestionNamesTheBookAndItsRevisionAndYesOpensTheEditorOnTheDraft() async throws {
        let keeper = Keeper([KeptDraft(account: "alice", base: mommsen, draft: notes)])
        let harness = AppHarness(columns: 100, rows: 24, keeper: keeper)
        await harness.start()
        let text = harness.text
        #expect(text.contains("An unsaved draft of «History of Rome» (based on revision 1) was kept."), "\(text)")
        #expect(text.contains("Restore it?"), "\(text)")
        #expect(text.contains("y yes, restore"), "\(text)")
        #expect(text.contains("n no, discard it"), "\(text)")
        #expect(text.contains("Esc ask me next time"), "\(text)")
        // Modal: a key of the search behind it does nothing.
        await harness.type("x")
        #expect(harness.model.state.search.query == "" && harness.model.state.keptDraft != nil)

        await harness.press(.character("y"))
        await harness.settle()
        let editor = try #require(harness.model.state.editor)
        #expect(editor.bookID == 2 && editor.base == mommsen && editor.draft == notes)
        #expect(harness.text.contains("Edit book #2 · revision 1"), "\(harness.text)")
        #expect(harness.text.contains("modified"), "\(harness.text)")
        #expect(!harness.text.contains("was kept"), "\(harness.text)")
    }

    /// Esc, pressed by reflex, never discards: the question goes, the draft stays kept.
    @Test func escapeKeepsTheDraftForTheNextStart() async {
        let kept = KeptDraft(account: "alice", base: mommsen, draft: notes)
        let keeper = Keeper([kept])
        let harness = AppHarness(columns: 100, rows: 24, keeper: keeper)
        await harness.start()
        await harness.press(.escape)
        #expect(keeper.drafts == [kept])
        #expect(harness.model.state.keptDraft == nil && harness.model.state.editor == nil)
        #expect(!harness.text.contains("was kept"), "\(harness.text)")
    }

    @Test func noDiscardsTheKeptDraft() async {
        let keeper = Keeper([KeptDraft(account: "alice", base: mommsen, draft: notes)])
        let harness = AppHarness(columns: 100, rows: 24, keeper: keeper)
        await harness.start()
        await harness.press(.character("n"))
        #expect(keeper.drafts.isEmpty)
        #expect(harness.model.state.keptDraft == nil && harness.model.state.editor == nil)
        #expect(!harness.text.contains("was kept"), "\(harness.text)")
    }
}
