import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The six ways a save can end, and how the scripted store produces each.
enum SaveEnding: CaseIterable, CustomStringConvertible {
    case success, conflict, notAllowed, unavailable, unknownCommitted, unknownNotCommitted

    var reply: SteppedRemote.Reply {
        switch self {
        case .success, .conflict: .deliver
        case .notAllowed: .fail(.notAllowed)
        case .unavailable: .fail(.storeUnavailable("down"))
        case .unknownCommitted: .commitThenFail(.outcomeUnknown)
        case .unknownNotCommitted: .fail(.outcomeUnknown)
        }
    }

    /// A conflict fetches theirs; an unknown outcome reconciles: one more load.
    var hasFollowUp: Bool { [.conflict, .unknownCommitted, .unknownNotCommitted].contains(self) }
    var commits: Bool { self == .success || self == .unknownCommitted }
    var description: String {
        switch self {
        case .success: "success"
        case .conflict: "conflict"
        case .notAllowed: "notAllowed"
        case .unavailable: "unavailable"
        case .unknownCommitted: "unknownCommitted"
        case .unknownNotCommitted: "unknownNotCommitted"
        }
    }
}

let original = book(1, "Old")
let theirs = book(1, "Theirs", revision: 2)
let mine = BookDraft(title: "Mine", author: "")

@MainActor
func openEditor(_ h: Harness, typing draft: BookDraft = mine) async {
    await h.start(answering: .deliver)
    _ = h.model.openSelected()!
    await h.answer(.load, with: .deliver)
    h.model.setDraft(.title, to: draft.title)
    h.model.setDraft(.author, to: draft.author)
}

@MainActor
@Suite struct EditorRaceTests {
    enum Event: Hashable { case check, saveReply, followUp, refreshDone, rereadDone }

    /// Every order of `events` in which each pair of `before` comes in its order.
    static func orders<Step: Equatable>(_ events: [Step], before: [(Step, Step)]) -> [[Step]] {
        var result: [[Step]] = []
        func extend(_ prefix: [Step], _ left: [Step]) {
            if left.isEmpty { result.append(prefix); return }
            for event in left where !before.contains(where: { $0.1 == event && left.contains($0.0) }) {
                extend(prefix + [event], left.filter { $0 != event })
            }
        }
        extend([], events)
        return result
    }

    /// A save racing with a change check and the refresh and re-read it starts, every order.
    @Test func saveOutcomesRacingWithRefresh() async {
        var cases = 0
        for ending in SaveEnding.allCases {
            let events: [Event] =
                [.check, .saveReply, .refreshDone, .rereadDone] + (ending.hasFollowUp ? [.followUp] : [])
            let orders = Self.orders(
                events, before: [(.check, .refreshDone), (.check, .rereadDone), (.saveReply, .followUp)])
            for order in orders {
                await raceWithRefresh(ending, order)
                cases += 1
            }
        }
        print("EditorRaceTests.saveOutcomesRacingWithRefresh: \(cases) cases")
        #expect(cases == 3 * 8 + 3 * 20)
    }

