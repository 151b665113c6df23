import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// A signed-in session whose server still answers but refuses it (issue 56, item 6): an old
/// primary rejoined as a standby, sessions made read-only, no connection left. It is said as a
/// refusal, in the store's words, and never as a store the app cannot reach.
@MainActor
@Suite struct StoreRefusalTests {
    static let standby = BookFailure.storeRefused(
        "the server is a standby (read-only, in recovery): saves cannot be made there; connect to the primary")
    static let down = BookFailure.storeUnavailable("connection to server refused")

    private func check(_ h: Harness, _ reply: SteppedRemote.Reply) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, reply, request: check)
    }

    @Test func aRefusedCheckIsSaidAsARefusalNotAsAnUnreachableStore() async {
        let h = Harness(books: ["alice": [original, book(2, "Other")], "bob": []])
        await openEditor(h)
        let rows = h.search.rows

        await check(h, .fail(Self.standby))
        #expect(!h.state.connection.isUnreachable)
        #expect(
            h.state.connection.refusal
                == "the server is a standby (read-only, in recovery): saves cannot be made there; connect to the primary"
        )
        // Nothing is replaced: the same session, rows and draft.
        #expect(h.state.session == 1 && h.search.rows == rows && h.editor?.draft == mine)

        // A later check that cannot reach the server is newer evidence: unreachable, no refusal.
        await check(h, .fail(Self.down))
        #expect(h.state.connection.isUnreachable && h.state.connection.refusal == nil)
        await check(h, .fail(Self.standby))
        #expect(!h.state.connection.isUnreachable && h.state.connection.refusal != nil)

        await check(h, .deliver)
        #expect(!h.state.connection.isUnreachable && h.state.connection.refusal == nil)
        await h.drain()
    }
}
