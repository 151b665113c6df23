import BookCatalog
import Testing
@testable import BookshelfModel

/// A keeper in memory that records what the model asked of it. Like a careless keeper, it
/// answers every draft it holds whatever the account asked for: the model must not show
/// another account's draft even then.
@MainActor
final class MemoryDraftKeeper: DraftKeeping {
    struct Key: Hashable {
        let account: String
        let bookID: Int
    }
    var files: [Key: KeptDraft] = [:]
    var writes = 0
    var problems: [String] = []
    var failsWith: String?

    init(_ drafts: [KeptDraft] = []) {
        for draft in drafts { files[Key(account: draft.account, bookID: draft.bookID)] = draft }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    func keep(_ draft: KeptDraft) throws {
        if let failsWith { throw Failure(description: failsWith) }
        writes += 1
        files[Key(account: draft.account, bookID: draft.bookID)] = draft
    }

    func remove(account: String, bookID: Int) throws { files[Key(account: account, bookID: bookID)] = nil }

    func kept(account: String) -> KeptDraftsFound {
        KeptDraftsFound(drafts: files.values.sorted { $0.account < $1.account }, problems: problems)
    }

    func draft(of account: String = "alice", book: Int = 1) -> KeptDraft? {
        files[Key(account: account, bookID: book)]
    }
}

@MainActor
@Suite struct KeptDraftTests {
    let pause = Int(BookshelfModel.keepDraftPause.components.seconds * 1000)

    // MARK: Keeping

    @Test func aDraftIsKeptOnlyOnceTypingHasPausedAndAgainAfterTheNextPause() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftAfterPause()
        h.clock.advance(milliseconds: pause / 2)
        h.model.keepDraftAfterPause()
        #expect(keeper.writes == 0, "half a pause after the last key, nothing is written")
        h.clock.advance(milliseconds: pause)
        h.model.keepDraftAfterPause()
        #expect(keeper.draft() == KeptDraft(account: "alice", base: original, draft: mine))

        h.model.setDraft(.notes, to: "An hour of notes")
        h.model.keepDraftAfterPause()
        #expect(keeper.draft()?.draft == mine, "typing again writes nothing until it pauses")
        h.clock.advance(milliseconds: pause)
        h.model.keepDraftAfterPause()
        #expect(keeper.draft()?.draft == mine.with(.notes, "An hour of notes"))
        #expect(keeper.draft()?.base.revision == 1)
        h.clock.advance(milliseconds: pause * 5)
        h.model.keepDraftAfterPause()
        #expect(keeper.writes == 2, "an unchanged draft is not written again")
        await h.drain()
    }