    private func raceWithRefresh(_ ending: SaveEnding, _ order: [Event]) async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        if ending == .conflict { await h.remote.put(theirs) }
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)
        var calls: [Event: Int] = [:]
        var requests: [Event: Int] = [:]
        var rowRevision = 1
        var done: Set<Event> = []
        let label = "\(ending) \(order)"

        for event in order {
            switch event {
            case .check:
                let check = h.model.checkForChanges()!
                let call = await h.nextCall(.check)
                await h.release(call.number, .notice(.unspecified), request: check)
                requests[.refreshDone] = h.model.pendingRequests.last { $0.kind == .refresh }!.request
                requests[.rereadDone] = h.model.pendingRequests.last { $0.kind == .load && $0.request > check }!.request
                calls[.refreshDone] = await h.nextCall(.search).number
                calls[.rereadDone] = await h.nextCall(.load).number
            case .saveReply:
                await h.remote.release(saveCall.number, ending.reply)
                if ending.hasFollowUp {
                    calls[.followUp] = await h.nextCall(.load).number
                } else {
                    await h.model.finished(request: save)
                    await h.answerRefreshAfterSave(save, except: Set(requests.values))
                }
            case .followUp:
                await h.release(calls[.followUp]!, .deliver, request: save)
                await h.answerRefreshAfterSave(save, except: Set(requests.values))
            case .refreshDone, .rereadDone:
                await h.release(calls[event]!, .deliver, request: requests[event]!)
            }
            done.insert(event)

            let row = h.search.rows.first { $0.id == 1 }!
            #expect(row.revision >= rowRevision, "row went backward: \(label) after \(event)")
            rowRevision = row.revision
            let editor = h.editor!
            #expect(editor.changedElsewhere == nil, "\(label) after \(event)")
            let saveOver = done.contains(.saveReply) && (!ending.hasFollowUp || done.contains(.followUp))
            if !saveOver {
                #expect(editor.outcome == nil, "\(label) after \(event)")
                #expect(editor.activity != nil, "\(label) after \(event)")
                #expect(editor.draft == mine, "draft lost: \(label) after \(event)")
                continue
            }
            #expect(editor.activity == nil, "\(label) after \(event)")
            switch ending {
            case .success, .unknownCommitted:
                #expect(editor.outcome == .saved(revision: 2), "\(label) after \(event)")
                #expect(editor.base == book(1, "Mine", revision: 2), "\(label) after \(event)")
                #expect(!editor.isDirty, "\(label) after \(event)")
                #expect(row == book(1, "Mine", revision: 2), "row must show the save: \(label) after \(event)")
            case .conflict:
                #expect(editor.conflict?.theirs == theirs, "\(label) after \(event)")
                #expect(editor.draft == mine, "\(label) after \(event)")
                #expect(editor.base?.revision == 1, "\(label) after \(event)")
                #expect(row == theirs, "\(label) after \(event)")
            case .notAllowed:
                #expect(editor.outcome == .rejected(.notAllowed), "\(label)")
                #expect(editor.draft == mine && editor.base == original, "\(label) after \(event)")
            case .unavailable:
                // The checks here all answer: the store never went away, so the note stays
                // (it goes only when the store comes back, RecoveryNoteTests).
                #expect(editor.outcome == .rejected(.storeUnavailable("down")), "\(label)")
                #expect(editor.draft == mine && editor.base == original, "\(label) after \(event)")
            case .unknownNotCommitted:
                #expect(editor.outcome == .notCommitted, "\(label) after \(event)")
                #expect(editor.draft == mine && editor.base == original, "\(label) after \(event)")
            }
        }
        await h.drain()
    }

    /// Saving again while a save is in flight sends nothing: the second write would
    /// conflict with the first.
    @Test func secondSaveWhileSavingIsIgnored() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        h.model.setDraft(.title, to: "Mine, more")
        #expect(h.model.save() == nil)
        #expect(h.editor?.activity == .saving)
        await h.release(call.number, .deliver, request: save)
        #expect(await h.remote.arrivalCount(of: .save) == 1)
        // The user kept typing: the base moved to the saved revision, the newer text stays.
        #expect(h.editor?.base == book(1, "Mine", revision: 2))
        #expect(h.editor?.draft.title == "Mine, more")
        #expect(h.editor?.isDirty == true)
        #expect(h.search.rows == [book(1, "Mine", revision: 2)])
        await h.drain()
    }

    /// An editor is dropped while its save is in flight, the book reopened and saved again:
    /// the first save's answer never shows in the new editor, in every order.
    @Test func abandonedSaveRacingWithASecondEditor() async {
        var cases = 0
        for ending in SaveEnding.allCases {
            for firstAnswerAt in 0...2 {  // before open2's load, between it and save2's answer, after
                let h = Harness(books: ["alice": [original], "bob": []])
                await openEditor(h)
                if ending == .conflict { await h.remote.put(theirs) }
                let save1 = h.model.save()!
                let call1 = await h.nextCall(.save)
                // The app no longer offers this (closing waits for a save in flight), so
                // the editor is dropped directly: its publication rights must still end.
                h.model.discardEditor()
                #expect(h.editor == nil)
                let open2 = h.model.openSelected()!
                let load2 = await h.nextCall(.load)
                let label = "\(ending) at \(firstAnswerAt)"

                func answerFirst() async {
                    let before = h.editor
                    await h.release(call1.number, ending.reply, request: save1)
                    #expect(h.model.log.trace(ofRequest: save1)?.fate == .droppedStale, "\(label)")
                    #expect(h.editor == before, "the first save's answer leaked into the new editor: \(label)")
                }
                if firstAnswerAt == 0 { await answerFirst() }
                await h.release(load2.number, .deliver, request: open2)
                // Load 2 read the store when it arrived: revision 2 if someone else had saved
                // (the conflict case), else revision 1, lifted to 2 only if the first save's
                // answer (revision 2) reached this session before it.
                let base2Revision = ending == .conflict || (ending == .success && firstAnswerAt == 0) ? 2 : 1
                #expect(h.editor!.base!.revision == base2Revision, "\(label)")
                h.model.setDraft(.title, to: "Second")
                let save2 = h.model.save()!
                let call2 = await h.nextCall(.save)
                if firstAnswerAt == 1 { await answerFirst() }
                let firstCommittedFirst = ending.commits && firstAnswerAt < 2
                await h.remote.release(call2.number, .deliver)
                if firstCommittedFirst && base2Revision == 1 {
                    // Save 2 conflicts with save 1: it fetches the current record.
                    await h.remote.release(await h.nextCall(.load).number, .deliver)
                }
                await h.model.finished(request: save2)
                if firstAnswerAt == 2 { await answerFirst() }

                let editor = h.editor!
                if firstCommittedFirst && base2Revision == 1 {
                    #expect(editor.conflict != nil, "\(label)")
                    #expect(editor.draft.title == "Second", "\(label)")
                } else {
                    #expect(editor.outcome == .saved(revision: base2Revision + 1), "\(label)")
                    #expect(!editor.isDirty, "\(label)")
                }
                let newest = await h.remote.books[1]!
                #expect(h.search.rows.first { $0.id == 1 }!.revision == newest.revision, "\(label)")
                await h.drain()
                cases += 1
            }
        }
        print("EditorRaceTests.abandonedSaveRacingWithASecondEditor: \(cases) cases")
    }

    /// An account switch asked for while a save (or its follow-up) is in flight. A save or
    /// a reconciliation cannot be discarded: the switch waits for it and happens only if it
    /// went through, and the user is told either way. A conflict's fetch of theirs is no
    /// save: the draft may be discarded at once, and nothing of the old session appears.
    @Test func saveOutcomesRacingWithAccountSwitch() async {
        var cases = 0
        for ending in SaveEnding.allCases {
            for switchAfterReply in ending.hasFollowUp ? [false, true] : [false] {
                let bobsCopy = book(1, "Bob's copy")
                let h = Harness(books: ["alice": [original], "bob": [bobsCopy]])
                await openEditor(h)
                let aliceRemote = h.remote
                if ending == .conflict { await aliceRemote.put(theirs) }
                // Bob's connection waits for the test, as a real one takes time: otherwise it
                // may have answered before the test looks for it.
                h.connector.holdConnections()
                let save = h.model.save()!
                let call = await h.nextCall(.save)
                var followUp: Int?
                if switchAfterReply {
                    await aliceRemote.release(call.number, ending.reply)
                    followUp = await h.nextCall(.load).number
                }
                let label = "\(ending) switch after reply: \(switchAfterReply)"
                let waitsForSave = !(switchAfterReply && ending == .conflict)
                #expect(h.model.requestAccountSwitch(to: "bob") == nil)
                #expect(
                    h.state.confirmation == Confirmation(action: .switchAccount("bob"), waitsForSave: waitsForSave),
                    "\(label)")
                let connect = h.model.confirm()

                if !waitsForSave {
                    await h.connector.waitForHeldConnection()
                    h.connector.releaseHeldConnection()
                    await h.model.finished(request: connect!)
                    await h.answer(.search, with: .deliver)
                    await h.release(followUp!, on: aliceRemote, .deliver, request: save)
                    #expect(h.model.log.last?.fate == .droppedOldSession, "\(label)")
                } else {
                    #expect(connect == nil, "nothing switches while the save is in flight: \(label)")
                    #expect(h.state.waitingForSave == .switchAccount("bob"), "\(label)")
                    if let followUp {
                        await h.release(followUp, on: aliceRemote, .deliver, request: save)
                    } else {
                        await aliceRemote.release(call.number, ending.reply)
                        if ending.hasFollowUp { await aliceRemote.release(await h.nextCall(.load).number, .deliver) }
                        await h.model.finished(request: save)
                    }
                    guard ending.commits else {
                        #expect(h.state.session == 1, "\(label)")
                        #expect(h.editor?.draft == mine, "the draft stays: \(label)")
                        #expect(h.state.message?.contains("did not go through") == true, "\(label)")
                        await h.drain()
                        cases += 1
                        continue
                    }
                    await h.connector.waitForHeldConnection()
                    let started = h.model.pendingRequests.last { $0.kind == .connect }!.request
                    h.connector.releaseHeldConnection()
                    await h.model.finished(request: started)
                    await h.answer(.search, with: .deliver)
                    #expect(
                        h.state.message == "Saved book #1 as revision 2 (alice).",
                        "the outcome is told after the switch: \(label)")
                }
                #expect(h.state.session == 2, "\(label)")
                #expect(h.editor == nil, "\(label)")
                #expect(h.search.rows == [bobsCopy], "\(label)")
                #expect(h.search.error == nil && !h.search.isBusy, "\(label)")
                await h.drain()
                cases += 1
            }
        }
        print("EditorRaceTests.saveOutcomesRacingWithAccountSwitch: \(cases) cases")
        #expect(cases == 9)
    }
}
