import BookCatalog
import BookshelfModel
import TerminalUI

/// The update half of the app (Bubble Tea's `Update`): turns keys, resizes and ticks into
/// model intents and small UI-state changes, and hands the pure `Screen.render` what it
/// draws. It never draws by itself and never waits for the store; the model's `onChange`
/// asks for a frame whenever an answer arrives.
@MainActor
public final class BookshelfApp {
    public let model: BookshelfModel
    public let store: StoreInfo
    public private(set) var ui = UIState()
    public private(set) var size: TerminalSize
    /// Asks for a frame (the terminal coalesces requests into one draw).
    public var onNeedsDraw: () -> Void = {}
    /// The user quit and nothing unsaved stands in the way.
    public var onQuit: () -> Void = {}
    /// Optional key-to-paint measurements (see `EventTrace`).
    public var trace: EventTrace?

    /// How often the store is asked whether someone else committed.
    public let freshnessInterval: Duration
    private let countBooks: (@Sendable (String) async -> Int?)?
    private let now: () -> Duration
    private var lastFreshnessCheck: Duration?
    private var countedSession: Int?
    private var quitReported = false

    public init(
        model: BookshelfModel,
        store: StoreInfo,
        size: TerminalSize,
        freshnessInterval: Duration = .seconds(1),
        countBooks: (@Sendable (String) async -> Int?)? = nil,
        now: @escaping () -> Duration = BookshelfApp.monotonicNow
    ) {
        self.model = model
        self.store = store
        self.size = size
        self.freshnessInterval = freshnessInterval
        self.countBooks = countBooks
        self.now = now
        model.onChange = { [weak self] in self?.modelChanged() }
    }

    public nonisolated static func monotonicNow() -> Duration { ContinuousClock.now - processStart }
    private nonisolated static let processStart = ContinuousClock.now

    /// Says `notice` on the status line until the next key (the first run's "Created ...").
    public func announce(_ notice: Notice) {
        ui.notice = notice
        onNeedsDraw()
    }

    /// Lists accounts and connects to the starting one.
    public func start() {
        model.start()
        lastFreshnessCheck = now()
    }

    /// Something is in flight that the user sees waiting for (drives the spinner's speed).
    public var isBusy: Bool {
        let state = model.state
        return state.search.isBusy || state.search.isLoadingMore || state.editor?.activity != nil
            || state.connection.connectingTo != nil
    }

    public var layout: ScreenLayout {
        ScreenLayout(columns: size.columns, rows: size.rows, paneIsModal: model.state.editor != nil || model.state.history != nil)
    }

    // MARK: Drawing

    /// Paints the current state (the view half: `Screen.render` is pure).
    public func render(into canvas: inout Canvas) {
        normalizeViewport()
        Screen.render(model.state, ui: ui, store: store, into: &canvas)
        trace?.frameRendered(model: model)
    }

    // MARK: Events

    public func handle(_ event: TerminalEvent) {
        switch event {
        case let .key(key):
            let started = trace?.keyArrived()
            ui.notice = nil
            let request = handleKey(key)
            if let started { trace?.keyHandled(key, request: request, arrived: started) }
        case let .resize(newSize):
            size = newSize
            trace?.resized()
        case .tick:
            tick()
        }
        followPaging()
        normalizeViewport()
        checkQuit()
        onNeedsDraw()
    }

    /// Finishes a page move that waited for rows, and loads rows while the list shows blanks.
    private func followPaging() {
        let search = model.state.search
        if let pending = ui.pendingSelection {
            let (select, drop) = ListPaging.resolve(pending, search: search, height: layout.list.height)
            if drop { ui.pendingSelection = nil }
            if let select {
                ui.listTop = pending.top
                model.select(index: select)
            } else if !drop {
                model.loadMore()
            }
        }
        guard model.state.editor == nil || layout.list.height > 0 else { return }
        let top = ListViewport.top(current: ui.listTop, selection: search.selection, count: search.rows.count,
                                   height: layout.list.height)
        if ListPaging.needsRowsToFill(search: model.state.search, top: top, height: layout.list.height) {
            model.loadMore()
        }
    }

    private func tick() {
        if isBusy { ui.spinnerPhase &+= 1 }
        let time = now()
        if let last = lastFreshnessCheck, time - last < freshnessInterval { return }
        lastFreshnessCheck = time
        model.checkForChanges()
    }

    private func modelChanged() {
        // "Wait for the store to answer first." is untrue once it has answered.
        if ui.notice == Self.waitForTheStore, model.state.editor?.activity == nil { ui.notice = nil }
        followPaging()
        refreshCatalogSize()
        checkQuit()
        onNeedsDraw()
    }

    private func checkQuit() {
        guard model.state.shouldQuit, !quitReported else { return }
        quitReported = true
        onQuit()
    }

