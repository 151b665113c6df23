import BookCatalog
import Testing
@testable import BookshelfModel

/// A session signed in with a typed password loses its connection (a server restart): the
/// store says the password is needed again. The model asks for it in place, keeps the query,
/// the rows and the draft, and signs the same session back in.
@MainActor
@Suite struct ReconnectTests {
    static let password = "correct horse"

    /// Alice (password-protected) has the rows "Old" and "Other"; the query "o" is answered,
    /// book 1 is open with the draft "Mine" typed.
    private func editingAfterSignIn() async -> Harness {
        let h = Harness(
            books: ["alice": [original, book(2, "Other")], "bob": []], passwords: ["alice": Self.password])
        await h.model.finished(request: h.model.start(password: Self.password)!)
        await h.answer(.search, with: .deliver)
        _ = h.model.setQuery("o")!
        await h.answer(.search, with: .deliver)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: mine.title)
        return h
    }

    /// The freshness timer is the first to find the connection lost.
    private func loseConnection(_ h: Harness) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .passwordNeeded, request: check)
    }

    @Test func aLostConnectionAsksForThePasswordInPlaceAndKeepsEverything() async {
        let h = await editingAfterSignIn()
        let rowsBefore = h.search.rows
        await loseConnection(h)

        #expect(h.state.passwordPrompt == PasswordPrompt(account: "alice", reconnects: true))
        #expect(h.state.connection.isLost)
        #expect(h.state.session == 1 && h.state.account == "alice")
        #expect(h.search.query == "o" && h.search.rows == rowsBefore)
        #expect(h.editor?.draft == mine && h.editor?.isDirty == true)

        let reconnect = h.model.submitPassword(Self.password)!
        #expect(h.state.passwordPrompt == nil)
        await h.release(await h.nextCall(.reauthenticate).number, .deliver, request: reconnect)
        #expect(!h.state.connection.isLost)
        #expect(h.state.message == "Reconnected as alice.")
        // The same session: no new connection, no new session number.
        #expect(h.connector.connectionCount == 1 && h.state.session == 1)
        // The rows and the edited record are read again; the draft is untouched.
        await h.answer(.search, with: .deliver)
        await h.answer(.load, with: .deliver)
        #expect(h.search.rows == rowsBefore && h.search.error == nil)
        #expect(h.editor?.draft == mine && h.editor?.base == original)

        // The password is used for the handshake and kept nowhere the app can show.
        #expect(!String(describing: h.state).contains(Self.password))
        #expect(!h.model.log.entries.description.contains(Self.password))
        await h.drain()
    }

    @Test func aWrongPasswordAsksAgainAndSaysWhy() async {
        let h = await editingAfterSignIn()
        await loseConnection(h)
        let attempt = h.model.submitPassword("wrong")!
        await h.release(await h.nextCall(.reauthenticate).number, .deliver, request: attempt)
        #expect(
            h.state.passwordPrompt
                == PasswordPrompt(
                    account: "alice", reconnects: true, problem: "That password was not accepted."))
        #expect(h.state.connection.isLost && h.editor?.draft == mine)

        let retry = h.model.submitPassword(Self.password)!
        await h.release(await h.nextCall(.reauthenticate).number, .deliver, request: retry)
        #expect(!h.state.connection.isLost && h.state.passwordPrompt == nil)
        await h.drain()
    }

    @Test func dismissingThePromptStaysDisconnectedUntilTheUserAsksAgain() async {
        let h = await editingAfterSignIn()
        await loseConnection(h)
        h.model.cancelPasswordPrompt()
        #expect(h.state.passwordPrompt == nil && h.state.connection.isLost)
        #expect(h.editor?.draft == mine)

        // Further failures say the same thing: they do not pester the user with the prompt.
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .passwordNeeded, request: save)
        #expect(h.state.passwordPrompt == nil && h.editor?.draft == mine)
        #expect(h.editor?.isDirty == true)

        // Choosing the own account in the switcher asks again, without a new session.
        #expect(h.model.requestAccountSwitch(to: "alice") == nil)
        #expect(h.state.passwordPrompt == PasswordPrompt(account: "alice", reconnects: true))
        let reconnect = h.model.submitPassword(Self.password)!
        await h.release(await h.nextCall(.reauthenticate).number, .deliver, request: reconnect)
        #expect(!h.state.connection.isLost && h.state.session == 1 && h.connector.connectionCount == 1)
        await h.drain()
    }

    /// A request sent before the reconnect fails with "password needed" whenever its answer
    /// comes: before the reconnect's answer or after it. Either way the user is asked once, and
    /// a connected session is never shown as lost. Both orders, and a loss after the
    /// reconnect, which must ask again.
    @Test(arguments: [false, true])
    func aFailureFromBeforeTheReconnectIsOldNews(failureAnswersFirst: Bool) async {
        let h = await editingAfterSignIn()
        h.model.closeEditor()  // the draft is dirty: it asks
        _ = h.model.confirm()
        let early = h.model.setQuery("ot")!
        let earlyCall = await h.nextCall(.search)
        await loseConnection(h)
        let reconnect = h.model.submitPassword(Self.password)!
        let reauthentication = await h.nextCall(.reauthenticate)

        if failureAnswersFirst {
            await h.release(earlyCall.number, .passwordNeeded, request: early)
            #expect(h.state.passwordPrompt == nil, "asked twice for one loss")
        }
        await h.release(reauthentication.number, .deliver, request: reconnect)
        if !failureAnswersFirst {
            await h.release(earlyCall.number, .passwordNeeded, request: early)
        }
        #expect(!h.state.connection.isLost && h.state.passwordPrompt == nil)

        // The search the reconnect started answers: the rows of the typed query.
        await h.answer(.search, with: .deliver)
        #expect(h.search.query == "ot" && h.search.error == nil)

        // A request begun after the reconnect that finds the connection lost is news.
        await loseConnection(h)
        #expect(h.state.connection.isLost && h.state.passwordPrompt?.reconnects == true)
        await h.drain()
    }

    /// The user switches to bob while the reconnect is on its way: its answer belongs to the
    /// old session and says nothing.
    @Test func aReconnectAnsweringAfterASwitchShowsNothing() async {
        let h = await editingAfterSignIn()
        h.model.closeEditor()
        _ = h.model.confirm()
        let late = h.model.setQuery("x")!
        let lateCall = await h.nextCall(.search)
        await loseConnection(h)
        let reconnect = h.model.submitPassword(Self.password)!
        let reauthentication = await h.nextCall(.reauthenticate)
        let alice = h.remote
        await h.switchAccount(to: "bob")
        #expect(h.state.account == "bob" && !h.state.connection.isLost)
        await h.release(reauthentication.number, on: alice, .deliver, request: reconnect)
        #expect(h.state.message == nil && h.state.passwordPrompt == nil && h.state.account == "bob")

        // A late "password needed" from alice's session does not mark bob's as lost.
        await h.release(lateCall.number, on: alice, .passwordNeeded, request: late)
        #expect(!h.state.connection.isLost && h.state.passwordPrompt == nil)
        await h.drain()
    }
}
