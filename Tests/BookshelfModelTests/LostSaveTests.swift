import BookCatalog
import Testing
@testable import BookshelfModel

/// A save the store acknowledged and then lost in a failover (the store is back at the revision
/// before it): the user is told, no row keeps showing the lost revision, and the text is kept for
/// saving again through the usual compare-and-set.
@MainActor
@Suite struct LostSaveTests {
    let saved = book(1, "Mine", revision: 2)

    /// Opens book 1, saves "Mine" as revision 2 and answers the refresh the save starts; then
    /// the store fails over to a standby that had not replayed revision 2.
    private func savedThenLost() async -> Harness {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        #expect(h.editor?.outcome == .saved(revision: 2))
        await h.answerRefreshAfterSave(save)
        #expect(h.search.rows == [saved])
        await h.remote.loseRevisions(of: 1, after: 1)
        return h
    }

    /// A change check that names book 1, answered: it starts a refresh of the rows, and a
    /// re-read of the edited book if the editor is open on it.
    private func noticeOfBookOne(_ h: Harness) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(ChangeNotice(bookIDs: [1])), request: check)
    }

    @Test(
        "with the editor open, the re-read finds the loss: the editor says so, the base is the store's, the text stays")
    func editorOpen() async {
        let h = await savedThenLost()
        await noticeOfBookOne(h)
        let reread = h.model.pendingRequests.last { $0.kind == .load }!.request
        await h.release(await h.nextCall(.load).number, .deliver, request: reread)
        #expect(h.editor?.outcome == .lost(revision: 2, current: 1))
        #expect(h.editor?.base == original)
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.isDirty == true)
        #expect(h.search.rows == [original], "no row shows the lost revision")

        let again = h.model.save()!
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save"); return }
        #expect(request.expectedRevision == 1 && request.title == "Mine")
        await h.release(call.number, .deliver, request: again)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(await h.remote.books[1] == saved)
        await h.drain()
    }

    @Test(
        "with the editor closed, the refreshed rows find the loss: a message names the book, and opening it brings the text back"
    )
    func editorClosed() async {
        let h = await savedThenLost()
        h.model.closeEditor()
        #expect(h.editor == nil)
        await noticeOfBookOne(h)
        let refresh = h.model.pendingRequests.last { $0.kind == .refresh }!.request
        await h.release(await h.nextCall(.search).number, .deliver, request: refresh)
        #expect(h.search.rows == [original])
        #expect(h.state.message?.contains("“Mine” (revision 2) was lost") == true)

        let open = h.model.openSelected()!
        await h.release(await h.nextCall(.load).number, .deliver, request: open)
        #expect(h.editor?.base == original)
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.outcome == .lost(revision: 2, current: 1))
        #expect(h.state.message == nil)

        let again = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: again)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(await h.remote.books[1] == saved)

        // Offered once: the next open shows the book as it is.
        h.model.closeEditor()
        let reopen = h.model.openSelected()!
        await h.release(await h.nextCall(.load).number, .deliver, request: reopen)
        #expect(h.editor?.outcome == nil)
        await h.drain()
    }
}
