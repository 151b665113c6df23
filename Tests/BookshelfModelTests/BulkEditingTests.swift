import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// Hands out each account's stepped remote as a store that keeps batches (and history).
final class BatchKeepingConnector: CatalogConnector {
    let base: SteppedConnector

    init(base: SteppedConnector) { self.base = base }

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        (try await base.connect(account: account, password: password) as! SteppedRemote).keepingRecords
    }
}

/// The bulk editor's part (issue 61) over stepped stores: marks, the editor's preview, the
/// batch's outcomes, all or nothing, and the conflict opened from the outcome list.
@MainActor
@Suite struct BulkEditingTests {
    static let shelf = [
        book(1, "Dune", author: "Frank Herbert"), book(2, "Emma", author: "Jane Austen"),
        book(3, "Ivanhoe", author: "Walter Scott"), book(4, "Kim", author: "Rudyard Kipling"),
        book(5, "Lolita", author: "Vladimir Nabokov"),
    ]

    static func started(pageSize: Int = 50) async -> Harness {
        let harness = Harness(
            books: ["alice": shelf, "bob": [book(1, "Bob's only book")]], pageSize: pageSize, keepsBatches: true)
        await harness.start()
        return harness
    }

    /// Marks `ids` and opens the bulk editor, answering its reads.
    static func editing(_ harness: Harness, _ ids: [Int]) async {
        for id in ids { harness.model.toggleMark(id) }
        let read = harness.model.openBulkEditor()!
        for _ in ids {
            let call = await harness.nextCall(.load)
            await harness.remote.release(call.number, .deliver)
        }
        await harness.model.finished(request: read)
    }

    @Test func aKeyMarksAndUnmarksABook() async {
        let harness = await Self.started()
        harness.model.toggleMark(2)
        harness.model.toggleMark(4)
        #expect(harness.state.bulk.marked == [2, 4])
        harness.model.toggleMark(2)
        #expect(harness.state.bulk.marked == [4])
        harness.model.clearMarks()
        #expect(harness.state.bulk.marked.isEmpty)
        await harness.drain()
    }

    @Test func markingEveryMatchTakesThePagesNotLoaded() async {
        let harness = await Self.started(pageSize: 2)
        #expect(harness.search.rows.count == 2 && harness.search.total == 5)
        let mark = harness.model.markEveryMatch(of: "")!
        #expect(harness.state.bulk.isMarkingMatches)
        let call = await harness.nextCall(.search)
        await harness.release(call.number, .deliver, request: mark)
        #expect(harness.state.bulk.marked == Set(1...5))
        #expect(!harness.state.bulk.isMarkingMatches)
        #expect(harness.state.bulk.markNote == "Marked the 5 books the search matches.")
        await harness.drain()
    }

    /// The note counts as the header does ("1,234"): under tmux it said "Marked the 15032 books".
    @Test func theNoteOfTheMarksGroupsItsCounts() async {
        let books = (1...1_234).map { book($0, "Volume \($0)") }
        let harness = Harness(books: ["alice": books], pageSize: 50, keepsBatches: true)
        await harness.start()
        for id in 1...1_001 { harness.model.toggleMark(id) }
        let mark = harness.model.markEveryMatch(of: "")!
        // Two pages of a thousand.
        for _ in 1...2 {
            let call = await harness.nextCall(.search)
            await harness.remote.release(call.number, .deliver)
        }
        await harness.model.finished(request: mark)
        #expect(harness.state.bulk.markNote == "Marked the 1,234 books the search matches (1,001 already marked).")
        await harness.drain()
    }

    /// The bulk editor asked for while every match is being marked opens over those books once
    /// they are marked: under tmux, F8 right after F7 said "Mark books first", and that notice
    /// stood after the books were marked.
    @Test func theEditorAskedForWhileMarkingOpensOverTheBooksOnceMarked() async throws {
        let harness = await Self.started(pageSize: 2)
        let mark = harness.model.markEveryMatch(of: "")!
        #expect(harness.model.openBulkEditor() == nil)
        #expect(harness.state.bulk.opensEditorWhenMarked && harness.state.bulk.editor == nil)
        let call = await harness.nextCall(.search)
        await harness.release(call.number, .deliver, request: mark)
        #expect(!harness.state.bulk.opensEditorWhenMarked)
        // Required: without the editor no read comes to answer.
        try #require(harness.state.bulk.editor?.markedBooks == 5)
        for _ in 1...5 {
            let load = await harness.nextCall(.load)
            await harness.remote.release(load.number, .deliver)
        }
        await harness.drain()
        #expect(harness.state.bulk.editor?.markedBooks == 5)
    }

