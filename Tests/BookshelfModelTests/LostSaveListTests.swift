import BookCatalog
import Testing
@testable import BookshelfModel

/// Several saves lost at once (a failover took the last two): each is told by name in the list
/// the user opens (`BookshelfState.lostSaves`), the message line counts them, and until the user
/// has opened the list each lost book is among those whose rows carry a mark (issue 56, item 5).
@MainActor
@Suite struct LostSaveListTests {
    @Test(
        "two saves lost at once are both in the list, counted on the message line, and unseen until the list is opened")
    func twoLostSavesAreListed() async {
        let emma = book(2, "Emma")
        let h = Harness(books: ["alice": [original, emma], "bob": []])
        await h.start(answering: .deliver)
        // Saves a new title over the book of each row, each acknowledged as revision 2.
        for (row, title) in [(0, "Emma Revised"), (1, "Mine")] {
            h.model.select(index: row)
            _ = h.model.openSelected()!
            await h.answer(.load, with: .deliver)
            h.model.setDraft(.title, to: title)
            let save = h.model.save()!
            await h.release(await h.nextCall(.save).number, .deliver, request: save)
            #expect(h.editor?.outcome == .saved(revision: 2))
            await h.answerRefreshAfterSave(save)
            h.model.closeEditor()
        }
        // The failover: the promoted standby has neither save.
        await h.remote.loseRevisions(of: 1, after: 1)
        await h.remote.loseRevisions(of: 2, after: 1)
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(ChangeNotice(bookIDs: [1, 2])), request: check)
        let refresh = h.model.pendingRequests.last { $0.kind == .refresh }!.request
        await h.release(await h.nextCall(.search).number, .deliver, request: refresh)

        #expect(Set(h.search.rows.map(\.id)) == [1, 2], "\(h.search.rows)")
        #expect(h.search.rows.allSatisfy { $0.revision == 1 }, "the rows as the promoted standby has them")
        let list = h.state.lostSaves
        #expect(list.entries.map(\.saved.title).sorted() == ["Emma Revised", "Mine"])
        #expect(list.entries.map(\.current.revision) == [1, 1])
        #expect(list.unseen == [1, 2])
        #expect(h.state.message?.hasPrefix("2 of your saves were lost (a failover?): F6 lists them.") == true)

        h.model.lostSavesSeen()
        #expect(h.state.lostSaves.unseen.isEmpty)
        #expect(h.state.lostSaves.entries.count == 2, "the list keeps them")
        await h.drain()
    }

    @Test("the list and the row marks belong to the session: another account sees none of them")
    func anAccountSwitchClearsTheList() async {
        // Bob's book has the id of one of alice's lost books: a mark left by id would land on it.
        let h = Harness(books: ["alice": [original], "bob": [book(1, "Bob's own")]])
        await h.start(answering: .deliver)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: "Mine")
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        await h.answerRefreshAfterSave(save)
        h.model.closeEditor()
        await h.remote.loseRevisions(of: 1, after: 1)
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(ChangeNotice(bookIDs: [1])), request: check)
        let refresh = h.model.pendingRequests.last { $0.kind == .refresh }!.request
        await h.release(await h.nextCall(.search).number, .deliver, request: refresh)
        #expect(h.state.lostSaves.unseen == [1], "alice's lost save is told in her session")

        let connect = h.model.requestAccountSwitch(to: "bob")!
        await h.model.finished(request: connect)
        #expect(h.state.account == "bob")
        #expect(h.state.lostSaves.entries.isEmpty && h.state.lostSaves.unseen.isEmpty, "\(h.state.lostSaves)")
        // Alice's lost text was kept for her book 1; bob's book 1 opens as bob's.
        await h.answer(.search, with: .deliver)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        #expect(h.editor?.draft.title == "Bob's own", "\(String(describing: h.editor))")
        await h.drain()
    }
}
