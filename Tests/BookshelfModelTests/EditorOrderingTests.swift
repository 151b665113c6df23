import BookCatalog
import TestTags
import Testing
@testable import BookshelfModel

/// The editor against orderings a real store produces: a save commits at one step and
/// answers at a later one, another writer commits between any two steps, a change notice
/// lands in between, and connecting to another account takes time while the user types.
/// Expected states come from the store's own history (what committed, and when).
@MainActor
@Suite struct EditorOrderingTests {
    @Test("a save answered after someone else's newer revision reports the user's own revision, and theirs apart")
    func ownSaveIsNotTakenForSomeoneElsesNewerRevision() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)
        await h.remote.perform(saveCall.number)  // the store commits "Mine" as revision 2
        let ours = await h.remote.books[1]!
        #expect(ours.revision == 2 && ours.title == mine.title)
        let others = book(1, "Theirs", revision: 3)
        await h.remote.put(others)  // someone else saves on top
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(.unspecified), request: check)
        await h.answer(.load, with: .deliver)  // the watch re-reads the book: revision 3
        await h.answer(.search, with: .deliver)
        await h.release(saveCall.number, .deliver, request: save)

        let editor = h.editor!
        #expect(editor.outcome == .saved(revision: ours.revision))
        #expect(editor.draft == mine, "the user's own text stays")
        #expect(editor.base == ours)
        #expect(editor.changedElsewhere == others, "their revision is shown as theirs")
        #expect(h.search.rows.first { $0.id == 1 } == others, "the list shows the newest revision")
        await h.drain()
    }

    @Test("an uncertain save found committed after someone else saved on top keeps the user's text")
    func reconciledSaveUnderAnotherWriter() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)
        await h.remote.release(saveCall.number, .commitThenFail(.outcomeUnknown))  // revision 2, answer lost
        let others = book(1, "Theirs", revision: 3)
        // The reconciling read of a store without an operation log sees only revision 3: it
        // cannot tell that revision 2 was the user's, and must not claim either way falsely.
        let reconcileRead = await h.nextCall(.load)
        await h.remote.put(others)
        await h.remote.perform(reconcileRead.number)
        await h.remote.release(reconcileRead.number, .deliver)
        await h.model.finished(request: save)
        let editor = h.editor!
        #expect(editor.draft == mine, "the draft is kept")
        #expect(editor.outcome == .notCommitted || editor.outcome == .saved(revision: 2))
        if case .saved? = editor.outcome { Issue.record("revision 3 is someone else's: \(editor)") }
        await h.drain()
    }

    @Test("typing while another account connects is refused and says why, so nothing typed is dropped unasked")
    func typingWhileSwitching() async {
        let h = Harness(books: ["alice": [original], "bob": [book(7, "Bob's book")]])
        await openEditor(h, typing: BookDraft(original))  // clean
        h.connector.holdConnections()
        let connect = h.model.requestAccountSwitch(to: "bob")!
        await h.connector.waitForHeldConnection()
        h.model.setDraft(.title, to: "Typed while connecting")
        let kept = h.editor?.draft.title == "Typed while connecting"
        if !kept {
            #expect(h.editor?.readOnlyReason?.contains("bob") == true, "the editor says why typing does nothing")
            #expect(h.editor?.canSave == false)
        }
        h.connector.releaseHeldConnection()
        await h.model.finished(request: connect)
        if kept {
            #expect(
                h.state.confirmation != nil && h.editor?.draft.title == "Typed while connecting",
                "the typed draft was dropped without a question")
        } else {
            #expect(h.state.account == "bob")
        }
        await h.drain()
    }

    @Test("after a failed switch the editor is editable again")
    func editableAfterAFailedSwitch() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h, typing: BookDraft(original))
        h.connector.holdConnections()
        h.connector.failConnections(to: "bob", with: .storeUnavailable("down"))
        let connect = h.model.requestAccountSwitch(to: "bob")!
        await h.connector.waitForHeldConnection()
        #expect(h.editor?.readOnlyReason != nil)
        h.connector.releaseHeldConnection()
        await h.model.finished(request: connect)
        #expect(h.editor?.readOnlyReason == nil)
        h.model.setDraft(.title, to: "Typed after")
        #expect(h.editor?.draft.title == "Typed after")
        await h.drain()
    }
}