    /// The status line shows a batch's progress and summary only when no note of the marks
    /// stands before it: under tmux, "Marked the 365 books the search matches." stayed through
    /// the whole batch and after, and nothing said the batch had run.
    @Test func aBatchTakesTheStatusFromTheNoteOfTheMarks() async {
        let harness = await Self.started()
        let mark = harness.model.markEveryMatch(of: "")!
        let search = await harness.nextCall(.search)
        await harness.release(search.number, .deliver, request: mark)
        #expect(harness.state.bulk.markNote == "Marked the 5 books the search matches.")
        let read = harness.model.openBulkEditor()!
        for _ in 1...5 {
            let call = await harness.nextCall(.load)
            await harness.remote.release(call.number, .deliver)
        }
        await harness.model.finished(request: read)
        for character in "Anon" { harness.model.editBulkText(.insert(String(character))) }
        let run = harness.model.runBulkEdit()!
        #expect(harness.state.bulk.markNote == nil)
        for _ in 1...5 {
            let save = await harness.nextCall(.save)
            await harness.remote.release(save.number, .deliver)
        }
        await harness.model.finished(request: run)
        #expect(harness.state.bulk.markNote == nil)
        #expect(harness.state.bulk.batch?.headline == "Batch 1: 5 saved")
        await harness.drain()
    }

    @Test func marksAndAMarkingInFlightBelongToTheirSession() async {
        let harness = await Self.started()
        harness.model.toggleMark(3)
        let mark = harness.model.markEveryMatch(of: "")!
        harness.model.openBulkEditor()
        let call = await harness.nextCall(.search)
        let alice = harness.remote
        await harness.switchAccount(to: "bob")
        #expect(harness.state.bulk == BulkState(), "the switch cleared alice's marks")
        await harness.release(call.number, on: alice, .deliver, request: mark)
        #expect(harness.state.bulk.marked.isEmpty, "alice's matches never mark bob's books")
        #expect(harness.state.bulk.editor == nil, "nor open an editor over them")
        await harness.drain()
    }

