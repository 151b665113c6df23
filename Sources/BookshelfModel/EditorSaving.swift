import BookCatalog

// The editor's saves: the compare-and-set, a conflict's fetch of theirs and its three-way merge,
// and the reconciliation of a save whose outcome was unknown. Each answer comes back through
// the runner like any other (`Effects.swift`).

extension BookshelfModel {
    /// Saves the draft against its base revision. Ignored while the editor waits for the
    /// store, while a conflict awaits a choice, or while the draft is invalid (the problems
    /// are shown inline). After an unknown outcome it first finds out whether that save
    /// committed. Returns the request number.
    @discardableResult
    public func save() -> Int? {
        guard let repository, let editor = editorPart.open, let base = editor.base, pendingKind(.editor) == nil,
            editor.conflict == nil, editorReadOnlyReason == nil
        else { return nil }
        message = nil
        if let unresolved = editor.unresolved {
            defer { changed() }
            return launch(.editor, reconciliation(of: unresolved, on: repository))
        }
        // Every needless revision is a needless conflict for someone else: a draft that would
        // save what the book holds (an ISBN-10 of its ISBN, its tags in another order) is none.
        guard editor.isDirty, !DraftCheck.savesTheSame(editor.draft, as: base) else {
            editorPart.open?.outcome = .noChanges
            changed()
            return nil
        }
        guard let sent = saveRequest(for: editor, against: base.revision) else {
            changed()
            return nil
        }
        return send(sent, on: repository)
    }

    /// Answers a conflict: take theirs, overwrite theirs with my draft, or keep editing.
    @discardableResult
    public func resolveConflict(_ choice: ConflictChoice) -> Int? {
        guard let repository, var editor = editorPart.open, let conflict = editor.conflict, pendingKind(.editor) == nil
        else {
            return nil
        }
        defer { changed() }
        switch choice {
        case .reload:
            guard let theirs = conflict.theirs else { return nil }
            editor.rebase(on: theirs)
            editor.draft = BookDraft(theirs)
            editor.conflict = nil
            editor.outcome = nil
            editor.mergeNote = nil
            editorPart.open = editor
            return nil
        case .editMerged:
            guard let theirs = conflict.theirs, let merged = conflict.merged else { return nil }
            editor.rebase(on: theirs)
            editor.draft = merged
            editor.focus = conflict.fields.first?.field ?? editor.focus
            editor.conflict = nil
            editor.outcome = nil
            editorPart.open = editor
            return nil
        case .keepEditing:
            editor.conflict = nil
            if let theirs = conflict.theirs { editor.noteNewer(theirs) }
            editorPart.open = editor
            return nil
        case .overwrite:
            guard let theirs = conflict.theirs else { return nil }
            // Mine where both changed a field; their changes to the fields I left alone stay.
            if let merged = conflict.merged { editor.draft = merged }
            guard let sent = saveRequest(for: editor, against: theirs.revision) else { return nil }
            // The user accepted their revision as the base of this write.
            editor.rebase(on: theirs)
            editor.conflict = nil
            editorPart.open = editor
            return send(sent, on: repository)
        }
    }

    /// The save of every field of the draft, or nil while a field breaks its rule (each
    /// problem is shown beside its field, and nothing is sent).
    private func saveRequest(for editor: EditorSession, against revision: Int) -> SentSave? {
        let draft = editor.draft
        guard let details = DraftCheck(draft).details, (try? BookValidation.title(draft.title)) != nil,
            (try? BookValidation.author(draft.author)) != nil
        else { return nil }
        let request = SaveRequest(
            id: editor.bookID, title: draft.title, author: draft.author, details: details,
            expectedRevision: revision)
        return SentSave(request: request, draft: draft)
    }

    @discardableResult
    private func send(_ sent: SentSave, on repository: BookRepository) -> Int {
        let request = sent.request
        editorPart.open?.outcome = nil
        editorPart.open?.conflict = nil
        defer { changed() }
        return launch(
            .editor,
            Effect(
                .save, { try await repository.save(request) },
                witness: { [self] in observe($0) },
                publish: { [self] saved, _ in
                    applySaved(saved, sent: sent)
                    return nil
                },
                fail: { [self] error, _ in
                    switch error as? BookFailure {
                    case .conflict?:
                        // Keep the draft; show theirs beside it once fetched.
                        editorPart.open?.conflict = ConflictState()
                        return theirsFetch(after: sent, on: repository)
                    case .outcomeUnknown?:
                        // It may have committed: find out before offering a retry.
                        editorPart.open?.unresolved = sent
                        return reconciliation(of: sent, on: repository)
                    default:
                        editorPart.open?.mergeNote = nil
                        editorPart.open?.outcome = .rejected(
                            error as? BookFailure ?? .storeUnavailable(Self.message(for: error)))
                        return nil
                    }
                }))
    }

    /// After a conflict: fetches their revision, then merges with it (see `merge`).
    private func theirsFetch(after sent: SentSave, on repository: BookRepository) -> Effect {
        Effect(
            .load, { try await Self.theirs(of: sent.request.id, on: repository) },
            witness: { [self] in observe($0.record) },
            publish: { [self] current, _ in
                merge(with: floor(current.record), savedBy: current.revisions, after: sent.request, on: repository)
                return nil
            },
            fail: { [self] error, _ in
                editorPart.open?.conflict = ConflictState(fetchError: Self.message(for: error))
                return nil
            })
    }