/// The editor under every order of the steps of a save, another writer, a change notice, an
/// account switch and typing: 30,240 cases, the exhaustive tier (`Scripts/test exhaustive`).
@MainActor
@Suite(.tags(.exhaustive)) struct EditorEveryOrderTests {
    enum Event: Hashable, CaseIterable {
        case saveCommit, saveAnswer, otherWriter, check, watchRead, watchAnswer, switchStart, connected, type
    }

    /// A save in flight, another writer, a change notice and the re-read it starts, an account
    /// switch that takes time, and the user typing: every order of their steps, with the save
    /// answered or its answer lost after it committed.
    @Test func saveWatchSwitchAndTypingInEveryOrder() async {
        let orders = EditorRaceTests.orders(
            Event.allCases,
            before: [
                (.saveCommit, .saveAnswer), (.check, .watchRead), (.watchRead, .watchAnswer),
                (.switchStart, .connected),
            ])
        var cases = 0
        var problems: [String] = []
        for order in orders {
            for answerLost in [false, true] {
                problems += await play(order, answerLost: answerLost)
                cases += 1
            }
            if problems.count > 10 { break }
        }
        print(
            "EditorEveryOrderTests.saveWatchSwitchAndTypingInEveryOrder: \(cases) cases (\(orders.count) orders x 2 save fates)"
        )
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(3).joined(separator: "\n"))")
        #expect(cases == 15_120 * 2)
    }

    private func play(_ order: [Event], answerLost: Bool) async -> [String] {
        var problems: [String] = []
        func fail(_ text: String, at event: Event) {
            problems.append("\(text) at \(event) in \(order), answer lost: \(answerLost)")
        }
        let bobsBook = book(7, "Bob's book")
        let h = Harness(books: ["alice": [original], "bob": [bobsBook]])
        await openEditor(h)  // draft "Mine", dirty
        let alice = h.remote
        h.connector.holdConnections()
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)
        let check = h.model.checkForChanges()!
        let checkCall = await h.nextCall(.check)

        var ourRevision: Int?
        var theirs: BookRecord?
        var watch: (request: Int, call: Int)?
        var connect: Int?
        var consented: BookDraft?
        var lastDraft = h.editor!.draft
        var lastWasDirty = true
        var highestBase = h.editor!.base!.revision
        var shownRevision = [Int: Int]()

        for event in order {
            switch event {
            case .saveCommit:
                let before = await alice.books[1]!
                await alice.perform(saveCall.number)
                let after = await alice.books[1]!
                if after.revision == before.revision + 1 { ourRevision = after.revision }
            case .saveAnswer:
                // A conflict fetches theirs, an unknown outcome reconciles: one read, answered
                // at once, unless the session it belongs to has ended.
                let followsUp = (answerLost || ourRevision == nil) && h.state.session == 1
                await alice.release(saveCall.number, answerLost ? .commitThenFail(.outcomeUnknown) : .deliver)
                if followsUp {
                    let followUp = await h.nextCall(.load, on: alice)
                    await alice.release(followUp.number, .deliver)
                }
                await h.model.finished(request: save)
                await h.answerRefreshAfterSave(save, except: watch.map { [$0.request] } ?? [], on: alice)
            case .otherWriter:
                let current = await alice.books[1]!
                let next = book(1, "Theirs", revision: current.revision + 1)
                await alice.put(next)
                theirs = next
            case .check:
                await h.release(checkCall.number, on: alice, .notice(.unspecified), request: check)
                if let refresh = h.model.pendingRequests.first(where: { $0.kind == .refresh && $0.request > check }) {
                    let call = await h.nextCall(.search, on: alice)
                    await h.release(call.number, on: alice, .deliver, request: refresh.request)
                }
                if let reread = h.model.pendingRequests.first(where: { $0.kind == .load && $0.request > check }) {
                    watch = (reread.request, await h.nextCall(.load, on: alice).number)
                }
            case .watchRead:
                if let watch { await alice.perform(watch.call) }
            case .watchAnswer:
                if let watch { await h.release(watch.call, on: alice, .deliver, request: watch.request) }
            case .switchStart:
                connect = h.model.requestAccountSwitch(to: "bob")
                if connect == nil, h.state.confirmation != nil {
                    consented = h.editor?.draft
                    connect = h.model.confirm()
                }
                if connect != nil { await h.connector.waitForHeldConnection() }
            case .connected:
                // A switch confirmed while the save was in flight starts when it has gone through.
                guard let started = connect ?? h.model.pendingRequests.last(where: { $0.kind == .connect })?.request
                else { break }
                connect = started
                await h.connector.waitForHeldConnection()
                h.connector.releaseHeldConnection()
                await h.model.finished(request: started)
                let first = h.model.pendingRequests.last { $0.kind == .search }!.request
                let call = await h.nextCall(.search, on: h.connector.latest)
                await h.release(call.number, on: h.connector.latest, .deliver, request: first)
            case .type:
                h.model.setDraft(.title, to: "Typed")
            }

            // What the store committed decides what may be shown.
            if let editor = h.editor {
                if case let .saved(revision)? = editor.outcome, revision != ourRevision {
                    fail(
                        "reports saved revision \(revision), but the user's save committed \(String(describing: ourRevision))",
                        at: event)
                }
                if !["Mine", "Typed"].contains(editor.draft.title) {
                    fail("the draft became \(editor.draft.title)", at: event)
                }
                if let base = editor.base {
                    if base.revision < highestBase { fail("base went back to \(base.revision)", at: event) }
                    highestBase = base.revision
                    if base.title == "Theirs" { fail("their revision became the base: \(base)", at: event) }
                }
                if let elsewhere = editor.changedElsewhere, elsewhere != theirs {
                    fail(
                        "changed elsewhere shows \(elsewhere), someone else committed \(String(describing: theirs))",
                        at: event)
                }
                lastDraft = editor.draft
                lastWasDirty = editor.isDirty
            } else if lastWasDirty, lastDraft != consented {
                fail(
                    "the draft \(lastDraft) went without a question (consented to \(String(describing: consented)))",
                    at: event)
                lastWasDirty = false
            }
            if h.state.account == "bob" {
                if h.search.rows.contains(where: { $0.id != bobsBook.id }) { fail("alice's rows under bob", at: event) }
                if h.editor != nil { fail("alice's editor under bob", at: event) }
            } else {
                for row in h.search.rows {
                    if row.revision < shownRevision[row.id, default: 0] {
                        fail("row \(row.id) went back to \(row.revision)", at: event)
                    }
                    shownRevision[row.id] = row.revision
                }
            }
        }
        // A switch that waited for the save and started after the last step.
        while let started = h.model.pendingRequests.last(where: { $0.kind == .connect })?.request {
            await h.connector.waitForHeldConnection()
            h.connector.releaseHeldConnection()
            await h.model.finished(request: started)
        }
        await h.drain()
        return problems
    }
}