    @Test func theEditorPreviewsHowManyBooksChangeAndASample() async {
        let harness = await Self.started()
        await Self.editing(harness, [1, 2, 3])
        harness.model.chooseBulkChange(by: 1)  // Set the publisher: every book's is empty.
        for character in "Penguin" { harness.model.editBulkText(.insert(String(character))) }
        var editor = harness.state.bulk.editor!
        #expect(editor.kind == .setPublisher && editor.markedBooks == 3 && editor.problem == nil)
        #expect(editor.preview?.willChange == 3 && editor.preview?.unchanged == 0)
        #expect(
            editor.preview?.sample.map { "\($0.title): \($0.before) -> \($0.after)" }
                == ["Dune:  -> Penguin", "Emma:  -> Penguin", "Ivanhoe:  -> Penguin"])
        // Replacing text in the author: of Frank Herbert, Jane Austen and Walter Scott, only Scott's has "ter".
        harness.model.chooseBulkChange(by: BulkChangeKind.allCases.firstIndex(of: .replace(.author))! - 1)
        for _ in 0..<7 { harness.model.editBulkText(.backspace) }
        for character in "ter" { harness.model.editBulkText(.insert(String(character))) }
        harness.model.switchBulkFocus()
        for character in "TER" { harness.model.editBulkText(.insert(String(character))) }
        editor = harness.state.bulk.editor!
        #expect(editor.kind == .replace(.author) && editor.replacement.text == "TER")
        #expect(editor.preview?.willChange == 1 && editor.preview?.unchanged == 2)
        #expect(editor.preview?.sample.map { "\($0.before) -> \($0.after)" } == ["Walter Scott -> WalTER Scott"])
        // A year that is not one is a problem, not a preview.
        harness.model.chooseBulkChange(by: -100)
        harness.model.chooseBulkChange(by: 2)
        editor = harness.state.bulk.editor!
        #expect(editor.kind == .setYear && editor.problem != nil && editor.preview == nil && !editor.canRun)
        await harness.drain()
    }

    /// Three books, each saved on its own: one as read, one someone retitled meanwhile (merged),
    /// one whose author someone changed meanwhile (a conflict, left as they saved it).
    @Test func aBatchHasAnOutcomePerBookAndASummary() async {
        let harness = await Self.started()
        await Self.editing(harness, [1, 2, 3])
        for character in "Anon" { harness.model.editBulkText(.insert(String(character))) }
        let remote = harness.remote
        _ = await remote.commitElsewhere(id: 2, title: "Emma, a novel")
        let theirs = BookRecord(id: 3, title: "Ivanhoe", revision: 2, author: "Sir Walter Scott")
        await remote.put(theirs)
        let run = harness.model.runBulkEdit()!
        #expect(harness.state.bulk.editor == nil && harness.state.bulk.batch?.isRunning == true)
        // Book 1 saves; book 2 conflicts on its revision, is read again and merged; book 3 conflicts.
        var save = await harness.nextCall(.save)
        #expect(harness.state.bulk.batch?.done == 0)
        await remote.release(save.number, .deliver)
        save = await harness.nextCall(.save)
        // The progress the screen shows: book 1 was saved before book 2's save began.
        #expect(harness.state.bulk.batch?.done == 1 && harness.state.bulk.batch?.counts.saved == 1)
        await remote.release(save.number, .deliver)
        var load = await harness.nextCall(.load)
        await remote.release(load.number, .deliver)
        save = await harness.nextCall(.save)
        await remote.release(save.number, .deliver)
        save = await harness.nextCall(.save)
        await remote.release(save.number, .deliver)
        load = await harness.nextCall(.load)
        await remote.release(load.number, .deliver)
        await harness.model.finished(request: run)
        let batch = harness.state.bulk.batch!
        #expect(!batch.isRunning && batch.batch == BatchID(1))
        #expect(batch.rows.map(\.outcome) == ["saved", "merged", "conflict"])
        #expect(batch.summary == "1 saved, 1 merged, 1 conflict")
        #expect(batch.headline == "Batch 1: 1 saved, 1 merged, 1 conflict")
        #expect(await remote.committedRevisions(of: 1).last?.author == "Anon")
        let emma = await remote.committedRevisions(of: 2).last
        #expect(emma?.title == "Emma, a novel" && emma?.author == "Anon")
        #expect(await remote.committedRevisions(of: 3).last == theirs, "the conflict is left as they saved it")
        #expect(await remote.recordedRevisions(of: 1).last?.batch == BatchID(1))

        // Walking to the conflict opens it with the ordinary banner.
        harness.model.toggleBatchOutcomes()
        harness.model.moveBatchSelection(by: 5)
        #expect(harness.state.bulk.batch?.selection == 2)
        let open = harness.model.openBatchOutcome()!
        #expect(harness.state.bulk.batch?.isListOpen == false)
        load = await harness.nextCall(.load)
        await harness.release(load.number, .deliver, request: open)
        let editor = harness.state.editor!
        #expect(editor.bookID == 3 && editor.base?.revision == 1 && editor.draft.author == "Anon")
        #expect(editor.conflict?.theirs == theirs && editor.conflict?.fields.map(\.field) == [.author])
        let reload = harness.model.resolveConflict(.reload)
        #expect(reload == nil && harness.state.editor?.draft.author == "Sir Walter Scott")
        await harness.drain()
    }

    @Test func allOrNothingSavesNothingWhenABookConflicts() async {
        let harness = await Self.started()
        await Self.editing(harness, [1, 2])
        for character in "Anon" { harness.model.editBulkText(.insert(String(character))) }
        harness.model.toggleAllOrNothing()
        let remote = harness.remote
        await remote.put(BookRecord(id: 2, title: "Emma", revision: 2, author: "J. Austen"))
        let run = harness.model.runBulkEdit()!
        let load = await harness.nextCall(.load)
        await remote.release(load.number, .deliver)
        await harness.model.finished(request: run)
        let batch = harness.state.bulk.batch!
        #expect(batch.savedNothing && batch.batch == nil)
        #expect(batch.rows.map(\.outcome) == ["conflict"])
        #expect(batch.headline == "Set the author, all or nothing: nothing was saved (1 conflict)")
        #expect(await remote.committedRevisions(of: 1).last?.author == "Frank Herbert")
        #expect(await remote.batches.isEmpty)
        await harness.drain()
    }

    /// A batch belongs to the session that started it (ask 7). With three books marked, the
    /// switch to bob comes at every point of the batch's steps (each save's store step and its
    /// answer, each answer a commit or a failure): the batch stops before its next book, what
    /// it committed stays committed and recorded in its batch, and nothing of it (progress,
    /// outcome, marks) appears in bob's session.
    @Test func aSwitchStopsTheBatchAtTheNextBookInEveryOrder() async {
        enum Step: Equatable { case perform(Int), answer(Int) }
        let steps: [Step] = (1...3).flatMap { [Step.perform($0), .answer($0)] }
        var cases = 0
        for switchAt in 0...steps.count {
            for failing in [nil, 1, 2, 3] as [Int?] {
                let harness = await Self.started()
                await Self.editing(harness, [1, 2, 3])
                for character in "Anon" { harness.model.editBulkText(.insert(String(character))) }
                let alice = harness.remote
                let run = harness.model.runBulkEdit()!
                // The batch is at its first book's save before anything else happens: every later
                // save arrives only after the answer before it, so each step below is one moment.
                var parked: [Int: Int] = [1: await harness.nextCall(.save, on: alice).number]  // book: call
                var savesAtSwitch: Int?
                for (index, step) in steps.enumerated() {
                    if index == switchAt {
                        await harness.switchAccount(to: "bob")
                        savesAtSwitch = await alice.arrivalCount(of: .save)
                        #expect(harness.state.bulk == BulkState(), "bob's session shows nothing of the batch")
                    }
                    switch step {
                    case let .perform(book):
                        guard let number = parked[book] else { continue }
                        if failing != book { await alice.perform(number) }
                    case let .answer(book):
                        guard let number = parked[book] else { continue }
                        await alice.release(number, failing == book ? .fail(.storeUnavailable("down")) : .deliver)
                        if savesAtSwitch == nil, book < 3 {
                            parked[book + 1] = await harness.nextCall(.save, on: alice).number
                        }
                    }
                }
                if switchAt == steps.count {
                    await harness.model.finished(request: run)
                    let batch = harness.state.bulk.batch!
                    #expect(
                        batch.counts.saved == (failing == nil ? 3 : 2)
                            && batch.counts.failed == (failing == nil ? 0 : 1))
                    await harness.switchAccount(to: "bob")
                    #expect(harness.state.bulk == BulkState())
                    savesAtSwitch = await alice.arrivalCount(of: .save)
                }
                await harness.model.finished(request: run)
                // Bob's session never shows alice's batch.
                #expect(
                    harness.state.bulk == BulkState(),
                    "switch at \(switchAt), failing \(failing.map(String.init) ?? "none")")
                #expect(harness.state.account == "bob")
                // No save began after the switch: the batch stopped at the next book.
                #expect(await alice.arrivalCount(of: .save) == savesAtSwitch)
                // What committed stays committed, each revision recorded in batch 1; the others are as they were.
                for id in 1...3 {
                    let revisions = await alice.recordedRevisions(of: id)
                    let saved = parked[id] != nil && failing != id
                    #expect(revisions.count == (saved ? 2 : 1), "book \(id), switch at \(switchAt)")
                    if saved { #expect(revisions.last?.batch == BatchID(1) && revisions.last?.record.author == "Anon") }
                }
                await harness.drain()
                cases += 1
            }
        }
        print("BulkEditingTests: a switch at every step of a batch of three, \(cases) cases")
    }

    /// A marked book the store no longer has is a book the batch will fail, named in the
    /// preview; a store that did not answer fails the editor's read as a whole, saying why.
    @Test func theEditorsReadNamesAMissingBookAndFailsWithAStoreThatDidNotAnswer() async {
        let harness = await Self.started()
        for id in [1, 2] { harness.model.toggleMark(id) }
        var read = harness.model.openBulkEditor()!
        await harness.remote.release(await harness.nextCall(.load).number, .deliver)
        await harness.remote.release(await harness.nextCall(.load).number, .fail(.missing))
        await harness.model.finished(request: read)
        var editor = harness.state.bulk.editor!
        #expect(editor.readError == nil && !editor.isReading)
        harness.model.chooseBulkChange(by: 1)  // Set the publisher.
        for character in "Penguin" { harness.model.editBulkText(.insert(String(character))) }
        editor = harness.state.bulk.editor!
        #expect(
            editor.preview?.willChange == 1 && editor.preview?.willFail == 1, "\(String(describing: editor.preview))")

        harness.model.closeBulkEditor()
        read = harness.model.openBulkEditor()!
        await harness.remote.release(await harness.nextCall(.load).number, .deliver)
        await harness.remote.release(
            await harness.nextCall(.load).number, .fail(.storeUnavailable("the catalog went away")))
        await harness.model.finished(request: read)
        editor = harness.state.bulk.editor!
        #expect(editor.readError?.contains("the catalog went away") == true && !editor.canRun, "\(editor)")
        await harness.drain()
    }

    /// The marked books being read when the switch comes: the editor closes and the answer
    /// opens nothing in the new session.
    @Test func aReadInFlightOpensNothingAfterASwitch() async {
        let harness = await Self.started()
        harness.model.toggleMark(1)
        let read = harness.model.openBulkEditor()!
        let call = await harness.nextCall(.load)
        let alice = harness.remote
        await harness.switchAccount(to: "bob")
        #expect(harness.state.bulk.editor == nil)
        await harness.release(call.number, on: alice, .deliver, request: read)
        #expect(harness.state.bulk == BulkState())
        await harness.drain()
    }
}
