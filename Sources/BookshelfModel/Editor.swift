import BookCatalog

/// The editor part's stored values: the book open in the editor, what is kept of drafts between
/// runs, and the saves the store lost. Only the editor's files touch them; the other parts use
/// the editor's intents and reads.
struct EditorPart {
    /// The book open in the editor, nil when none is.
    var open: EditorSession?
    /// Where the open draft is kept between runs, and what waits to be offered (`EditorKeptDrafts.swift`).
    var keeping = DraftKeepingState()
    /// Saves the store lost, each kept until its book is opened again (`noticeLostSaves`).
    var keptLostSaves: [Int: LostSave] = [:]
    /// Every save the store lost this session, and which the user has not seen in their list.
    var lostSaveList = LostSaveList()

    /// A new session began: the editor closes, and lost saves are told to the session that made
    /// them (another account's rows and books may carry the same ids). What is kept on disk is
    /// the keeping's (`offerKeptDrafts`).
    mutating func clearForNewSession() {
        open = nil
        lostSaveList = LostSaveList()
        keptLostSaves = [:]
    }
}

/// The open editor's stored values (activity and problems are derived, see `editorState`).
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

/// What the other parts may know of the open editor: its book, whether its draft differs from
/// its base, and what its last save said.
struct EditorGlance {
    let bookID: Int
    let isDirty: Bool
    let outcome: SaveOutcome?
}

extension BookshelfModel {
    var editorState: EditorState? {
        guard let editor = editorPart.open else { return nil }
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
        guard let repository, editorPart.open == nil else { return nil }
        editorPart.open = EditorSession(bookID: bookID)
        defer { changed() }
        return launch(
            .editor,
            Effect(
                .load, { try await repository.book(id: bookID, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] loaded, _ in
                    let newest = floor(loaded)
                    editorPart.open?.rebase(on: newest)
                    editorPart.open?.draft = restoring ?? BookDraft(newest)
                    if restoring != nil {
                        save()
                    } else if let lost = takeKeptLostSave(of: bookID) {
                        editorPart.open?.draft = BookDraft(lost.saved)
                        editorPart.open?.outcome = .lost(revision: lost.saved.revision, current: newest.revision)
                        message = nil
                    }
                    return nil
                },
                fail: { [self] error, _ in
                    editorPart.open?.loadError = Self.message(for: error)
                    return nil
                }))
    }

    /// Closes the editor; with unsaved changes it asks first (see `confirmation`).
    public func closeEditor() {
        guard editorPart.open != nil else { return }
        message = nil
        if !askBeforeDroppingTheEditor(.closeEditor) { discardEditor() }
        changed()
    }

    // MARK: What the other parts ask of the editor

    /// Whether a book is open in the editor (the search's list may then be hidden).
    var editorIsOpen: Bool { editorPart.open != nil }

    /// The open editor as the other parts may know it, nil when none is open.
    var openEditor: EditorGlance? {
        editorPart.open.map { EditorGlance(bookID: $0.bookID, isDirty: $0.isDirty, outcome: $0.outcome) }
    }

    /// A save (or the reconciliation of an uncertain one) is on its way: it may commit
    /// whatever the user says now.
    var saveIsInFlight: Bool {
        editorPart.open != nil && [.save, .reconcile].contains(pendingKind(.editor))
    }

    /// The store is back: a save refused only because the store could not be reached stops
    /// saying so (the draft stays, and Enter saves it again). A save refused while the store kept
    /// answering checks (a catalog another program has locked answers reads and refuses writes)
    /// keeps its note until a save goes through.
    func forgetUnreachableSaveRefusal() {
        if case let .rejected(failure)? = editorPart.open?.outcome, StoreReachability.meansUnreachable(failure) {
            editorPart.open?.outcome = nil
        }
    }

    func discardEditor() {
        editorPart.open = nil
        // Whatever the editor still has in flight can no longer publish into it. A save may
        // still commit in the store; its record still lifts the rows of this session.
        owners[.editor] = nil
        owners[.editorWatch] = nil
    }

    // MARK: Editing

    /// Changes a field of the draft. Ignored while the editor is read-only (see
    /// `EditorState.readOnlyReason`): nothing typed then could be kept.
    public func setDraft(_ field: EditorField, to text: String) {
        guard var line = editorPart.open?.lines[field] else { return }
        line.replaceText(text)
        setDraft(field, to: line)
    }

    /// `setDraft` with the line's cursor.
    func setDraft(_ field: EditorField, to line: LineEditor) {
        guard let current = editorPart.open?.draft[field], editorPart.open?.base != nil, editorReadOnlyReason == nil,
            current != line.text
        else { return }
        editorPart.open?.lines[field] = line
        // What the last save said is about another draft now.
        switch editorPart.open?.outcome {
        case .saved?, .noChanges?, .rejected?: editorPart.open?.outcome = nil
        default: break
        }
        message = nil
        changed()
    }

    public func focus(_ field: EditorField) {
        editorPart.open?.focus = field
        changed()
    }

    /// Tab: the next field of the form, the first after the last.
    public func focusNextField() { moveFocus(by: 1) }

    /// Shift-Tab: the field before, the last before the first.
    public func focusPreviousField() { moveFocus(by: -1) }

    private func moveFocus(by step: Int) {
        guard let current = editorPart.open?.focus, let index = EditorField.allCases.firstIndex(of: current) else {
            return
        }
        let fields = EditorField.allCases
        focus(fields[(fields.distance(from: fields.startIndex, to: index) + step + fields.count) % fields.count])
    }

    // MARK: Watching the edited record

    /// Re-reads the edited record after a change notice. It never touches the draft; it only
    /// notes a newer revision so the editor can say the book changed since it was opened.
    func watchEditedRecord() {
        guard let repository, let editor = editorPart.open, editor.base != nil else { return }
        let bookID = editor.bookID
        launch(
            .editorWatch,
            Effect(
                .load, { try await repository.book(id: bookID, policy: .refresh) },
                witness: { [self] in observe($0) },
                publish: { [self] current, _ in
                    editorPart.open?.watchError = nil
                    editorPart.open?.noteNewer(floor(current))
                    return nil
                },
                fail: { [self] error, _ in
                    editorPart.open?.watchError = Self.message(for: error)
                    return nil
                }))
    }
}