    private func normalizeViewport() {
        let search = model.state.search
        ui.listTop = ListViewport.top(current: ui.listTop, selection: search.selection, count: search.rows.count,
                                      height: layout.list.height)
    }

    /// Counts the current account's books once per session; a count that arrives after the
    /// session changed is dropped (the same publication rule the model follows).
    private func refreshCatalogSize() {
        let state = model.state
        guard let countBooks, let account = state.account, countedSession != state.session else { return }
        let session = state.session
        countedSession = session
        Task { @MainActor [weak self] in
            let count = await countBooks(account)
            guard let self, self.model.state.session == session, let count else { return }
            self.ui.catalogSize = CatalogSize(account: account, books: count)
            self.onNeedsDraw()
        }
    }

    // MARK: Keys

    /// Handles one key; returns the number of the request it started, if any.
    private func handleKey(_ key: Key) -> Int? {
        let state = model.state
        if case let .paste(text) = key { return paste(text, state: state) }
        let key = Self.withoutShift(key)
        if layout.isTooSmall {
            // Nothing is visible to act on: only quitting and answering a pending question work,
            // and "yes" only when the question is on the screen.
            if let confirmation = state.confirmation {
                if !TooSmallScreen.showsQuestion(confirmation, columns: layout.columns, rows: layout.rows),
                   key != .character("n"), key != .character("N"), key != .escape { return nil }
                return answerConfirmation(key)
            }
            if key == .ctrl("q") || key == .ctrl("c") { model.requestQuit() }
            return nil
        }
        if state.confirmation != nil { return answerConfirmation(key) }
        if state.passwordPrompt != nil { return typePassword(key) }
        // A question is answered before anything else happens (as `confirmation` is).
        if let history = state.history, history.restoreQuestion != nil, ui.overlay == nil {
            return historyKey(key, history: history)
        }
        switch key {
        case .ctrl("q"), .ctrl("c"):
            ui.overlay = nil
            model.requestQuit()
            return nil
        case .function(1):
            ui.overlay = ui.overlay == .help(scroll: 0) ? nil : .help(scroll: 0)
            return nil
        case .function(2), .ctrl("t"):
            if case .accounts? = ui.overlay {
                ui.overlay = nil
            } else {
                let current = state.accounts.firstIndex { $0.isCurrent } ?? 0
                ui.overlay = .accounts(selection: current)
            }
            return nil
        default:
            break
        }
        switch ui.overlay {
        case let .help(scroll)?:
            return helpKey(key, scroll: scroll)
        case let .accounts(selection)?:
            return accountKey(key, selection: selection, accounts: state.accounts)
        case nil:
            break
        }
        if let editor = state.editor { return editorKey(key, editor: editor) }
        if let history = state.history { return historyKey(key, history: history) }
        return searchKey(key, state: state)
    }

    /// Shift with a key that has no shifted meaning here (Shift-Home, Shift-F1) is the key.
    static func withoutShift(_ key: Key) -> Key {
        guard case let .modified(base, modifiers) = key, modifiers == .shift else { return key }
        if case .character = base { return key }
        return base
    }

    // MARK: Paste

    /// The longest search line a paste fills (typing is not limited; a paste of a whole
    /// page would only make a search nobody meant).
    public static let searchLineLimit = 200

    /// Pasted text goes into the field that has focus, as text only: it never saves,
    /// submits, answers a question or closes anything.
    private func paste(_ raw: String, state: BookshelfState) -> Int? {
        guard !layout.isTooSmall, state.confirmation == nil else { return nil }
        if state.passwordPrompt != nil {
            // A password copied with its line keeps no line break; Enter still submits it.
            ui.password.append(LineEditor.pastedText(String(raw.trimmingLineBreaks)))
            return nil
        }
        let text = LineEditor.pastedText(raw)
        guard !text.isEmpty else { return nil }
        // An overlay or the history view has the keys: the search behind them is not edited.
        guard ui.overlay == nil, state.history == nil else { return nil }
        if let editor = state.editor {
            guard editor.isLoaded else { return nil }
            let field = editor.focus
            let limit = field == .title ? BookValidation.maximumTitleLength : BookValidation.maximumAuthorLength
            return editField(field, editor: editor) { line in
                let (changed, cut) = line.insert(text, limit: limit)
                if cut { ui.notice = Self.pasteCutNotice(limit: limit, field: field == .title ? "title" : "author") }
                return changed
            }
        }
        ui.query.follow(state.search.query)
        let (changed, cut) = ui.query.insert(text, limit: Self.searchLineLimit)
        if cut { ui.notice = Self.pasteCutNotice(limit: Self.searchLineLimit, field: "search") }
        return changed ? model.setQuery(ui.query.text) : nil
    }

    static func pasteCutNotice(limit: Int, field: String) -> Notice {
        Notice("Pasted text cut to \(limit) characters (the \(field) limit).")
    }