    /// Finds out whether a save whose outcome was unknown committed, and shows what it found.
    private func reconciliation(of sent: SentSave, on repository: BookRepository) -> Effect {
        Effect(
            .reconcile, { try await repository.reconcile(sent.request) },
            publish: { [self] found, _ in
                settle(found, of: sent)
                return nil
            },
            fail: { [self] error, _ in
                editorPart.open?.outcome = .unresolved(error as? BookFailure)
                return nil
            })
    }

    /// The book as it stands after a conflict, and its history when the store keeps one (to
    /// say who saved what is merged), read after it so it holds that revision.
    private nonisolated static func theirs(of id: Int, on repository: BookRepository) async throws
        -> (record: BookRecord, revisions: [BookRevision])
    {
        let record = try await repository.book(id: id, policy: .refresh)
        // Without a history the merge is still made; the note then says "someone else".
        let revisions = (try? await repository.history(id: id)) ?? []
        return (record, revisions)
    }

    /// After a conflict, with their revision fetched: when they changed only fields the user
    /// did not (or changed them the same way), saves the merge against their revision through
    /// the same compare-and-set, which may conflict again and come back here with a newer
    /// theirs; otherwise shows the fields both changed. `revisions` (the book's history, if
    /// known) name the accounts that saved what is merged.
    private func merge(
        with theirs: BookRecord, savedBy revisions: [BookRevision], after request: SaveRequest,
        on repository: BookRepository
    ) {
        guard var editor = editorPart.open, let base = editor.base else { return }
        // Only a revision newer than the one the draft edits can be merged with.
        guard theirs.revision > base.revision, base.revision == request.expectedRevision else {
            editor.conflict = ConflictState(theirs: theirs)
            editorPart.open = editor
            return
        }
        let merge = ThreeWayMerge(base: base, theirs: theirs, mine: editor.draft)
        guard merge.conflicts.isEmpty else {
            editor.conflict = ConflictState(theirs: theirs, fields: merge.conflicts, merged: merge.merged)
            editorPart.open = editor
            return
        }
        let savers = revisions.filter { $0.record.revision > base.revision && $0.record.revision <= theirs.revision }
            .sorted { $0.record.revision < $1.record.revision }.map(\.account)
        let note = (editor.mergeNote ?? MergeNote(revision: theirs.revision, fields: []))
            .adding(merge, theirs: theirs, savedBy: savers)
        editor.rebase(on: theirs)
        editor.draft = merge.merged
        editor.conflict = nil
        guard merge.merged != BookDraft(theirs), let merged = saveRequest(for: editor, against: theirs.revision)
        else {
            // Their revision holds everything the draft changed: nothing left to save.
            editor.mergeNote = nil
            editorPart.open = editor
            message = note.alreadyThere(self.revisions)
            return
        }
        editor.mergeNote = note
        editorPart.open = editor
        send(merged, on: repository)
    }

    /// A save whose outcome is still unknown (its reconciliation failed while the store was
    /// away) is settled through its operation id as soon as the store answers again: called
    /// after a freshness check or a reconnect succeeds. Returns the request number.
    @discardableResult
    func settleUnresolvedSave() -> Int? {
        guard let repository, let editor = editorPart.open, let unresolved = editor.unresolved,
            case .unresolved? = editor.outcome, pendingKind(.editor) == nil
        else { return nil }
        defer { changed() }
        return launch(.editor, reconciliation(of: unresolved, on: repository))
    }

    /// What reconciliation found out about an uncertain save, shown in the editor.
    private func settle(_ found: ReconciledSave, of sent: SentSave) {
        editorPart.open?.unresolved = nil
        switch found {
        case let .committed(record):
            observe(record)
            applySaved(record, sent: sent)
        case let .committedThenChanged(revision, current):
            observe(current)
            applySaved(record(of: sent.request, committedAs: revision), sent: sent)
        case let .notCommitted(current):
            editorPart.open?.outcome = .notCommitted
            editorPart.open?.noteNewer(observe(current))
        }
    }

    /// The record a save produced, rebuilt from what it sent, when the store has moved on and
    /// holds someone else's revision.
    private func record(of request: SaveRequest, committedAs revision: Int) -> BookRecord {
        let sent = (try? request.validated()) ?? request
        let author = sent.author ?? editorPart.open?.base?.author ?? ""
        let details = sent.details ?? editorPart.open?.base?.details ?? .empty
        return BookRecord(id: request.id, title: sent.title, revision: revision, author: author, details: details)
    }

    /// A save committed as `saved`: it becomes the base, and the draft becomes clean unless
    /// the user kept typing while it was in flight (then their newer text stays, dirty
    /// against the new base). If someone else has saved a newer revision since, that stays
    /// theirs: the editor reports the user's own revision and shows theirs as changed
    /// elsewhere, never adopting their text as the user's save.
    private func applySaved(_ saved: BookRecord, sent: SentSave) {
        guard var editor = editorPart.open else { return }
        editor.rebase(on: saved)
        if editor.draft == sent.draft { editor.draft = BookDraft(saved) }
        editor.outcome = .saved(revision: saved.revision)
        editor.conflict = nil
        if let note = editor.mergeNote { message = note.merged(revisions) }
        editor.mergeNote = nil
        if let newest = newestSeen?.newest(of: saved.id) { editor.noteNewer(newest) }
        editorPart.open = editor
        // The saved book may no longer match the search, or newly match it.
        _ = startSearch(.refresh)
    }
}

/// A save as sent, with the draft it was made from: the request carries the fields as a store
/// keeps them, the draft as typed, to tell whether the user typed on while it was in flight.
struct SentSave {
    let request: SaveRequest
    let draft: BookDraft
}
