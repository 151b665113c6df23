import BookCatalog

/// The editor's stored values (activity and problems are derived, see `editorState`).
struct EditorSession {
    let bookID: Int
    var base: BookRecord?
    /// The draft as it is edited, each field with its cursor (see `DraftLines`).
    var lines = DraftLines()
    var draft: BookDraft {
        get { lines.draft }
        set { lines.draft = newValue }
    }
    var focus: EditorField = .title
    var outcome: SaveOutcome?
    var conflict: ConflictState?
    /// The newest revision someone else saved that the draft is not based on.
    var knownNewer: BookRecord?
    var loadError: String?
    var watchError: String?
    /// A save whose outcome is unknown: saving again reconciles it before sending anything.
    var unresolved: SentSave?
    /// Someone else's changes merged into the draft being saved, for the status line once
    /// the save commits.
    var mergeNote: MergeNote?

    init(bookID: Int) { self.bookID = bookID }

    var isDirty: Bool { base.map { BookDraft($0) != draft } ?? false }

    mutating func noteNewer(_ record: BookRecord) {
        guard let base, record.revision > base.revision else { return }
        if let known = knownNewer, known.revision >= record.revision { return }
        knownNewer = record
    }

    mutating func rebase(on record: BookRecord) {
        base = record
        if let known = knownNewer, known.revision <= record.revision { knownNewer = nil }
    }
}

extension BookshelfModel {
    var editorState: EditorState? {
        guard let editor else { return nil }
        let activity: EditorActivity? =
            switch pendingKind(.editor) {
            case .load?: editor.base == nil ? .loading : .fetchingCurrent
            case .save?: .saving
            case .reconcile?: .reconciling
            default: nil
            }
        let problems = editor.base != nil ? DraftCheck(editor.draft).problems : [:]
        // While a save is in flight a newer revision may be that very save: wait for its answer.
        let changedElsewhere = activity == nil && editor.conflict == nil ? editor.knownNewer : nil
        return EditorState(
            bookID: editor.bookID, base: editor.base, lines: editor.lines, focus: editor.focus,
            activity: activity, outcome: editor.outcome, conflict: editor.conflict,
            changedElsewhere: changedElsewhere, loadError: editor.loadError, watchError: editor.watchError,
            problems: problems, readOnlyReason: editorReadOnlyReason,
            account: accountName)
    }

    // MARK: Opening and closing

    /// Opens a book by id (ignored while an editor is open).
    @discardableResult
    public func open(bookID: Int) -> Int? { open(bookID: bookID, restoring: nil) }

    /// With `restoring`, the draft becomes that text once the book has loaded, and is saved
    /// against the loaded revision.
    @discardableResult
    func open(bookID: Int, restoring: BookDraft?) -> Int? {
        guard let repository, editor == nil else { return nil }
        editor = EditorSession(bookID: bookID)
        defer { changed() }
        return launch(
            .editor,
            Effect(
                .load, { try await repository.book(id: bookID, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] loaded, _ in
                    let newest = floor(loaded)
                    editor?.rebase(on: newest)
                    editor?.draft = restoring ?? BookDraft(newest)
                    if restoring != nil {
                        save()
                    } else if let lost = takeKeptLostSave(of: bookID) {
                        editor?.draft = BookDraft(lost.saved)
                        editor?.outcome = .lost(revision: lost.saved.revision, current: newest.revision)
                        message = nil
                    }
                    return nil
                },
                fail: { [self] error, _ in
                    editor?.loadError = Self.message(for: error)
                    return nil
                }))
    }

    /// Closes the editor; with unsaved changes it asks first (see `confirmation`).
    public func closeEditor() {
        guard editor != nil else { return }
        message = nil
        if !askBeforeDroppingTheEditor(.closeEditor) { discardEditor() }
        changed()
    }

    /// Whether a book is open in the editor (the search's list may then be hidden).
    var editorIsOpen: Bool { editor != nil }

    func discardEditor() {
        editor = nil
        // Whatever the editor still has in flight can no longer publish into it. A save may
        // still commit in the store; its record still lifts the rows of this session.
        owners[.editor] = nil
        owners[.editorWatch] = nil
    }

    // MARK: Editing

    /// Changes a field of the draft. Ignored while the editor is read-only (see
    /// `EditorState.readOnlyReason`): nothing typed then could be kept.
    public func setDraft(_ field: EditorField, to text: String) {
        guard var line = editor?.lines[field] else { return }
        line.replaceText(text)
        setDraft(field, to: line)
    }

    /// `setDraft` with the line's cursor.
    func setDraft(_ field: EditorField, to line: LineEditor) {
        guard let current = editor?.draft[field], editor?.base != nil, editorReadOnlyReason == nil,
            current != line.text
        else { return }
        editor?.lines[field] = line
        // What the last save said is about another draft now.
        switch editor?.outcome {
        case .saved?, .noChanges?, .rejected?: editor?.outcome = nil
        default: break
        }
        message = nil
        changed()
    }

    /// Why the draft cannot change now, if it cannot. While another account connects, the
    /// editor belongs to a session that is about to end: typing then would be dropped
    /// without a question, so it is refused and the editor says why.
    var editorReadOnlyReason: String? {
        if isPending(.connect), let account = connectingAccount {
            return "Switching to \(account): the editor is read-only until the switch is done."
        }
        if accountRole == .reader { return "\(accountName ?? "This account") is a reader: viewing only." }
        if let action = afterSave { return "Waiting for the save to go through before you \(action.verb)." }
        return nil
    }

    public func focus(_ field: EditorField) {
        editor?.focus = field
        changed()
    }

    /// Tab: the next field of the form, the first after the last.
    public func focusNextField() { moveFocus(by: 1) }

    /// Shift-Tab: the field before, the last before the first.
    public func focusPreviousField() { moveFocus(by: -1) }

    private func moveFocus(by step: Int) {
        guard let current = editor?.focus, let index = EditorField.allCases.firstIndex(of: current) else { return }
        let fields = EditorField.allCases
        focus(fields[(fields.distance(from: fields.startIndex, to: index) + step + fields.count) % fields.count])
    }

    // MARK: Watching the edited record

    /// Re-reads the edited record after a change notice. It never touches the draft; it only
    /// notes a newer revision so the editor can say the book changed since it was opened.
    func watchEditedRecord() {
        guard let repository, let editor, editor.base != nil else { return }
        let bookID = editor.bookID
        launch(
            .editorWatch,
            Effect(
                .load, { try await repository.book(id: bookID, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] current, _ in
                    self.editor?.watchError = nil
                    self.editor?.noteNewer(floor(current))
                    return nil
                },
                fail: { [self] error, _ in
                    self.editor?.watchError = Self.message(for: error)
                    return nil
                }))
    }
}