    private func answerConfirmation(_ key: Key) -> Int? {
        switch key {
        case .character("y"), .character("Y"), .enter:
            return model.confirm()
        case .character("n"), .character("N"), .escape:
            model.cancelConfirmation()
        default:
            break
        }
        return nil
    }

    private func typePassword(_ key: Key) -> Int? {
        switch key {
        case let .character(character):
            ui.password.append(String(character))
        case .backspace:
            ui.password.removeLast()
        case .ctrl("u"):
            ui.password.clear()
        case .enter:
            let secret = ui.password.reveal()
            ui.password.clear()
            return model.submitPassword(secret)
        case .escape, .ctrl("c"):
            ui.password.clear()
            model.cancelPasswordPrompt()
        default:
            break
        }
        return nil
    }

    private func helpKey(_ key: Key, scroll: Int) -> Int? {
        defer {
            if case let .help(wanted)? = ui.overlay {
                let limit = Overlays.helpMaximumScroll(columns: size.columns, rows: size.rows)
                ui.overlay = .help(scroll: min(wanted, limit))
            }
        }
        switch key {
        case .down:
            ui.overlay = .help(scroll: scroll + 1)
        case let .mouse(event) where event.action == .wheelDown:
            ui.overlay = .help(scroll: scroll + 3)
        case let .mouse(event) where event.action == .wheelUp:
            ui.overlay = .help(scroll: max(0, scroll - 3))
        case .up:
            ui.overlay = .help(scroll: max(0, scroll - 1))
        case .pageDown:
            ui.overlay = .help(scroll: scroll + max(1, size.rows - 4))
        case .pageUp:
            ui.overlay = .help(scroll: max(0, scroll - max(1, size.rows - 4)))
        default:
            ui.overlay = nil
        }
        return nil
    }

    private func accountKey(_ key: Key, selection: Int, accounts: [AccountChoice]) -> Int? {
        switch key {
        case .up:
            ui.overlay = .accounts(selection: max(0, selection - 1))
        case .down:
            ui.overlay = .accounts(selection: min(max(0, accounts.count - 1), selection + 1))
        case .enter:
            ui.overlay = nil
            guard accounts.indices.contains(selection) else { return nil }
            return model.requestAccountSwitch(to: accounts[selection].name)
        case .escape:
            ui.overlay = nil
        default:
            break
        }
        return nil
    }

    // MARK: Search screen

    private func searchKey(_ key: Key, state: BookshelfState) -> Int? {
        if let edit = Self.lineEdit(for: key) {
            if case .insert("?") = edit, state.search.query.isEmpty {
                ui.overlay = .help(scroll: 0)
                return nil
            }
            ui.query.follow(state.search.query)
            guard ui.query.apply(edit) else { return nil }
            return model.setQuery(ui.query.text)
        }
        let page = max(1, layout.list.height)
        switch key {
        case .up:
            ui.pendingSelection = nil
            model.moveSelection(by: -1)
        case .down:
            ui.pendingSelection = nil
            model.moveSelection(by: 1)
        case .pageUp: movePage(by: -page, state: state)
        case .pageDown: movePage(by: page, state: state)
        case .enter: return model.openSelected()
        case .function(3), .ctrl("y"): return model.openHistory()
        case .escape:
            guard !state.search.query.isEmpty else { return nil }
            ui.query = LineEditor()
            return model.setQuery("")
        case let .mouse(event):
            return mouse(event, state: state)
        default:
            break
        }
        return nil
    }

    /// The history view: choose a revision, restore it (a new save, after a yes), or close.
    private func historyKey(_ key: Key, history: HistoryState) -> Int? {
        if history.restoreQuestion != nil {
            switch key {
            case .character("y"), .character("Y"), .enter: return model.confirmRestore()
            case .character("n"), .character("N"), .escape: model.cancelRestore()
            default: break
            }
            return nil
        }
        switch key {
        case .up: model.moveHistorySelection(by: -1)
        case .down: model.moveHistorySelection(by: 1)
        case .enter: model.requestRestore()
        case .escape, .function(3), .ctrl("y"): model.closeHistory()
        default: break
        }
        return nil
    }

    /// PgUp/PgDn: the selection and the view move by a whole page, also past the loaded rows.
    private func movePage(by delta: Int, state: BookshelfState) {
        guard let move = ListPaging.page(by: delta, search: state.search, ui: ui, height: layout.list.height) else { return }
        ui.pendingSelection = move.pending
        ui.listTop = move.top
        model.select(index: move.select)
        if move.pending != nil { model.loadMore() }
    }

