import BookCatalog
import BookshelfModel
import TerminalUI

/// What a binding did with a key: took it (and maybe started a request), or passed it on.
enum KeyHandling {
    case took(request: Int?)
    case passedOn

    static let took = KeyHandling.took(request: nil)
}

/// The other half of the keymap: when each input layer is active, and what each action does.
extension BookshelfApp {
    func isActive(_ layer: InputLayer, state: BookshelfState) -> Bool {
        switch layer {
        case .question: state.confirmation != nil
        case .tooSmall: layout.isTooSmall
        case .password: state.passwordPrompt != nil
        // An overlay opened before the question keeps the keys until it closes.
        case .restoreQuestion: (state.history?.restoreQuestion != nil || state.keptDraft != nil) && ui.overlay == nil
        case .global, .search: true
        case .help: if case .help? = ui.overlay { true } else { false }
        case .accounts: if case .accounts? = ui.overlay { true } else { false }
        case .requests: ui.showsRequests
        case .lostSaves: ui.overlay == .lostSaves
        case .bulkEditor: state.bulk.editor != nil
        case .batchOutcomes: state.bulk.batch?.isListOpen == true
        case .conflict: state.editor?.conflict != nil
        case .notes: state.editor?.focus == .notes && state.editor?.isLoaded == true
        case .editor: state.editor != nil
        case .history: state.history != nil
        }
    }

    /// An overlay's first shown line after `step` (a page is the screen less the box's frame),
    /// kept within 0...limit.
    private func scrolled(_ scroll: Int, by step: ListStep, limit: Int) -> Int {
        let wanted =
            switch step {
            case let .rows(rows): scroll + rows
            case let .pages(pages): scroll + pages * max(1, size.rows - 4)
            }
        return min(max(0, wanted), limit)
    }

