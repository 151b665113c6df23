import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// What the user acts on is what they see, and what the screen says is so.
@MainActor
@Suite struct ActingOnWhatIsShownTests {
    static let books = [book(1, "A History of Astronomy"), book(2, "History of Rome", author: "Theodor Mommsen")]

    @Test("Enter while a newer search is on its way opens the first row of its answer, not an old row")
    func enterDuringAPendingSearch() async {
        let h = Harness(books: ["alice": Self.books, "bob": []])
        await h.start(answering: .deliver)
        #expect(h.search.selectedBook?.id == 1)
        let search = h.model.setQuery("mommsen")!
        #expect(!h.search.rowsAreCurrent, "the rows answer the old query and say so")
        #expect(h.model.openSelected() == nil, "no old row opens")
        #expect(h.editor == nil)
        #expect(h.search.opensWhenAnswered)
        let call = await h.nextCall(.search)
        await h.release(call.number, .page([Self.books[1]], total: 1), request: search)
        #expect(h.search.rowsAreCurrent)
        #expect(h.editor?.bookID == 2, "the first row of the answer to what was typed opens")
        await h.drain()
    }

    @Test("moving the selection or typing again cancels the pending open")
    func pendingOpenIsCancelledByTheUser() async {
        let h = Harness(books: ["alice": Self.books, "bob": []])
        await h.start(answering: .deliver)
        let first = h.model.setQuery("mom")!
        h.model.openSelected()
        let second = h.model.setQuery("mommsen")!
        #expect(!h.search.opensWhenAnswered)
        await h.release(await h.nextCall(.search).number, .page([Self.books[1]], total: 1), request: first)
        await h.release(await h.nextCall(.search).number, .page([Self.books[1]], total: 1), request: second)
        #expect(h.editor == nil, "Enter was for another query")
        await h.drain()
    }

