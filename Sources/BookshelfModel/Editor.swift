import BookCatalog

/// The editor's stored values (activity and problems are derived, see `editorState`).
struct EditorSession {
    let bookID: Int
    var base: BookRecord?
    var draft = BookDraft(title: "", author: "")
    var focus: EditorField = .title
    var outcome: SaveOutcome?
    var conflict: ConflictState?
    /// The newest revision someone else saved that the draft is not based on.
    var knownNewer: BookRecord?
    var loadError: String?
    var watchError: String?
    /// A save whose outcome is unknown: saving again reconciles it before sending anything.
    var unresolvedRequest: SaveRequest?

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
        let activity: EditorActivity? = switch pendingKind(.editor) {
        case .load?: editor.base == nil ? .loading : .fetchingCurrent
        case .save?: .saving
        case .reconcile?: .reconciling
        default: nil
        }
        var titleProblem: String?
        var authorProblem: String?
        if editor.base != nil {
            do { _ = try BookValidation.title(editor.draft.title) } catch { titleProblem = error.description }
            do { _ = try BookValidation.author(editor.draft.author) } catch { authorProblem = error.description }
        }
        // While a save is in flight a newer revision may be that very save: wait for its answer.
        let changedElsewhere = activity == nil && editor.conflict == nil ? editor.knownNewer : nil
        return EditorState(
            bookID: editor.bookID, base: editor.base, draft: editor.draft, focus: editor.focus,
            activity: activity, outcome: editor.outcome, conflict: editor.conflict,
            changedElsewhere: changedElsewhere, loadError: editor.loadError, watchError: editor.watchError,
            titleProblem: titleProblem, authorProblem: authorProblem)
    }

    // MARK: Opening and closing

    /// Opens the selected book: loads it from the store; its revision becomes the draft's base.
    @discardableResult
    public func openSelected() -> Int? {
        guard let book = results.selectedBook else { return nil }
        return open(bookID: book.id)
    }

    /// Opens a book by id (ignored while an editor is open).
    @discardableResult
    public func open(bookID: Int) -> Int? {
        guard let repository, editor == nil else { return nil }
        editor = EditorSession(bookID: bookID)
        let ticket = begin(.editor, .load)
        spawn(ticket) { [self] in
            do {
                let loaded = try await repository.book(id: bookID, policy: .refresh)
                let mayPublish = conclude(ticket)
                guard isCurrentSession(ticket) else { return }
                let newest = observe(loaded)
                guard mayPublish else { return }
                editor?.rebase(on: newest)
                editor?.draft = BookDraft(newest)
            } catch {
                guard conclude(ticket, error: error) else { return }
                editor?.loadError = Self.message(for: error)
            }
        }
        changed()
        return ticket.identity.request
    }

    /// Closes the editor; with unsaved changes it asks first (see `confirmation`).
    public func closeEditor() {
        guard let editor else { return }
        if editor.isDirty {
            confirmation = Confirmation(action: .closeEditor)
        } else {
            discardEditor()
        }
        changed()
    }

    func discardEditor() {
        editor = nil
        // Whatever the editor still has in flight can no longer publish into it. A save may
        // still commit in the store; its record still lifts the rows of this session.
        owners[.editor] = nil
        owners[.editorWatch] = nil
    }

    // MARK: Editing

    public func setDraft(_ field: EditorField, to text: String) {
        guard editor?.base != nil else { return }
        editor?.draft[field] = text
        changed()
    }

    public func focus(_ field: EditorField) {
        editor?.focus = field
        changed()
    }

    public func focusNextField() {
        guard let current = editor?.focus else { return }
        focus(current == .title ? .author : .title)
    }

    // MARK: Saving

    /// Saves the draft against its base revision. Ignored while the editor waits for the
    /// store, while a conflict awaits a choice, or while the draft is invalid (the problems
    /// are shown inline). After an unknown outcome it first finds out whether that save
    /// committed. Returns the request number.
    @discardableResult
    public func save() -> Int? {
        guard let repository, let editor, let base = editor.base, pendingKind(.editor) == nil,
              editor.conflict == nil
        else { return nil }
        if let unresolved = editor.unresolvedRequest {
            let ticket = begin(.editor, .reconcile)
            spawn(ticket) { [self] in await reconcile(unresolved, ticket: ticket, on: repository) }
            changed()
            return ticket.identity.request
        }
        guard let request = saveRequest(for: editor, against: base.revision) else {
            changed()
            return nil
        }
        return send(request, on: repository)
    }

    /// Answers a conflict: take theirs, overwrite theirs with my draft, or keep editing.
    @discardableResult
    public func resolveConflict(_ choice: ConflictChoice) -> Int? {
        guard let repository, var editor, let conflict = editor.conflict, pendingKind(.editor) == nil else { return nil }
        defer { changed() }
        switch choice {
        case .reload:
            guard let theirs = conflict.theirs else { return nil }
            editor.rebase(on: theirs)
            editor.draft = BookDraft(theirs)
            editor.conflict = nil
            editor.outcome = nil
            self.editor = editor
            return nil
        case .keepEditing:
            editor.conflict = nil
            if let theirs = conflict.theirs { editor.noteNewer(theirs) }
            self.editor = editor
            return nil
        case .overwrite:
            guard let theirs = conflict.theirs,
                  let request = saveRequest(for: editor, against: theirs.revision)
            else { return nil }
            // The user accepted their revision as the base of this write.
            editor.rebase(on: theirs)
            editor.conflict = nil
            self.editor = editor
            return send(request, on: repository)
        }
    }

    private func saveRequest(for editor: EditorSession, against revision: Int) -> SaveRequest? {
        guard (try? BookValidation.title(editor.draft.title)) != nil,
              (try? BookValidation.author(editor.draft.author)) != nil
        else { return nil }
        return SaveRequest(id: editor.bookID, title: editor.draft.title, author: editor.draft.author,
                           expectedRevision: revision)
    }

    private func send(_ request: SaveRequest, on repository: BookRepository) -> Int {
        editor?.outcome = nil
        editor?.conflict = nil
        let ticket = begin(.editor, .save)
        spawn(ticket) { [self] in
            do {
                let saved = try await repository.save(request)
                let mayPublish = conclude(ticket)
                guard isCurrentSession(ticket) else { return }
                let newest = observe(saved)
                if mayPublish { applySaved(newest, sent: request) }
            } catch {
                guard conclude(ticket, error: error) else { return }
                switch error as? BookFailure {
                case .conflict?:
                    // Keep the draft; show theirs beside it once fetched.
                    editor?.conflict = ConflictState()
                    changed()
                    await fetchTheirs(after: ticket, bookID: request.id, on: repository)
                case .outcomeUnknown?:
                    // It may have committed: find out before offering a retry.
                    editor?.unresolvedRequest = request
                    changed()
                    await reconcile(request, ticket: chain(from: ticket, .reconcile), on: repository)
                default:
                    editor?.outcome = .rejected(error as? BookFailure ?? .storeUnavailable(Self.message(for: error)))
                }
            }
        }
        changed()
        return ticket.identity.request
    }

    private func fetchTheirs(after saveTicket: RequestTicket, bookID: Int, on repository: BookRepository) async {
        let ticket = chain(from: saveTicket, .load)
        do {
            let current = try await repository.book(id: bookID, policy: .refresh)
            let mayPublish = conclude(ticket)
            guard isCurrentSession(ticket) else { return }
            let newest = observe(current)
            guard mayPublish else { return }
            editor?.conflict = ConflictState(theirs: newest)
        } catch {
            guard conclude(ticket, error: error) else { return }
            editor?.conflict = ConflictState(fetchError: Self.message(for: error))
        }
    }

    private func reconcile(_ request: SaveRequest, ticket: RequestTicket, on repository: BookRepository) async {
        do {
            let found = try await repository.reconcile(request)
            let mayPublish = conclude(ticket)
            guard isCurrentSession(ticket) else { return }
            switch found {
            case let .committed(record):
                let newest = observe(record)
                guard mayPublish else { return }
                editor?.unresolvedRequest = nil
                applySaved(newest, sent: request)
            case let .notCommitted(current):
                let newest = observe(current)
                guard mayPublish else { return }
                editor?.unresolvedRequest = nil
                editor?.outcome = .notCommitted
                editor?.noteNewer(newest)
            }
        } catch {
            guard conclude(ticket, error: error) else { return }
            editor?.outcome = .unresolved(error as? BookFailure)
        }
    }

    /// A save committed: it becomes the base; the draft becomes clean unless the user kept
    /// typing while it was in flight (then their newer text stays, dirty against the new base).
    private func applySaved(_ record: BookRecord, sent request: SaveRequest) {
        guard var editor else { return }
        let sentDraft = BookDraft(title: request.title, author: request.author ?? editor.draft.author)
        editor.rebase(on: record)
        if editor.draft == sentDraft { editor.draft = BookDraft(record) }
        editor.outcome = .saved(revision: record.revision)
        editor.conflict = nil
        self.editor = editor
    }

    // MARK: Watching the edited record

    /// Re-reads the edited record after a change notice. It never touches the draft; it only
    /// notes a newer revision so the editor can say the book changed since it was opened.
    func watchEditedRecord() {
        guard let repository, let editor, editor.base != nil else { return }
        let bookID = editor.bookID
        let ticket = begin(.editorWatch, .load)
        spawn(ticket) { [self] in
            do {
                let current = try await repository.book(id: bookID, policy: .refresh)
                let mayPublish = conclude(ticket)
                guard isCurrentSession(ticket) else { return }
                let newest = observe(current)
                guard mayPublish else { return }
                self.editor?.watchError = nil
                self.editor?.noteNewer(newest)
            } catch {
                guard conclude(ticket, error: error) else { return }
                self.editor?.watchError = Self.message(for: error)
            }
        }
    }
}

extension SearchResults {
    var selectedBook: BookRecord? { selection.map { rows[$0] } }
}
