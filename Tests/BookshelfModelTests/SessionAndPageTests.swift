import BookCatalog
import Testing
@testable import BookshelfModel

@MainActor
@Suite struct SessionTests {
    @Test func dirtyDraftAsksBeforeSwitchingAndCancelKeepsEverything() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        #expect(h.model.requestAccountSwitch(to: "bob") == nil)
        #expect(h.state.confirmation == Confirmation(action: .switchAccount("bob")))
        h.model.cancelConfirmation()
        #expect(h.state.confirmation == nil)
        #expect(h.editor?.draft == mine)
        #expect(h.state.session == 1)
        #expect(h.connector.connectionCount == 1)
        await h.drain()
    }

    @Test func dirtyDraftAsksBeforeQuittingAndClosing() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        h.model.requestQuit()
        #expect(h.state.confirmation?.action == .quit)
        #expect(!h.state.shouldQuit)
        h.model.cancelConfirmation()
        h.model.closeEditor()
        #expect(h.state.confirmation?.action == .closeEditor)
        h.model.cancelConfirmation()
        #expect(h.editor?.draft == mine)
        h.model.requestQuit()
        h.model.confirm()
        #expect(h.state.shouldQuit)
        await h.drain()
    }

    @Test func cleanEditorClosesAndQuitsWithoutAsking() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h, typing: BookDraft(original))
        h.model.closeEditor()
        #expect(h.editor == nil && h.state.confirmation == nil)
        h.model.requestQuit()
        #expect(h.state.shouldQuit)
        await h.drain()
    }

    @Test func failedConnectKeepsTheCurrentSessionAndDraft() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        h.connector.failConnections(to: "bob", with: .storeUnavailable("no route"))
        h.model.requestAccountSwitch(to: "bob")
        let connect = h.model.confirm()!
        #expect(h.state.connection.connectingTo == "bob")
        await h.model.finished(request: connect)
        #expect(h.state.connection.error == BookFailure.storeUnavailable("no route").description)
        #expect(h.state.connection.connectingTo == nil)
        #expect(h.state.session == 1 && h.state.account == "alice")
        #expect(h.editor?.draft == mine)
        #expect(h.search.rows == [original])
        await h.drain()
    }

    @Test func failedFirstConnectShowsAnErrorAndNoSession() async {
        let h = Harness(books: ["alice": [], "bob": []])
        h.connector.failConnections(to: "alice", with: .notAllowed)
        await h.model.finished(request: h.model.start()!)
        #expect(h.state.session == 0 && h.state.account == nil)
        #expect(h.state.connection.error == BookFailure.notAllowed.description)
        #expect(h.model.setQuery("x") == nil)
    }

    @Test func passwordIsAskedForAndNeverKeptInState() async {
        let h = Harness(books: ["alice": [], "bob": [book(5, "Bob's")]], passwords: ["bob": "s3cret-pw"])
        await h.start()
        #expect(h.state.accounts.map(\.name) == ["alice", "bob"])
        #expect(h.state.accounts.first { $0.name == "bob" }?.needsPassword == true)
        #expect(h.model.requestAccountSwitch(to: "bob") == nil)
        #expect(h.state.passwordPrompt == PasswordPrompt(account: "bob"))
        await h.model.finished(request: h.model.submitPassword("s3cret-pw")!)
        #expect(h.state.account == "bob" && h.state.session == 2)
        #expect(!String(describing: h.state).contains("s3cret-pw"))
        #expect(!h.model.log.entries.description.contains("s3cret-pw"))
        await h.drain()
    }

    /// Issue 43, item 9: a wrong password when switching asks again and says so, as the
    /// reconnect prompt does, instead of a connection error; the current session stays.
    @Test func aWrongPasswordWhenSwitchingAsksAgainAndSaysWhy() async {
        let h = Harness(books: ["alice": [original], "bob": [book(5, "Bob's")]], passwords: ["bob": "s3cret-pw"])
        await h.start()
        #expect(h.model.requestAccountSwitch(to: "bob") == nil)
        await h.model.finished(request: h.model.submitPassword("wrong")!)
        #expect(h.state.passwordPrompt == PasswordPrompt(account: "bob", problem: "That password was not accepted."))
        #expect(h.state.connection.error == nil)
        #expect(h.state.account == "alice" && h.state.session == 1 && h.search.rows == [original])

        await h.model.finished(request: h.model.submitPassword("s3cret-pw")!)
        #expect(h.state.passwordPrompt == nil && h.state.connection.error == nil)
        #expect(h.state.account == "bob" && h.state.session == 2)
        await h.drain()
    }

    @Test func switchClearsErrorsAndStartsTheTypedQueryInTheNewSession() async {
        let h = Harness(books: ["alice": [original], "bob": [book(7, "Bob's")]])
        await h.start()
        let failing = h.model.setQuery("b")!
        await h.release(await h.nextCall(.search).number, .fail(.storeUnavailable("x")), request: failing)
        #expect(h.search.error != nil)
        await h.switchAccount(to: "bob")
        #expect(h.search.error == nil && h.search.rows.isEmpty && h.search.isBusy)
        guard case let .search(query) = await h.nextCall(.search).call else {
            Issue.record("expected a search"); return
        }
        #expect(query.text == "b")
        await h.drain()
    }
}