    @Test("saving an unchanged draft sends nothing and says so")
    func saveWithoutChanges() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h, typing: BookDraft(original))
        #expect(h.model.save() == nil)
        #expect(h.editor?.outcome == .noChanges)
        #expect(await h.remote.arrivalCount(of: .save) == 0, "no store call, no new revision")
        await h.drain()
    }

    @Test("what the last save said goes away once the draft changes")
    func staleOutcomeClearsOnEdit() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        #expect(h.editor?.outcome == .saved(revision: 2))
        h.model.setDraft(.title, to: "Mine again")
        #expect(h.editor?.outcome == nil, "'Saved as revision 2' beside a modified draft is not so")
        await h.drain()
    }

    @Test("a save re-runs the search: a book retitled out of the query leaves the list")
    func ownSaveRefreshesTheList() async throws {
        let catalog = MemoryCatalog()
        catalog.addAccount(Account(name: "alice", role: .editor, scope: "main"))
        let rome = catalog.addBook(title: "History of Rome", scope: "main")
        _ = catalog.addBook(title: "Rome in Winter", scope: "main")
        let model = BookshelfModel(connector: MemoryCatalogConnector(catalog: catalog), account: "alice")
        await settle(model, model.start())
        await settle(model, model.setQuery("rome"))
        #expect(model.state.search.total == 2)
        await settle(model, model.open(bookID: rome.id))
        model.setDraft(.title, to: "History of Carthage")
        await settle(model, model.save())
        #expect(model.state.editor?.outcome == .saved(revision: 2))
        #expect(model.state.search.rows.map(\.id) == [rome.id + 1], "only the book that still matches")
        #expect(model.state.search.total == 1)
    }

    @Test("a reader's editor opens read-only and says why")
    func readerViewsOnly() async {
        let catalog = MemoryCatalog()
        catalog.addAccount(Account(name: "bob", role: .reader, scope: "main"))
        let only = catalog.addBook(title: "History of Rome", scope: "main")
        let model = BookshelfModel(connector: MemoryCatalogConnector(catalog: catalog), account: "bob")
        await settle(model, model.start())
        await model.accountsListed()
        #expect(model.state.accountRole == .reader)
        #expect(model.state.accounts.first?.role == .reader, "the switcher can show each account's role")
        await settle(model, model.open(bookID: only.id))
        #expect(model.state.editor?.readOnlyReason == "bob is a reader: viewing only.")
        model.setDraft(.title, to: "Changed")
        #expect(model.state.editor?.draft.title == "History of Rome")
        #expect(model.save() == nil)
    }

    // MARK: A save in flight cannot be discarded

    @Test(
        "quitting, closing or switching while a save is in flight waits for it, and goes ahead only if it went through",
        arguments: [ModelConfirmation.Action.quit, .closeEditor, .switchAccount("bob")], [true, false])
    func actionWhileSaving(action: ModelConfirmation.Action, saveGoesThrough: Bool) async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        if !saveGoesThrough { await h.remote.put(theirs) }
        // Bob's connection waits for the test, as a real one takes time: otherwise it may have
        // answered before the test looks for it.
        h.connector.holdConnections()
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        switch action {
        case .quit: h.model.requestQuit()
        case .closeEditor: h.model.closeEditor()
        case let .switchAccount(name): h.model.requestAccountSwitch(to: name)
        case .switchCatalog: Issue.record("not among the arguments: CatalogSwitchTests has its own")
        }
        #expect(h.state.confirmation == ModelConfirmation(action: action, waitsForSave: true))
        #expect(h.state.confirmation?.question.contains("save is in progress") == true)
        #expect(h.model.confirm() == nil, "nothing happens while the save is in flight")
        #expect(h.state.waitingForSave == action)
        #expect(!h.state.shouldQuit && h.editor != nil && h.state.session == 1)

        await h.remote.release(call.number, .deliver)
        if !saveGoesThrough { await h.remote.release(await h.nextCall(.load).number, .deliver) }  // theirs
        await h.model.finished(request: save)
        #expect(h.state.waitingForSave == nil)
        if saveGoesThrough {
            #expect(h.state.message?.contains("Saved book #1 as revision 2") == true)
            switch action {
            case .quit: #expect(h.state.shouldQuit)
            case .closeEditor: #expect(h.editor == nil)
            case .switchCatalog: break
            case .switchAccount:
                await h.connector.waitForHeldConnection()
                let connect = h.model.pendingRequests.last { $0.kind == .connect }!.request
                h.connector.releaseHeldConnection()
                await h.model.finished(request: connect)
                #expect(h.state.account == "bob")
                #expect(
                    h.state.message?.contains("Saved book #1 as revision 2 (alice)") == true, "told after the switch")
            }
        } else {
            #expect(!h.state.shouldQuit && h.state.session == 1)
            #expect(h.editor?.draft == mine && h.editor?.conflict?.theirs == theirs)
            #expect(h.state.message?.contains("did not go through") == true)
        }
        await h.drain()
    }

    /// Issue 43, item 5: switching while a save's outcome is unknown says what the editor
    /// says (unknown), never "did not go through".
    @Test func switchingWhileTheOutcomeIsUnknownSaysUnknown() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        h.model.requestAccountSwitch(to: "bob")
        _ = h.model.confirm()
        #expect(h.state.waitingForSave == .switchAccount("bob"))
        await h.remote.release(call.number, .commitThenFail(.outcomeUnknown))
        await h.remote.release(await h.nextCall(.load).number, .fail(.storeUnavailable("server restarting")))
        await h.model.finished(request: save)
        #expect(h.editor?.outcome == .unresolved(.storeUnavailable("server restarting")))
        #expect(h.state.session == 1)
        #expect(h.state.message?.contains("did not go through") == false)
        #expect(h.state.message?.contains("Unknown whether the save went through") == true)
        await h.drain()
    }

    @Test("a question about a save in progress goes once the save has answered")
    func questionAboutASaveInProgressGoesWithIt() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        h.model.requestQuit()
        #expect(h.state.confirmation?.waitsForSave == true)
        await h.release(call.number, .deliver, request: save)
        #expect(h.state.confirmation == nil, "nothing is in progress and nothing is unsaved: no question")
        #expect(!h.state.shouldQuit, "unanswered, so nothing happened")
        await h.drain()
    }

    private func settle(_ model: BookshelfModel, _ request: Int?) async {
        if let request { await model.finished(request: request) }
        while let next = model.runningRequests.first { await model.finished(request: next) }
    }
}