    @Test func aCleanEditorKeepsNothing() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await h.start()
        _ = try #require(h.model.openSelected())
        await h.answer(.load, with: .deliver)
        h.model.keepDraftAfterPause()
        h.clock.advance(milliseconds: pause * 2)
        h.model.keepDraftAfterPause()
        h.model.keepDraftNow()
        #expect(keeper.writes == 0 && keeper.files.isEmpty)
        await h.drain()
    }

    /// The terminal closed under the app (SIGHUP) or it was told to end (SIGTERM): no pause.
    @Test func aSignalKeepsTheDraftAtOnce() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        #expect(keeper.draft() == KeptDraft(account: "alice", base: original, draft: mine))
        await h.drain()
    }

    @Test func aFailedWriteIsSaidAndNotRetriedUntilTheDraftChanges() async throws {
        let keeper = MemoryDraftKeeper()
        keeper.failsWith = "disk full"
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftAfterPause()
        h.clock.advance(milliseconds: pause)
        h.model.keepDraftAfterPause()
        #expect(h.state.message == "Your draft could not be kept on disk: disk full")
        keeper.failsWith = nil
        h.clock.advance(milliseconds: pause)
        h.model.keepDraftAfterPause()
        #expect(keeper.writes == 0)
        h.model.setDraft(.notes, to: "more")
        h.model.keepDraftAfterPause()
        h.clock.advance(milliseconds: pause)
        h.model.keepDraftAfterPause()
        #expect(keeper.draft()?.draft.notes == "more")
        await h.drain()
    }

    // MARK: Removing

    @Test func savingRemovesTheKeptDraft() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        #expect(keeper.draft() != nil)
        let save = try #require(h.model.save())
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(keeper.files.isEmpty)
        await h.drain()
    }

    @Test func discardingTheDraftRemovesIt() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        h.model.closeEditor()
        #expect(keeper.draft() != nil, "asking is not discarding")
        h.model.confirm()
        #expect(h.editor == nil && keeper.files.isEmpty)
        await h.drain()
    }

    @Test func editingTheDraftBackToTheBookRemovesIt() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        #expect(keeper.draft() != nil)
        h.model.setDraft(.title, to: original.title)
        #expect(h.editor?.isDirty == false && keeper.files.isEmpty)
        await h.drain()
    }

    @Test func quittingAfterSayingDiscardRemovesIt() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        h.model.requestQuit()
        #expect(keeper.draft() != nil)
        h.model.confirm()
        #expect(h.state.shouldQuit && keeper.files.isEmpty)
        await h.drain()
    }

    @Test func switchingAccountAfterSayingDiscardRemovesIt() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(books: ["alice": [original], "bob": []], keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        #expect(keeper.draft() != nil)
        await h.switchAccount(to: "bob")
        #expect(h.state.account == "bob" && keeper.files.isEmpty)
        await h.drain()
    }

    /// An administrator's scope change closes the editor without the user's word: kept.
    @Test func aScopeChangeClosingTheEditorLeavesTheDraftKept() async throws {
        let keeper = MemoryDraftKeeper()
        let h = Harness(
            books: ["alice": [original]], accounts: ["alice": Account(name: "alice", role: .editor, scope: "main")],
            keeper: keeper)
        await openEditor(h)
        h.model.keepDraftNow()
        #expect(h.model.follow(accountChangedTo: Account(name: "alice", role: .editor, scope: "other")))
        #expect(h.editor == nil)
        #expect(keeper.draft() == KeptDraft(account: "alice", base: original, draft: mine))
        #expect(h.state.keptDraft?.bookID == 1, "and offered again in the new session")
        await h.drain()
    }

    // MARK: Offering and restoring

    @Test func aKeptDraftIsOfferedWhenTheSessionBeginsAndRestoringOpensTheEditorOnIt() async throws {
        let kept = KeptDraft(account: "alice", base: original, draft: mine.with(.notes, "An hour of notes"))
        let keeper = MemoryDraftKeeper([kept])
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await h.start()
        #expect(
            h.state.keptDraft?.question == "An unsaved draft of «Old» (based on revision 1) was kept. Restore it?")
        let load = try #require(h.model.restoreKeptDraft())
        #expect(h.state.keptDraft == nil)
        await h.release(await h.nextCall(.load).number, .deliver, request: load)
        #expect(h.editor?.base == original)
        #expect(h.editor?.draft == kept.draft)
        #expect(h.editor?.isDirty == true && h.editor?.conflict == nil)
        #expect(keeper.draft() == kept, "still kept until saved or discarded")
        h.model.closeEditor()
        h.model.confirm()
        #expect(keeper.files.isEmpty)
        await h.drain()
    }

    /// The book moved on since the draft's revision: base, theirs and yours, as after a
    /// conflicting save, and nothing is saved before the user chooses.
    @Test func restoringOverANewerRevisionShowsTheConflictBanner() async throws {
        let kept = KeptDraft(account: "alice", base: original, draft: mine)
        let keeper = MemoryDraftKeeper([kept])
        let h = Harness(books: ["alice": [theirs]], keeper: keeper)
        await h.start()
        #expect(h.state.keptDraft?.revision == 1)
        let load = try #require(h.model.restoreKeptDraft())
        await h.release(await h.nextCall(.load).number, .deliver, request: load)
        let merge = ThreeWayMerge(base: original, theirs: theirs, mine: mine)
        #expect(h.editor?.base == original)
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.conflict?.theirs == theirs)
        #expect(h.editor?.conflict?.fields.map(\.field) == [.title], "both changed the title")
        #expect(h.editor?.conflict?.merged == merge.merged)
        #expect(await h.remote.arrivalCount(of: .save) == 0)
        // Keeping mine saves against their revision, as an ordinary conflict does.
        let overwrite = try #require(h.model.resolveConflict(.overwrite))
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save"); return }
        #expect(request.expectedRevision == 2 && request.title == "Mine")
        await h.release(call.number, .deliver, request: overwrite)
        #expect(keeper.files.isEmpty)
        await h.drain()
    }

    @Test func decliningDiscardsTheKeptDraftAndTheNextIsOffered() async throws {
        let second = book(2, "Second")
        let keeper = MemoryDraftKeeper([
            KeptDraft(account: "alice", base: original, draft: mine),
            KeptDraft(account: "alice", base: second, draft: BookDraft(title: "Second, edited", author: "")),
        ])
        let h = Harness(books: ["alice": [original, second]], keeper: keeper)
        await h.start()
        #expect(h.state.keptDraft?.bookID == 1)
        h.model.declineKeptDraft()
        #expect(keeper.draft(book: 1) == nil && keeper.draft(book: 2) != nil)
        #expect(h.state.keptDraft?.bookID == 2)
        await h.drain()
    }

    @Test func askingLaterKeepsTheDraftForTheNextSession() async throws {
        let kept = KeptDraft(account: "alice", base: original, draft: mine)
        let keeper = MemoryDraftKeeper([kept])
        let h = Harness(books: ["alice": [original], "bob": []], keeper: keeper)
        await h.start()
        h.model.askAboutKeptDraftLater()
        #expect(h.state.keptDraft == nil && keeper.draft() == kept)
        await h.switchAccount(to: "bob")
        await h.switchAccount(to: "alice")
        #expect(h.state.keptDraft?.bookID == 1, "asked again when alice's next session begins")
        await h.drain()
    }

    @Test func aDraftOfAnotherAccountIsNeverOffered() async throws {
        let keeper = MemoryDraftKeeper([KeptDraft(account: "bob", base: original, draft: mine)])
        let h = Harness(books: ["alice": [original], "bob": [original]], keeper: keeper)
        await h.start()
        #expect(h.state.keptDraft == nil)
        #expect(h.model.restoreKeptDraft() == nil)
        #expect(keeper.draft(of: "bob") != nil, "nor removed")
        await h.switchAccount(to: "bob")
        #expect(h.state.keptDraft?.bookID == 1, "bob's own session offers it")
        await h.drain()
    }

    @Test func whatTheKeeperCouldNotReadIsSaid() async throws {
        let keeper = MemoryDraftKeeper()
        keeper.problems = ["A kept draft could not be read (not UTF-8 text); it was set aside as x.damaged."]
        let h = Harness(books: ["alice": [original]], keeper: keeper)
        await h.start()
        #expect(h.state.message == keeper.problems.first)
        await h.drain()
    }

    /// A base whose fields no store could hold is not a revision to merge against.
    @Test func aKeptDraftWithAnInvalidBaseIsRefused() {
        let fields = BookDraft(title: "  ", author: "")
        #expect(KeptDraft(account: "alice", bookID: 1, baseRevision: 1, baseFields: fields, draft: mine) == nil)
        #expect(
            KeptDraft(account: "alice", bookID: 1, baseRevision: 1, baseFields: BookDraft(original), draft: mine)
                == KeptDraft(account: "alice", base: original, draft: mine))
        #expect(KeptDraft(account: "", bookID: 1, baseRevision: 1, baseFields: BookDraft(original), draft: mine) == nil)
    }
}
