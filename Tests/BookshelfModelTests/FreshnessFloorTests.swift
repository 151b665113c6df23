import BookCatalog
import Testing
@testable import BookshelfModel

/// The session has one freshness floor, kept by its repository: what the repository saw
/// through any path is a floor for what the model shows, even when the model never
/// published the answer that carried it.
@MainActor
@Suite struct FreshnessFloorTests {
    /// A load whose read saw the store before someone else's commit answers after a
    /// superseded search brought that commit: the editor opens on the commit, and the row
    /// shows it, never the older revision the load read.
    @Test func aLoadOlderThanASupersededSearchOpensTheNewerRevision() async {
        let old = book(1, "Old")
        let new = book(1, "New", revision: 2)
        let h = Harness(books: ["alice": [old], "bob": []])
        await h.start()
        #expect(h.search.rows == [old])

        let load = h.model.open(bookID: 1)!
        let loadCall = await h.nextCall(.load)  // its read sees revision 1
        await h.remote.put(new)  // someone else commits revision 2
        let superseded = h.model.setQuery("N")!
        let searchCall = await h.nextCall(.search)  // its read sees revision 2
        _ = h.model.setQuery("Ne")!
        await h.release(searchCall.number, .deliver, request: superseded)
        #expect(h.search.rows == [old], "a superseded search shows nothing")

        await h.release(loadCall.number, .deliver, request: load)
        #expect(h.editor?.base == new)
        #expect(h.editor?.draft == BookDraft(new))
        #expect(h.search.rows == [new])
        await h.drain()
    }
}
