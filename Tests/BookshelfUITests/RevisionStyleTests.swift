import BookCatalog
import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// A Calibre library's revision is a time (its `last_modified`, in microseconds since 1970), and
/// the screen says it as one (issue 62, item 4).
@MainActor
@Suite struct RevisionStyleTests {
    @Test func aLastModifiedRevisionReadsAsTheTimeOfTheChange() {
        // 2026-12-06 14:02:07.5 UTC: 1,796,565,727 seconds since 1970, and half of one.
        #expect(RevisionStyle.lastModified.text(1_796_565_727_500_000) == "changed 2026-12-06 14:02:07 UTC")
        #expect(RevisionStyle.counter.text(7) == "revision 7")
    }

    @Test func theEditorAndTheDetailSayWhenTheBookChangedNotARevisionNumber() async {
        let calibre = StoreInfo(kind: "Calibre", location: "~/Library", revisions: .lastModified)
        // The memory store's revisions count from 1: one microsecond after 1970 began.
        let wide = AppHarness(columns: 140, rows: 14, store: calibre)
        await wide.start()
        await wide.type("mommsen")
        #expect(
            wide.lines.contains { $0.contains("#2 · changed 1970-01-01 00:00:00 UTC · Enter to edit") }, "\(wide.lines)"
        )
        let harness = AppHarness(columns: 72, rows: 14, store: calibre)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        #expect(harness.lines[3] == " Edit book #2 · changed 1970-01-01 00:00:00 UTC")
        await harness.press(.ctrl("w"))
        await harness.type("Republic")
        await harness.press(.ctrl("s"))
        #expect(harness.lines.contains(" Saved (changed 1970-01-01 00:00:00 UTC)."), "\(harness.lines)")
        #expect(!harness.lines.contains { $0.contains("revision") }, "\(harness.lines)")
    }

    /// The question about a draft an earlier run kept says when the book it was based on was
    /// changed, not calibre's microseconds (it said "based on revision 1796606091246095").
    @Test func aKeptDraftIsSaidToBeBasedOnTheBookAsChangedThen() async {
        let book = BookRecord(id: 2, title: "History of Rome", revision: 1, author: "Theodor Mommsen")
        var draft = BookDraft(book)
        draft.notes = "An hour of notes"
        let keeper = KeptDraftScreenTests.Keeper([KeptDraft(account: "alice", base: book, draft: draft)])
        let calibre = StoreInfo(kind: "Calibre", location: "~/Library", revisions: .lastModified)
        let harness = AppHarness(columns: 100, rows: 24, store: calibre, keeper: keeper)
        await harness.start()
        let text = harness.text
        #expect(
            text.contains("(based on the book as changed 1970-01-01 00:00:00 UTC)"), "\(text)")
        #expect(!text.contains("revision"), "\(text)")
    }

    /// F3 on a library: a revision is a time, not a number; one Bookshelf saved names who saved
    /// it, and one it did not make is calibre's own change (issue 62, item 1).
    @Test func theHistorySaysWhoSavedEachRevisionAndCalibresOwnChanges() async throws {
        let calibre = StoreInfo(kind: "Calibre", location: "~/Library", revisions: .lastModified)
        let harness = AppHarness(columns: 140, rows: 20, store: calibre)
        _ = try await harness.otherEditor().save(
            SaveRequest(id: 2, title: "History of Rome", author: "T. Mommsen", expectedRevision: 1))
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.function(3))
        let text = harness.text
        let saved = try #require(harness.screen.row(containing: "Saved by bob at "), "\(text)")
        let calibres = try #require(harness.screen.row(containing: "Changed in calibre at "), "\(text)")
        #expect(saved < calibres, "newest first: \(text)")
        #expect(!text.contains("Revision "), "\(text)")
    }
}