@MainActor
@Suite struct PageTests {
    static let books = (1...5).map { book($0, "Book \($0)") }

    @Test func movingNearTheEndLoadsAndAppendsTheNextPage() async {
        let h = Harness(books: ["alice": Self.books, "bob": []], pageSize: 2)
        await h.start(answering: .page(Array(Self.books[0..<2]), total: 5))
        #expect(h.search.hasMore)
        h.model.moveSelection(by: 1)
        #expect(h.search.isLoadingMore)
        let page = h.model.pendingRequests.last!.request
        let call = await h.nextCall(.search)
        guard case let .search(query) = call.call else { Issue.record("expected a search"); return }
        #expect(query.offset == 2 && query.limit == 2)
        await h.release(call.number, .page(Array(Self.books[2..<4]), total: 5), request: page)
        #expect(h.search.rows == Array(Self.books[0..<4]))
        #expect(!h.search.isLoadingMore)
        #expect(h.search.selection == 1)
        await h.drain()
    }

    @Test func pageOfAnOldQueryIsNotAppendedToNewResults() async {
        let h = Harness(books: ["alice": Self.books, "bob": []], pageSize: 2)
        await h.start(answering: .page(Array(Self.books[0..<2]), total: 5))
        let page = h.model.loadMore()!
        let pageCall = await h.nextCall(.search)
        let search = h.model.setQuery("book 5")!
        #expect(!h.search.isLoadingMore)
        await h.release(pageCall.number, .page(Array(Self.books[2..<4]), total: 5), request: page)
        #expect(h.search.rows == Array(Self.books[0..<2]))
        #expect(h.model.log.trace(ofRequest: page)?.fate == .droppedStale)
        await h.release(await h.nextCall(.search).number, .page([Self.books[4]], total: 1), request: search)
        #expect(h.search.rows == [Self.books[4]])
        #expect(h.model.loadMore() == nil, "nothing more to load")
        await h.drain()
    }

    @Test func noPageLoadWhileTheCurrentSearchIsPendingOrFailed() async {
        let h = Harness(books: ["alice": Self.books, "bob": []], pageSize: 2)
        await h.start(answering: .page(Array(Self.books[0..<2]), total: 5))
        let search = h.model.setQuery("b")!
        #expect(h.model.loadMore() == nil)
        await h.release(await h.nextCall(.search).number, .fail(.storeUnavailable("x")), request: search)
        #expect(h.model.loadMore() == nil, "the rows answer an older query")
        await h.drain()
    }
}

@MainActor
@Suite struct DiagnosticsTests {
    @Test func traceRecordsFatesAndTimingsButNoUserText() async {
        let h = Harness(books: ["alice": [book(1, "Secret Title", author: "Hidden Author")], "bob": []])
        await h.start()
        let a = h.model.setQuery("private query words")!
        let callA = await h.nextCall(.search)
        let b = h.model.setQuery("other private words")!
        await h.release(
            await h.nextCall(.search).number, .fail(.storeUnavailable("Secret Title unreachable")), request: b)
        await h.release(callA.number, .deliver, request: a)
        await h.switchAccount(to: "bob")

        let fates = h.model.log.entries.map { ($0.request, $0.kind, $0.fate) }
        #expect(fates.contains { $0 == (a, .search, .droppedStale) })
        #expect(fates.contains { $0 == (b, .search, .failed(.unavailable)) })
        #expect(h.model.log.entries.allSatisfy { $0.storeTime > .zero })
        #expect(h.traces == h.model.log.entries)
        let text = h.model.log.entries.map(\.description).joined(separator: "\n")
        for secret in ["private", "query", "Secret", "Title", "Hidden", "unreachable"] {
            #expect(!text.contains(secret))
        }
        #expect(text.contains("request=\(a) session=1 kind=search"))
        await h.drain()
    }

    @Test func logIsABoundedRing() {
        var log = RequestLog(capacity: 3)
        for n in 1...5 {
            log.record(
                RequestTrace(
                    request: n, session: 1, kind: .search, started: .zero, storeTime: .milliseconds(n), fate: .published
                ))
        }
        #expect(log.entries.map(\.request) == [3, 4, 5])
        #expect(log.last?.request == 5)
        #expect(log.recordedCount == 5)
        #expect(log.trace(ofRequest: 1) == nil)
        #expect(RequestTrace.milliseconds(.microseconds(3210)) == "3.210")
    }
}
