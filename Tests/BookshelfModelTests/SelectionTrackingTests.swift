import BookCatalog
import Testing
@testable import BookshelfModel

/// The highlighted row stays on the same book across refreshes (fzf's --track): it moves
/// only when the user moves it or types.
@MainActor
@Suite struct SelectionTrackingTests {
    @Test func aSavedBookThatMovesInTheOrderKeepsTheSelection() async {
        let books = [book(1, "Alpha"), book(2, "Beta"), book(3, "Gamma")]
        let h = Harness(books: ["alice": books, "bob": []])
        await h.start(answering: .page(books, total: 3))
        h.model.select(index: 1)
        let open = h.model.openSelected()!
        await h.release(await h.nextCall(.load).number, .deliver, request: open)
        h.model.setDraft(.title, to: "Zeta")
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        let refresh = h.model.pendingRequests.last { $0.kind == .refresh }!.request
        let zeta = book(2, "Zeta", revision: 2)
        await h.release(
            await h.nextCall(.search).number, .page([books[0], books[2], zeta], total: 3), request: refresh)
        #expect(h.search.selection == 2 && h.search.selectedBook == zeta)
        // Typing is the user moving on: the new results start at the top.
        let search = h.model.setQuery("a")!
        await h.release(await h.nextCall(.search).number, .page([books[0], books[2], zeta], total: 3), request: search)
        #expect(h.search.selection == 0)
        await h.drain()
    }

    @Test func aBookThatLeftTheResultsLeavesTheSelectionWhereItWas() async {
        let books = [book(1, "Alpha"), book(2, "Beta"), book(3, "Gamma")]
        let h = Harness(books: ["alice": books, "bob": []])
        await h.start(answering: .page(books, total: 3))
        h.model.select(index: 2)
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(.unspecified), request: check)
        let refresh = h.model.pendingRequests.first { $0.kind == .refresh }!.request
        await h.release(await h.nextCall(.search).number, .page([books[0], books[1]], total: 2), request: refresh)
        #expect(h.search.selection == 1, "clamped, not sent back to the top")
        await h.drain()
    }
}
