import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// What a reader is offered: viewing, never saving or restoring.
@MainActor
@Suite struct ReaderScreenTests {
    private static let accounts = [
        Account(name: "alice", role: .editor, scope: "main"), Account(name: "carl", role: .reader, scope: "main"),
    ]

    @Test func aReadersEditorSaysViewBookAndOffersNoSave() async {
        let harness = AppHarness(columns: 72, rows: 14, accounts: Self.accounts, account: "carl")
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        #expect(
            harness.lines == [
                " Bookshelf  carl (reader)  Memory test",
                "Search: mommsen",
                String(repeating: "─", count: 62) + " 1 match ─",
                " View book #2 · revision 1",
                // Under the form: why it is read-only, a blank row, the keys; six rows are left for it.
                " Title     History of Rome",
                " Author    Theodor Mommsen",
                " ISBN",
                " Year",
                " Publisher",
                " more ↓",
                " carl is a reader: viewing only.",
                "",
                " Tab next field · Esc close",
                " Tab field · Esc close · F1 help",
            ])
    }

    /// An editor's own detail pane and editor keep their words.
    @Test func anEditorsEditorStillSaysEditBook() async {
        let harness = AppHarness(columns: 72, rows: 14, accounts: Self.accounts, account: "alice")
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        #expect(harness.lines[3] == " Edit book #2 · revision 1")
        #expect(harness.lines.last == " Tab field · Enter save · Esc close · F1 help")
    }

    @Test(arguments: [("carl", "Enter to view"), ("alice", "Enter to edit")])
    func theDetailPaneOffersWhatTheAccountMayDo(account: String, offer: String) async {
        let harness = AppHarness(columns: 110, rows: 12, accounts: Self.accounts, account: account)
        await harness.start()
        await harness.type("mommsen")
        #expect(harness.lines.contains { $0.hasSuffix("│ #2 · revision 1 · \(offer)") }, "\(harness.text)")
    }

    @Test func aReadersHistoryOffersNoRestoreAndEnterDoesNothing() async throws {
        let harness = AppHarness(columns: 140, rows: 20, accounts: Self.accounts, account: "carl")
        _ = try await harness.otherEditor("alice")
            .save(SaveRequest(id: 2, title: "History of Rome", author: "T. Mommsen", expectedRevision: 1))
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.function(3), .down)
        let text = harness.text
        #expect(text.contains("Revision 1 ·"), "\(text)")
        #expect(!text.contains("restore") && !text.contains("Restore"), "nothing offers a restore: \(text)")
        #expect(harness.lines.last == " ↑↓ revision · Esc close")
        await harness.press(.enter)
        #expect(harness.model.state.history?.restoreQuestion == nil)
        #expect(!harness.text.contains("Restore"), "\(harness.text)")
        await harness.press(.character("y"))
        #expect(try await harness.otherEditor("alice").load(id: 2).revision == 2, "nothing was saved")
    }
}
