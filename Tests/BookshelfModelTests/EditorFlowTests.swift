import BookCatalog
import Testing
@testable import BookshelfModel

@MainActor
@Suite struct EditorFlowTests {
    /// Opens book 1 (revision 1), types "Mine", lets someone else commit theirs, saves and
    /// waits until the conflict shows theirs.
    private func conflicted() async -> (Harness, save: Int) {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        await h.remote.put(theirs)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .deliver)
        let fetch = await h.nextCall(.load)  // the model processed the conflict and fetches theirs
        #expect(h.editor?.conflict == ConflictState())
        #expect(h.editor?.activity == .fetchingCurrent)
        #expect(h.editor?.conflict?.choices == [.keepEditing])
        await h.release(fetch.number, .deliver, request: save)
        #expect(h.editor?.conflict?.theirs == theirs)
        #expect(h.editor?.conflict?.choices == [.reload, .overwrite, .editMerged, .keepEditing])
        #expect(h.editor?.draft == mine)
        return (h, save)
    }

    @Test func conflictReloadTakesTheirs() async {
        let (h, _) = await conflicted()
        h.model.resolveConflict(.reload)
        #expect(h.editor?.base == theirs)
        #expect(h.editor?.draft == BookDraft(theirs))
        #expect(h.editor?.conflict == nil)
        #expect(h.editor?.isDirty == false)
        await h.drain()
    }

    @Test func conflictOverwriteSavesMyDraftAgainstTheirRevision() async {
        let (h, _) = await conflicted()
        let overwrite = h.model.resolveConflict(.overwrite)!
        let call = await h.nextCall(.save)
        guard case let .save(request) = call.call else { Issue.record("expected a save"); return }
        #expect(request.expectedRevision == 2)
        #expect(request.title == "Mine")
        await h.release(call.number, .deliver, request: overwrite)
        #expect(h.editor?.outcome == .saved(revision: 3))
        #expect(h.editor?.base == book(1, "Mine", revision: 3))
        #expect(h.editor?.isDirty == false)
        #expect(h.search.rows == [book(1, "Mine", revision: 3)])
        await h.drain()
    }

    @Test func conflictKeepEditingKeepsDraftAndWarns() async {
        let (h, _) = await conflicted()
        h.model.resolveConflict(.keepEditing)
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.base == original)
        #expect(h.editor?.conflict == nil)
        #expect(h.editor?.changedElsewhere == theirs)
        h.model.setDraft(.title, to: "Mine, again")
        #expect(h.editor?.draft.title == "Mine, again")
        // Nothing is overwritten unless asked: saving again against the old base conflicts again.
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .deliver)
        await h.release(await h.nextCall(.load).number, .deliver, request: save)
        #expect(h.editor?.conflict?.theirs == theirs)
        #expect(await h.remote.books[1] == theirs)
        await h.drain()
    }

    @Test func unknownOutcomeThatNeverResolvesAsksToCheckAgainBeforeResending() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .commitThenFail(.outcomeUnknown))
        let reconcile = await h.nextCall(.load)
        #expect(h.editor?.activity == .reconciling)
        await h.release(reconcile.number, .fail(.storeUnavailable("still down")), request: save)
        #expect(h.editor?.outcome == .unresolved(.storeUnavailable("still down")))
        #expect(h.editor?.draft == mine)

        // Saving again reconciles first; it finds the save did commit, so nothing is resent.
        let check = h.model.save()!
        #expect(h.editor?.activity == .reconciling)
        await h.release(await h.nextCall(.load).number, .deliver, request: check)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(await h.remote.arrivalCount(of: .save) == 1)
        #expect(h.search.rows == [book(1, "Mine", revision: 2)])
        await h.drain()
    }

    /// Issue 43, item 4: a save cut off by a server restart, whose first reconciliation
    /// failed while the server was down, is settled as soon as a freshness check reaches the
    /// store again, without the user pressing Enter.
    @Test func unknownOutcomeIsSettledOnceTheStoreAnswersAgain() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .commitThenFail(.outcomeUnknown))
        await h.release(await h.nextCall(.load).number, .fail(.storeUnavailable("server restarting")), request: save)
        #expect(h.editor?.outcome == .unresolved(.storeUnavailable("server restarting")))

        // The server is back: the next freshness check answers, and the save is settled.
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(nil), request: check)
        #expect(h.editor?.activity == .reconciling)
        let reconcile = h.model.pendingRequests.first { $0.kind == .reconcile }!.request
        await h.release(await h.nextCall(.load).number, .deliver, request: reconcile)
        #expect(h.editor?.outcome == .saved(revision: 2))
        #expect(await h.remote.arrivalCount(of: .save) == 1)
        await h.drain()
    }

    @Test func notCommittedOffersRetryWhichSendsTheDraftAgain() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.remote.release(await h.nextCall(.save).number, .fail(.outcomeUnknown))
        await h.release(await h.nextCall(.load).number, .deliver, request: save)
        #expect(h.editor?.outcome == .notCommitted)
        let retry = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: retry)
        #expect(h.editor?.outcome == .saved(revision: 2))
        await h.drain()
    }

    @Test func invalidDraftIsNotSentAndProblemsShowInline() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h, typing: BookDraft(title: "   ", author: "bad\u{1B}[31m"))
        #expect(h.editor?.titleProblem?.hasPrefix("The title is blank") == true, "spaces alone are named blank")
        #expect(h.editor?.authorProblem == BookFailure.invalidAuthor.description)
        #expect(h.editor?.canSave == false)
        #expect(h.model.save() == nil)
        #expect(await h.remote.arrivalCount(of: .save) == 0)
        await h.drain()
    }

    @Test func storeRejectionKeepsTheDraft() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .fail(.notAllowed), request: save)
        #expect(h.editor?.outcome == .rejected(.notAllowed))
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.isDirty == true)
        await h.drain()
    }

    @Test func changeCheckTellsTheEditorSomeoneElseSavedWithoutTouchingTheDraft() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        await h.remote.put(theirs)
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(ChangeNotice(bookIDs: [1])), request: check)
        let refresh = h.model.pendingRequests.first { $0.kind == .refresh }!.request
        let reread = h.model.pendingRequests.first { $0.kind == .load }!.request
        #expect(!h.search.isBusy, "a refresh alone does not flicker the busy indicator")
        await h.release(await h.nextCall(.load).number, .deliver, request: reread)
        #expect(h.editor?.changedElsewhere == theirs)
        #expect(h.editor?.draft == mine)
        #expect(h.editor?.base == original)
        await h.release(await h.nextCall(.search).number, .deliver, request: refresh)
        #expect(h.search.rows == [theirs])
        await h.drain()
    }

    @Test func openingLoadFailureIsShownInTheEditor() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await h.start()
        let open = h.model.openSelected()!
        #expect(h.editor?.activity == .loading)
        await h.release(await h.nextCall(.load).number, .fail(.missing), request: open)
        #expect(h.editor?.loadError == BookFailure.missing.description)
        #expect(h.editor?.isDirty == false)
        h.model.closeEditor()
        #expect(h.editor == nil)
        await h.drain()
    }
}

