import BookCatalog

extension BookshelfModel {
    /// Opens book `base.id` with `mine` as its draft over `base`: a save another part tried and
    /// found in conflict (a bulk edit's book). The book is read as it stands now and the editor
    /// shows what an ordinary conflicting save shows: the conflict banner (reload, overwrite,
    /// merge) when both changed a field, else the draft merged with their revision, to save as
    /// usual. Ignored while an editor is open. Returns the request number.
    @discardableResult
    public func openConflict(base: BookRecord, mine: BookDraft) -> Int? {
        guard let repository, editorPart.open == nil else { return nil }
        var opened = EditorSession(bookID: base.id)
        opened.rebase(on: base)
        opened.draft = mine
        editorPart.open = opened
        defer { changed() }
        let id = base.id
        return launch(
            .editor,
            Effect(
                .load, { try await repository.book(id: id, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] current, _ in
                    let theirs = floor(current)
                    // Nobody saved it since: the draft is an ordinary edit of the revision read.
                    guard theirs.revision > base.revision, var editor = editorPart.open else { return nil }
                    let merge = ThreeWayMerge(base: base, theirs: theirs, mine: mine)
                    if merge.conflicts.isEmpty {
                        editor.rebase(on: theirs)
                        editor.draft = merge.merged
                    } else {
                        editor.conflict = ConflictState(theirs: theirs, fields: merge.conflicts, merged: merge.merged)
                    }
                    editorPart.open = editor
                    return nil
                },
                fail: { [self] error, _ in
                    editorPart.open?.conflict = ConflictState(fetchError: Self.message(for: error))
                    return nil
                }))
    }
}