    /// The wheel scrolls the view, as list views do; the selection stays unless it would leave it.
    private func scrollList(by delta: Int, state: BookshelfState) {
        let height = layout.list.height
        let top = ListViewport.top(current: ui.listTop, selection: state.search.selection, count: state.search.rows.count,
                                   height: height)
        guard let scrolled = ListPaging.scroll(by: delta, search: state.search, top: top, height: height) else { return }
        ui.pendingSelection = nil
        ui.listTop = scrolled.top
        if scrolled.select != state.search.selection { model.select(index: scrolled.select) }
        if scrolled.top + height >= state.search.rows.count { model.loadMore() }
    }

    private func mouse(_ event: MouseEvent, state: BookshelfState) -> Int? {
        switch event.action {
        case .wheelUp: scrollList(by: -3, state: state)
        case .wheelDown: scrollList(by: 3, state: state)
        case .click:
            guard let index = layout.resultIndex(atRow: event.row, column: event.column, top: ui.listTop),
                  index < state.search.rows.count
            else { return nil }
            if index == state.search.selection { return model.openSelected() }
            model.select(index: index)
        }
        return nil
    }

    // MARK: Editor

    private func editorKey(_ key: Key, editor: EditorState) -> Int? {
        let conflictOpen = editor.conflict != nil
        switch key {
        case .ctrl("r"):
            if editor.conflict?.theirs != nil { return model.resolveConflict(.reload) }
            ui.notice = "Ctrl-R reloads only after a conflict."
            return nil
        case .ctrl("o"):
            if editor.conflict?.theirs != nil { return model.resolveConflict(.overwrite) }
            ui.notice = "Ctrl-O overwrites only after a conflict."
            return nil
        case .ctrl("e") where editor.conflict?.merged != nil:
            return model.resolveConflict(.editMerged)
        case .escape:
            if conflictOpen { return model.resolveConflict(.keepEditing) }
            model.closeEditor()
            return nil
        case .enter, .ctrl("s"):
            if conflictOpen {
                ui.notice = editor.conflict?.merged != nil
                    ? "Choose first: Ctrl-R take theirs, Ctrl-O keep yours, Ctrl-E edit a merge, Esc keep editing."
                    : "Choose first: Ctrl-R take theirs, Ctrl-O overwrite, Esc keep editing."
                return nil
            }
            let request = model.save()
            if request == nil { ui.notice = saveRefusal(editor) }
            return request
        case .tab, .backTab, .up, .down:
            model.focusNextField()
            return nil
        default:
            break
        }
        guard let edit = Self.lineEdit(for: key), editor.isLoaded else { return nil }
        return editField(editor.focus, editor: editor) { $0.apply(edit) }
    }

    /// Applies `change` to a field of the open editor and hands the model the new draft.
    private func editField(_ field: EditorField, editor: EditorState, _ change: (inout LineEditor) -> Bool) -> Int? {
        var line = ui.field(field)
        line.follow(editor.draft[field])
        let changed = change(&line)
        ui.edit(field) { $0 = line }
        guard changed else { return nil }
        // Any edit during a conflict means "keep editing my version".
        if editor.conflict != nil { model.resolveConflict(.keepEditing) }
        model.setDraft(field, to: line.text)
        return nil
    }

    static let waitForTheStore: Notice = "Wait for the store to answer first."

    private func saveRefusal(_ editor: EditorState) -> Notice? {
        if editor.activity != nil { return Self.waitForTheStore }
        if let reason = editor.readOnlyReason { return Notice(reason) }
        if editor.titleProblem != nil || editor.authorProblem != nil { return "Fix the problems shown before saving." }
        return nil
    }

    /// The readline keys shared by the search line and the editor's fields.
    static func lineEdit(for key: Key) -> LineEditor.Edit? {
        switch key {
        case let .character(character): .insert(String(character))
        case .backspace: .backspace
        case .delete: .deleteForward
        case .left: .left
        case .right: .right
        case .home, .ctrl("a"): .home
        case .end, .ctrl("e"): .end
        case .ctrl("u"): .deleteToStart
        case .ctrl("k"): .deleteToEnd
        case .ctrl("w"): .deleteWordBackward
        case .ctrl("b"): .left
        case .ctrl("f"): .right
        case .ctrl("d"): .deleteForward
        // readline's word keys (Alt is Esc then the letter), and Ctrl/Alt with the arrows.
        case .modified(.character("b"), .alt), .modified(.character("B"), .alt),
             .modified(.left, .ctrl), .modified(.left, .alt): .wordLeft
        case .modified(.character("f"), .alt), .modified(.character("F"), .alt),
             .modified(.right, .ctrl), .modified(.right, .alt): .wordRight
        case .modified(.character("d"), .alt), .modified(.character("D"), .alt),
             .modified(.delete, .ctrl), .modified(.delete, .alt): .deleteWordForward
        case .modified(.backspace, .alt): .deleteAlphanumericWordBackward
        default: nil
        }
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
