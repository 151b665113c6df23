import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// Issue 43, item 10: what said the store could not be reached stops saying so once the store
/// answers again; a refusal stays true and stays.
@MainActor
@Suite struct RecoveryNoteTests {
    private func check(_ h: Harness, answers reply: SteppedRemote.Reply) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, reply, request: check)
    }

    @Test func aSwitchThatCouldNotReachTheStoreIsForgottenWhenTheStoreAnswers() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await h.start(answering: .deliver)
        h.connector.failConnections(to: "bob", with: .storeUnavailable("server restarting"))
        await h.switchAccount(to: "bob")
        #expect(h.state.connection.error != nil && h.state.account == "alice")

        // Still down: the note stays.
        await check(h, answers: .fail(.storeUnavailable("still down")))
        #expect(h.state.connection.error != nil)
        // Back: the note goes, the session is alice's as before.
        await check(h, answers: .notice(nil))
        #expect(h.state.connection.error == nil && h.state.account == "alice")
        await h.drain()
    }

    @Test func aRefusedSwitchStaysSaidAfterTheStoreAnswers() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await h.start(answering: .deliver)
        h.connector.failConnections(to: "bob", with: .missing)
        await h.switchAccount(to: "bob")
        let refused = h.state.connection.error
        #expect(refused != nil)
        await check(h, answers: .notice(nil))
        #expect(h.state.connection.error == refused)
        await h.drain()
    }

    @Test func aSaveThatCouldNotReachTheStoreStopsSayingSoWhenTheStoreAnswers() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .fail(.storeUnavailable("server restarting")), request: save)
        #expect(h.editor?.outcome == .rejected(.storeUnavailable("server restarting")))

        // Still down: the check fails too, and the note stays.
        await check(h, answers: .fail(.storeUnavailable("still down")))
        #expect(h.editor?.outcome == .rejected(.storeUnavailable("server restarting")))
        // Back: the note goes.
        await check(h, answers: .notice(nil))
        #expect(h.editor?.outcome == nil)
        // Nothing was saved, and the draft is still there to save again.
        #expect(h.editor?.draft == mine && h.editor?.isDirty == true)
        #expect(await h.remote.books[1] == original)
        await h.drain()
    }

    @Test func aRefusedSaveStaysSaidAfterTheStoreAnswers() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .fail(.notAllowed), request: save)
        await check(h, answers: .notice(nil))
        #expect(h.editor?.outcome == .rejected(.notAllowed))
        await h.drain()
    }

    /// A catalog locked by another program answers reads (the check) and refuses the save:
    /// the store was never unreachable, and "not saved" stays true until a save goes through.
    @Test func aSaveRefusedWhileTheStoreKeepsAnsweringStaysSaid() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let locked = BookFailure.storeUnavailable("the catalog is locked by another program; try again")
        await h.release(await h.nextCall(.save).number, .fail(locked), request: save)
        await check(h, answers: .notice(nil))
        #expect(h.editor?.outcome == .rejected(locked))
        await h.drain()
    }
}