    /// Does `action` for `key` (a key of its binding) in `layer`.
    func perform(_ action: KeyAction, key: Key, in layer: InputLayer, state: BookshelfState) -> KeyHandling {
        switch action {
        case .confirm:
            // "Yes" only to a question on the screen: nobody answers what they could not read.
            if layout.isTooSmall, let confirmation = state.confirmation,
                !TooSmallScreen.showsQuestion(confirmation, columns: layout.columns, rows: layout.rows)
            {
                return .passedOn
            }
            return .took(request: model.confirm())
        case .cancelConfirmation:
            model.cancelConfirmation()
        case .quit:
            // An overlay on the screen gives way (below the minimum size none is drawn).
            if !layout.isTooSmall { ui.overlay = nil }
            model.requestQuit()
        case .toggleHelp:
            ui.overlay = ui.overlay == .help(scroll: 0) ? nil : .help(scroll: 0)
        case .toggleAccounts:
            if case .accounts? = ui.overlay {
                ui.overlay = nil
            } else {
                ui.overlay = .accounts(highlighted: nil)
            }

        case .typePassword:
            guard case let .character(character) = key else { return .passedOn }
            ui.password.append(String(character))
        case .pastePassword:
            guard case let .paste(raw) = key else { return .passedOn }
            // A password copied with its line keeps no line break; Enter still submits it.
            ui.password.append(LineEditor.pastedText(String(raw.trimmingLineBreaks)))
        case .erasePasswordCharacter:
            ui.password.removeLast()
        case .clearPassword:
            ui.password.clear()
        case .submitPassword:
            let secret = ui.password.reveal()
            ui.password.clear()
            return .took(request: model.submitPassword(secret))
        case .cancelPassword:
            ui.password.clear()
            model.cancelPasswordPrompt()

        case let .scrollHelp(step):
            guard case let .help(scroll)? = ui.overlay else { return .passedOn }
            let limit = Overlays.helpMaximumScroll(columns: size.columns, rows: size.rows)
            ui.overlay = .help(scroll: scrolled(scroll, by: step, limit: limit))
        case .closeHelp, .closeRequests:
            ui.overlay = nil
        case .toggleLostSaves:
            if ui.overlay == .lostSaves {
                ui.overlay = nil
            } else {
                ui.overlay = .lostSaves
                model.lostSavesSeen()
            }
        case .closeLostSaves:
            ui.overlay = nil
        case .toggleRequests:
            ui.overlay = ui.showsRequests ? nil : .requests(scroll: 0)
        case let .scrollRequests(step):
            guard case let .requests(scroll)? = ui.overlay else { return .passedOn }
            let limit = RequestPanel.maximumScroll(model.log.entries, columns: size.columns, rows: size.rows)
            ui.overlay = .requests(scroll: scrolled(scroll, by: step, limit: limit))

        case let .moveAccountSelection(delta):
            guard case let .accounts(highlighted)? = ui.overlay else { return .passedOn }
            let choices = SwitcherChoice.all(in: state)
            guard !choices.isEmpty else { return .took }
            let moved = state.switcherRow(highlighting: highlighted) + delta
            ui.overlay = .accounts(highlighted: choices[min(max(0, moved), choices.count - 1)])
        case .switchAccount:
            guard case let .accounts(highlighted)? = ui.overlay else { return .passedOn }
            ui.overlay = nil
            let choices = SwitcherChoice.all(in: state)
            guard !choices.isEmpty else { return .took }
            switch choices[min(state.switcherRow(highlighting: highlighted), choices.count - 1)] {
            case let .account(name): return .took(request: model.requestAccountSwitch(to: name))
            case let .catalog(catalog): return .took(request: model.requestCatalogSwitch(to: catalog))
            }
        case .closeAccounts:
            ui.overlay = nil

        case .reload:
            guard state.editor?.conflict?.theirs != nil else { return .passedOn }
            return .took(request: model.resolveConflict(.reload))
        case .overwrite:
            guard state.editor?.conflict?.theirs != nil else { return .passedOn }
            return .took(request: model.resolveConflict(.overwrite))
        case .editMerge:
            guard state.editor?.conflict?.merged != nil else { return .passedOn }
            return .took(request: model.resolveConflict(.editMerged))
        case .keepEditing:
            return .took(request: model.resolveConflict(.keepEditing))
        case .chooseFirst:
            let ways = state.editor?.conflict?.merged != nil ? Hints.chooseFirstWithMerge : Hints.chooseFirst
            ui.notice = Notice("Choose first: \(ways.text).")

        case .explainReload:
            ui.notice = Notice(Hints.reloadOnlyAfterAConflict.text)
        case .explainOverwrite:
            ui.notice = Notice(Hints.overwriteOnlyAfterAConflict.text)
        case .closeEditor:
            model.closeEditor()
        case .save:
            guard let editor = state.editor else { return .passedOn }
            let request = model.save()
            if request == nil { ui.notice = saveRefusal(editor) }
            return .took(request: request)
        case .nextField:
            model.focusNextField()
        case .previousField:
            model.focusPreviousField()

        case .type:
            guard case let .character(character) = key else { return .passedOn }
            return editLine(.insert(String(character)), in: layer, state: state)
        case let .edit(edit):
            return editLine(edit, in: layer, state: state)
        case .paste:
            guard case let .paste(raw) = key else { return .passedOn }
            return paste(raw, in: layer, state: state)

        case let .moveHistorySelection(delta):
            model.moveHistorySelection(by: delta)
        case .requestRestore:
            model.requestRestore()
        case .closeHistory:
            model.closeHistory()
        case .confirmRestore:
            if state.keptDraft != nil { return .took(request: model.restoreKeptDraft()) }
            return .took(request: model.confirmRestore())
        case .cancelRestore:
            if state.keptDraft != nil {
                model.declineKeptDraft()
            } else {
                model.cancelRestore()
            }
        case .restoreLater:
            if state.keptDraft != nil {
                model.askAboutKeptDraftLater()
            } else {
                model.cancelRestore()
            }

        case .helpFromEmptySearch:
            guard state.search.query.isEmpty else { return .passedOn }
            ui.overlay = .help(scroll: 0)
        case .clearSearch:
            guard !state.search.query.isEmpty else { return .took }
            return .took(request: model.setQuery(""))
        case let .moveSelection(.rows(delta)):
            model.moveSelection(by: delta)
        case let .moveSelection(.pages(pages)):
            model.movePage(by: pages)
        case let .scrollList(delta):
            model.scrollList(by: delta)
        case .click:
            guard case let .mouse(event) = key else { return .passedOn }
            guard let index = layout.resultIndex(atRow: event.row, column: event.column, top: state.search.listTop),
                index < state.search.rows.count
            else { return .took }
            if index == state.search.selection { return .took(request: model.openSelected()) }
            model.select(index: index)
        case .open:
            return .took(request: model.openSelected())
        case .openHistory:
            return .took(request: model.openHistory())

        case .toggleMark:
            model.toggleMark(state.search.rowsAreCurrent ? state.search.selectedBook?.id : nil)
        case .markEveryMatch:
            return .took(request: model.markEveryMatch(of: state.search.query))
        case .clearMarks:
            model.clearMarks()
        case .openBulkEditor:
            if state.bulk.markedCount == 0 && !state.bulk.isMarkingMatches {
                ui.notice = Notice("Mark books first: \(Hints.markingKeys).")
                return .took
            }
            if state.bulk.batch?.isRunning == true {
                ui.notice = "A batch is running: one at a time."
                return .took
            }
            return .took(request: model.openBulkEditor())
        case let .chooseBulkChange(delta):
            model.chooseBulkChange(by: delta)
        case .switchBulkFocus:
            model.switchBulkFocus()
        case .toggleAllOrNothing:
            model.toggleAllOrNothing()
        case .runBulkEdit:
            guard let editor = state.bulk.editor else { return .passedOn }
            let request = model.runBulkEdit()
            if request == nil {
                ui.notice = Notice(
                    editor.isReading
                        ? "Wait for the marked books to be read first."
                        : editor.problem ?? editor.readError
                            ?? "Nothing to save: the change leaves every book as it is.")
            }
            return .took(request: request)
        case .closeBulkEditor:
            model.closeBulkEditor()
        case .toggleBatchOutcomes:
            guard state.bulk.batch != nil else {
                ui.notice = "No batch yet this session."
                return .took
            }
            ui.overlay = nil
            model.toggleBatchOutcomes()
        case let .moveBatchSelection(delta):
            model.moveBatchSelection(by: delta)
        case .openBatchOutcome:
            return .took(request: model.openBatchOutcome())
        case .undoBatch:
            let request = model.undoLastBatch()
            if request == nil {
                ui.notice = Notice(
                    state.bulk.batch?.isRunning == true
                        ? "Wait for the batch to end first." : "Nothing to undo: the batch saved nothing.")
            }
            return .took(request: request)
        case .closeBatchOutcomes:
            model.closeBatchOutcomes()
        }
        return .took
    }

