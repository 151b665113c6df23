import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The server goes away while the user is idle or typing a draft (issue 43, item 7): the
/// freshness check, once a second, is the first to find out. The session says it cannot
/// reach the store, keeps everything on screen, and says so no longer once the store answers.
@MainActor
@Suite struct UnreachableStoreTests {
    static let down = BookFailure.storeUnavailable("connection to server refused")

    /// Book 1 open with the draft "Mine" typed, nothing sent.
    private func editing() async -> Harness {
        let h = Harness(books: ["alice": [original, book(2, "Other")], "bob": []])
        await openEditor(h)
        return h
    }

    private func check(_ h: Harness, _ reply: SteppedRemote.Reply) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, reply, request: check)
    }

    @Test func aFailedCheckMarksTheStoreUnreachableUntilACheckSucceeds() async {
        let h = await editing()
        let rows = h.search.rows
        #expect(!h.state.connection.isUnreachable)

        await check(h, .fail(Self.down))
        #expect(h.state.connection.isUnreachable)
        // Nothing is replaced or asked: the same session, rows and draft; no password prompt.
        #expect(h.state.session == 1 && h.state.account == "alice" && !h.state.connection.isLost)
        #expect(h.search.rows == rows && h.editor?.draft == mine && h.state.passwordPrompt == nil)

        await check(h, .fail(Self.down))
        #expect(h.state.connection.isUnreachable, "still down")

        await check(h, .deliver)
        #expect(!h.state.connection.isUnreachable)
        await h.drain()
    }

    /// A server that stops answering without refusing (a network cut) leaves the check
    /// waiting for its deadline: a check unanswered for a few seconds says as much as one
    /// that failed, and its late answer is still the news it brings.
    @Test(arguments: [false, true])
    func aCheckLeftUnansweredMarksTheStoreUnreachable(answerFails: Bool) async {
        let h = await editing()
        let check = h.model.checkForChanges()!
        let call = await h.nextCall(.check)
        h.clock.advance(milliseconds: 1_000)
        #expect(h.model.checkForChanges() == nil, "one check at a time")
        #expect(!h.state.connection.isUnreachable, "a second is no outage")
        h.clock.advance(milliseconds: 2_000)
        #expect(h.model.checkForChanges() == nil)
        #expect(h.state.connection.isUnreachable, "three seconds without an answer")
        #expect(h.search.rows.count == 2 && h.editor?.draft == mine)

        await h.release(call.number, answerFails ? .fail(Self.down) : .deliver, request: check)
        #expect(h.state.connection.isUnreachable == answerFails)
        await h.drain()
    }

    @Test func aSaveThatGoesThroughSaysTheStoreAnswers() async {
        let h = await editing()
        await check(h, .fail(Self.down))
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(!h.state.connection.isUnreachable)
        await h.drain()
    }

    /// A save sent before the failing check and one sent after it, answering before or after
    /// the check's failure: the newest request to tell wins, whenever its answer comes. Only
    /// a request that began after the failure can say the store is back.
    @Test(arguments: [false, true], [false, true])
    func theNewestEvidenceWinsWhateverOrderTheAnswersCome(saveBeginsFirst: Bool, saveAnswersFirst: Bool) async {
        let h = await editing()
        var save: Int?
        var saveCall: Int?
        if saveBeginsFirst {
            save = h.model.save()!
            saveCall = await h.nextCall(.save).number
        }
        let check = h.model.checkForChanges()!
        let checkCall = await h.nextCall(.check).number
        if !saveBeginsFirst {
            save = h.model.save()!
            saveCall = await h.nextCall(.save).number
        }
        if saveAnswersFirst { await h.release(saveCall!, .deliver, request: save!) }
        await h.release(checkCall, .fail(Self.down), request: check)
        if !saveAnswersFirst { await h.release(saveCall!, .deliver, request: save!) }

        #expect(h.editor?.outcome == .saved(revision: 2))
        // The check began after the first save and before the second.
        #expect(
            h.state.connection.isUnreachable == saveBeginsFirst,
            "save began \(saveBeginsFirst ? "before" : "after") the check, answered \(saveAnswersFirst ? "first" : "last")"
        )
        await h.drain()
    }

    @Test func aLostPasswordIsNotAnUnreachableStore() async {
        let h = Harness(books: ["alice": [original], "bob": []], passwords: ["alice": "pw"])
        await h.model.finished(request: h.model.start(password: "pw")!)
        await h.answer(.search, with: .deliver)
        await check(h, .passwordNeeded)
        #expect(h.state.connection.isLost && !h.state.connection.isUnreachable)
        await h.drain()
    }

    @Test func aNewSessionStartsReachableAndAnOldSessionsCheckSaysNothing() async {
        let h = await editing()
        h.model.closeEditor()
        _ = h.model.confirm()
        await check(h, .fail(Self.down))
        #expect(h.state.connection.isUnreachable)
        await h.switchAccount(to: "bob")
        #expect(h.state.account == "bob" && !h.state.connection.isUnreachable)
        await h.answer(.search, with: .deliver)

        // A check of bob's session in flight while he switches to alice fails late.
        let bobCheck = h.model.checkForChanges()!
        let bobCall = await h.nextCall(.check)
        let bob = h.remote
        await h.switchAccount(to: "alice")
        await h.release(bobCall.number, on: bob, .fail(Self.down), request: bobCheck)
        #expect(h.state.account == "alice" && !h.state.connection.isUnreachable)
        await h.drain()
    }
}