/// Rows never show an older revision than one this session has seen.
@MainActor
@Suite struct RowFreshnessTests {
    @Test func searchStartedBeforeASaveAndAnsweringAfterItShowsTheSavedTitle() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h)
        // The search reads the old row, then the save commits, then the search answers.
        let search = h.model.setQuery("o")!
        let searchCall = await h.nextCall(.search)
        let save = h.model.save()!
        await h.release(await h.nextCall(.save).number, .deliver, request: save)
        #expect(h.search.rows == [book(1, "Mine", revision: 2)])
        await h.release(searchCall.number, .page([original], total: 1), request: search)
        #expect(h.search.rows == [book(1, "Mine", revision: 2)])
        await h.drain()
    }

    @Test func editorNeverOpensOnARevisionOlderThanTheRowShowed() async {
        let h = Harness(books: ["alice": [theirs], "bob": []])
        await h.start()
        #expect(h.search.rows == [theirs])
        let open = h.model.openSelected()!
        // A lagging replica answers with the revision before.
        await h.release(await h.nextCall(.load).number, .record(original), request: open)
        #expect(h.editor?.base == theirs)
        #expect(h.editor?.draft == BookDraft(theirs))
        #expect(h.search.rows == [theirs])
        await h.drain()
    }

    @Test func refreshKeepsSelectionOnTheSameBook() async {
        let books = [book(1, "Alpha"), book(2, "Beta"), book(3, "Gamma")]
        let h = Harness(books: ["alice": books, "bob": []])
        await h.start()
        h.model.select(index: 1)
        #expect(h.search.selectedBook?.id == 2)
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(.unspecified), request: check)
        let refresh = h.model.pendingRequests.first { $0.kind == .refresh }!.request
        await h.release(
            await h.nextCall(.search).number,
            .page([book(4, "Aardvark"), books[0], books[1], books[2]], total: 4), request: refresh)
        #expect(h.search.selectedBook?.id == 2)
        #expect(h.search.selection == 2)
        await h.drain()
    }
}