    // MARK: The line that has focus

    /// A readline edit of the search line, or of the editor's focused field once the book is
    /// loaded. The model holds the line (text and cursor); the key is an intent.
    private func editLine(_ edit: LineEditor.Edit, in layer: InputLayer, state: BookshelfState) -> KeyHandling {
        if layer == .editor || layer == .notes {
            guard let editor = state.editor, editor.isLoaded else { return .passedOn }
            model.editDraft(edit)
            return .took
        }
        if layer == .bulkEditor {
            model.editBulkText(edit)
            return .took
        }
        return .took(request: model.editQuery(edit))
    }

    /// Pasted text goes into the field that has focus, as text only: it never saves,
    /// submits, answers a question or closes anything. The notes keep its lines; a one-line
    /// field joins them with spaces.
    private func paste(_ raw: String, in layer: InputLayer, state: BookshelfState) -> KeyHandling {
        let text = layer == .notes ? LineEditor.pastedLines(raw) : LineEditor.pastedText(raw)
        guard !text.isEmpty else { return .took }
        if layer == .editor || layer == .notes {
            guard let editor = state.editor, editor.isLoaded else { return .passedOn }
            let field = editor.focus
            let limit = DraftLines.limit(of: field)
            if model.pasteIntoDraft(text, limit: limit) {
                ui.notice = Self.pasteCutNotice(limit: limit, field: field.name)
            }
            return .took
        }
        if layer == .bulkEditor {
            let limit = BookValidation.maximumNotesLength
            if model.pasteIntoBulkText(text, limit: limit) {
                ui.notice = Self.pasteCutNotice(limit: limit, field: "bulk")
            }
            return .took
        }
        let (request, cut) = model.pasteIntoQuery(text, limit: Self.searchLineLimit)
        if cut { ui.notice = Self.pasteCutNotice(limit: Self.searchLineLimit, field: "search") }
        return .took(request: request)
    }

    private func saveRefusal(_ editor: EditorState) -> Notice? {
        if editor.activity != nil { return Self.waitForTheStore }
        if let reason = editor.readOnlyReason { return Notice(reason) }
        if !editor.problems.isEmpty { return "Fix the problems shown before saving." }
        return nil
    }
}

private extension StringProtocol {
    /// Without line breaks at either end.
    var trimmingLineBreaks: SubSequence {
        let isBreak: (Character) -> Bool = { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        let start = firstIndex { !isBreak($0) } ?? endIndex
        let end = lastIndex { !isBreak($0) }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
