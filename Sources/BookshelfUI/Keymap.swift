import BookshelfModel
import TerminalUI

/// The layers a key passes through, top first: the first active layer that takes the key acts
/// on it. A layer has bindings (`Keymap`); a binding may pass the key on (Ctrl-E in a conflict
/// with no merge, "?" in a search that is not empty), and then the layer's other bindings, then
/// the layers below, get it. A modal layer keeps the keys none of its bindings took, so nothing
/// behind it acts. A new modal is one case here, at its place, and its rows in `Keymap`.
public enum InputLayer: CaseIterable, Sendable {
    /// A question about unsaved changes: only its answers, even on a screen too small to show
    /// anything else ("yes" only if the question itself is shown).
    case question
    /// Below the minimum size nothing is visible to act on: only quitting.
    case tooSmall
    /// The password of the account being switched to (or reconnected).
    case password
    /// "Restore revision N as a new revision?" in the history view, or "An unsaved draft of
    /// «title» (based on revision N) was kept. Restore it?" when a session begins.
    case restoreQuestion
    /// Help, the account switcher and quitting, over whatever is open below. Not modal.
    case global
    /// The help overlay.
    case help
    /// The account switcher.
    case accounts
    /// The request panel: what became of the recent requests to the catalog.
    case requests
    /// The list of saves the catalog lost (after a failover).
    case lostSaves
    /// The bulk editor: one change for every marked book.
    case bulkEditor
    /// A batch's progress, then each book's outcome, to walk.
    case batchOutcomes
    /// The editor after someone else saved first: the ways out. Not modal: the rest goes to
    /// the editor, where any edit means "keep editing".
    case conflict
    /// The editor's notes, a text of several lines, when they have focus: Enter is a new line,
    /// Up and Down move between lines. Not modal: the rest goes to the editor.
    case notes
    case editor
    /// The history view of a book.
    case history
    /// The search line and the result list, under everything.
    case search

    /// The order keys pass through, top first.
    public static let stack: [InputLayer] = allCases

    /// Keeps the keys none of its bindings took.
    public var isModal: Bool { self != .global && self != .conflict && self != .notes }
}

/// Which keys a binding answers to: one key, or a family of keys.
public enum KeyPattern: Equatable, Sendable {
    case key(Key)
    /// Any printable character (`Key.character`).
    case anyCharacter
    /// A bracketed paste (`Key.paste`).
    case paste
    case mouse(MouseEvent.Action)
    /// Any key no other binding of the layer took, but a paste (which is text, never a key).
    case anyOtherKey

    func matches(_ key: Key) -> Bool {
        switch (self, key) {
        case let (.key(bound), key): bound == key
        case (.anyCharacter, .character): true
        case (.paste, .paste): true
        case let (.mouse(action), .mouse(event)): event.action == action
        case (.anyOtherKey, .paste): false
        case (.anyOtherKey, _): true
        default: false
        }
    }
}

/// How far a list moves: by rows, or by pages of what the screen shows.
public enum ListStep: Equatable, Sendable {
    case rows(Int)
    case pages(Int)
}

/// What a key does (atuin's `Action`). `BookshelfApp` performs it; the keymap says which key
/// does it where.
public enum KeyAction: Equatable, Sendable {
    // The question about unsaved changes.
    case confirm, cancelConfirmation
    // Anywhere.
    case quit, toggleHelp, toggleAccounts, toggleRequests, scrollRequests(ListStep), closeRequests
    case toggleLostSaves, closeLostSaves
    // The password prompt.
    case typePassword, pastePassword, erasePasswordCharacter, clearPassword, submitPassword, cancelPassword
    // The help overlay.
    case scrollHelp(ListStep), closeHelp
    // The account switcher.
    case moveAccountSelection(by: Int), switchAccount, closeAccounts
    // A conflict in the editor. `reload`, `overwrite` and `editMerge` pass the key on while
    // their version is not there.
    case reload, overwrite, editMerge, keepEditing, chooseFirst
    // The editor.
    case explainReload, explainOverwrite, closeEditor, save, nextField, previousField
    // The field that has focus: the search line, or the editor's field (the notes' lines too).
    case type, paste, edit(LineEditor.Edit)
    // The history view and its question.
    case moveHistorySelection(by: Int), requestRestore, closeHistory, confirmRestore, cancelRestore
    // A kept draft's question: ask again at the next start (in the history, the same as no).
    case restoreLater
    // The search screen. `helpFromEmptySearch` passes the key on when the search is not empty.
    case helpFromEmptySearch, clearSearch, moveSelection(ListStep), scrollList(by: Int), click, open, openHistory
    // Marks, the bulk editor and its batch.
    case toggleMark, markEveryMatch, clearMarks, openBulkEditor
    case chooseBulkChange(by: Int), switchBulkFocus, toggleAllOrNothing, runBulkEdit, closeBulkEditor
    case toggleBatchOutcomes, moveBatchSelection(by: Int), openBatchOutcome, undoBatch, closeBatchOutcomes
}

/// Every key the app understands: what it does and where, with what the help overlay and the
/// README say about it, in the shape of bubbles' `key.Binding` (keys, and help for them). The
/// dispatch (`BookshelfApp` through `InputLayer.stack`), the help overlay and the README's key
/// table (`KeyHelp`) are all read from `sections`, so none of them can say something the keys
/// do not do.
public enum Keymap {
    /// Keys that do one thing in one layer.
    public struct Binding: Equatable, Sendable {
        public let layer: InputLayer
        public let keys: [KeyPattern]
        public let action: KeyAction

        init(_ layer: InputLayer, _ keys: [KeyPattern], _ action: KeyAction) {
            self.layer = layer
            self.keys = keys
            self.action = action
        }

        init(_ layer: InputLayer, _ keys: [Key], _ action: KeyAction) {
            self.init(layer, keys.map(KeyPattern.key), action)
        }
    }

    /// One row of the help: the keys as it names them, what it says they do, and the bindings
    /// that do it (none, for a row that explains something the app does by itself).
    public struct Entry: Equatable, Sendable {
        public let keys: String
        /// What the overlay says: short enough for a help box.
        public let help: String
        /// What the README says, where it explains more than the overlay has room for.
        public let documentation: String
        public let bindings: [Binding]

        init(_ keys: String, _ help: String, documentation: String? = nil, _ bindings: [Binding]) {
            self.keys = keys
            self.help = help
            self.documentation = documentation ?? help
            self.bindings = bindings
        }
    }

    public struct Section: Equatable, Sendable {
        public let title: String
        public let entries: [Entry]
    }

    /// The readline keys of a line of text, as the help groups them: the search line's rows,
    /// and the editor's "line keys".
    private static func lineKeys(_ layer: InputLayer) -> [Entry] {
        let alt = { (key: Key) in Key.modified(key, .alt) }
        let ctrl = { (key: Key) in Key.modified(key, .ctrl) }
        return [
            Entry("typing", "edit the search; results follow as you type", [Binding(layer, [.anyCharacter], .type)]),
            Entry(
                "Left Right Ctrl-B Ctrl-F", "move the cursor in the search line",
                [
                    Binding(layer, [.left, .ctrl("b")], .edit(.left)),
                    Binding(layer, [.right, .ctrl("f")], .edit(.right)),
                ]),
            Entry(
                "Home End Ctrl-A Ctrl-E", "cursor to the start / end of the line",
                [
                    Binding(layer, [.home, .ctrl("a")], .edit(.home)),
                    Binding(layer, [.end, .ctrl("e")], .edit(.end)),
                ]),
            Entry(
                "Backspace Delete Ctrl-D", "delete before / under the cursor",
                [
                    Binding(layer, [.backspace], .edit(.backspace)),
                    Binding(layer, [.delete, .ctrl("d")], .edit(.deleteForward)),
                ]),
            Entry(
                "Ctrl-U Ctrl-K", "delete to the start / end of the line",
                [
                    Binding(layer, [.ctrl("u")], .edit(.deleteToStart)),
                    Binding(layer, [.ctrl("k")], .edit(.deleteToEnd)),
                ]),
            Entry(
                "Ctrl-W", "delete the word before the cursor",
                [
                    Binding(layer, [.ctrl("w")], .edit(.deleteWordBackward))
                ]),
            // readline's word keys (Alt is Esc then the letter), and Ctrl/Alt with the arrows.
            Entry(
                "Alt-B Alt-F", "a word back / forward; Ctrl-Left Ctrl-Right too",
                [
                    Binding(
                        layer, [alt(.character("b")), alt(.character("B")), ctrl(.left), alt(.left)],
                        .edit(.wordLeft)),
                    Binding(
                        layer, [alt(.character("f")), alt(.character("F")), ctrl(.right), alt(.right)],
                        .edit(.wordRight)),
                ]),
            Entry(
                "Alt-Backspace Alt-D", "delete a word before / after the cursor",
                [
                    Binding(layer, [alt(.backspace)], .edit(.deleteAlphanumericWordBackward)),
                    Binding(
                        layer, [alt(.character("d")), alt(.character("D")), ctrl(.delete), alt(.delete)],
                        .edit(.deleteWordForward)),
                ]),
            Entry("paste", "inserted as text; line breaks become spaces", [Binding(layer, [.paste], .paste)]),
        ]
    }

    private static let yes: [Key] = [.character("y"), .character("Y"), .enter]
    private static let no: [Key] = [.character("n"), .character("N"), .escape]

    public static let sections: [Section] = [
        Section(
            title: "Searching",
            entries: lineKeys(.search) + [
                Entry("Esc", "clear the search", [Binding(.search, [.escape], .clearSearch)]),
                Entry(
                    "Up Down", "move the selection",
                    [
                        Binding(.search, [.up], .moveSelection(.rows(-1))),
                        Binding(.search, [.down], .moveSelection(.rows(1))),
                    ]),
                Entry(
                    "PgUp PgDn", "move the selection and the view by a page",
                    documentation: """
                        move the selection and the view by a whole page (a page not loaded yet is loaded first, \
                        then the move completes)
                        """,
                    [
                        Binding(.search, [.pageUp], .moveSelection(.pages(-1))),
                        Binding(.search, [.pageDown], .moveSelection(.pages(1))),
                    ]),
                Entry(
                    "wheel, click", "scroll the view; select a row (click it again to open it)",
                    documentation: """
                        scroll the view (the selection stays on its book while it is visible, else it moves to the edge); \
                        click selects a row, a second click opens it
                        """,
                    [
                        Binding(.search, [.mouse(.wheelUp)], .scrollList(by: -3)),
                        Binding(.search, [.mouse(.wheelDown)], .scrollList(by: 3)),
                        Binding(.search, [.mouse(.click)], .click),
                    ]),
                Entry("Enter", "edit the selected book", [Binding(.search, [.enter], .open)]),
                Entry(
                    "F3 Ctrl-Y", "history of the selected book, newest first",
                    [
                        Binding(.search, [.function(3), .ctrl("y")], .openHistory)
                    ]),
            ]),
        Section(
            title: "Editing a book",
            entries: [
                Entry(
                    "Tab Shift-Tab", "next / previous field (Down / Up too)",
                    documentation: """
                        next / previous field, in the form's order: title, author, ISBN, year, publisher, series, \
                        series index, tags (as "a, b, c"), notes; Down / Up too, outside the notes
                        """,
                    [
                        Binding(.editor, [.tab, .down], .nextField),
                        Binding(.editor, [.backTab, .up], .previousField),
                    ]),
                Entry(
                    "line keys", "as in the search line (Left, Ctrl-A, Ctrl-W...)",
                    lineKeys(.editor).flatMap(\.bindings)),
                Entry(
                    "Enter Ctrl-S", "save (in the notes, Ctrl-S)",
                    [
                        Binding(.editor, [.enter, .ctrl("s")], .save),
                        // During a conflict, saving waits for one of the ways out.
                        Binding(.conflict, [.enter, .ctrl("s")], .chooseFirst),
                    ]),
                Entry(
                    "in the notes", "Enter new line, Up Down line, Ctrl-S save",
                    documentation: """
                        Enter starts a new line, Up / Down move between lines, Ctrl-S saves, a paste keeps its lines \
                        (the other fields join them with spaces); notes are not searched
                        """,
                    [
                        Binding(.notes, [.enter], .edit(.insert("\n"))),
                        Binding(.notes, [.up], .edit(.lineUp)),
                        Binding(.notes, [.down], .edit(.lineDown)),
                        Binding(.notes, [.paste], .paste),
                        // The hint in the notes names Ctrl-S, the key that saves there.
                        Binding(.notes, [.ctrl("s")], .save),
                    ]),
                Entry("Esc", "close the editor (asks first if unsaved)", [Binding(.editor, [.escape], .closeEditor)]),
            ]),
        Section(
            title: "When someone else saved first",
            entries: [
                Entry("(nothing)", "fields only they changed are merged and saved for you", []),
                Entry(
                    "Ctrl-R", "reload: take their version, drop yours",
                    [
                        Binding(.conflict, [.ctrl("r")], .reload),
                        Binding(.editor, [.ctrl("r")], .explainReload),
                    ]),
                Entry(
                    "Ctrl-O", "overwrite their version with yours (keeping their other fields)",
                    [
                        Binding(.conflict, [.ctrl("o")], .overwrite),
                        Binding(.editor, [.ctrl("o")], .explainOverwrite),
                    ]),
                Entry(
                    "Ctrl-E", "edit a merge: theirs, with yours in the fields you both changed",
                    [
                        Binding(.conflict, [.ctrl("e")], .editMerge)
                    ]),
                Entry("Esc, any edit", "keep editing your version", [Binding(.conflict, [.escape], .keepEditing)]),
            ]),
        Section(
            title: "Editing many books",
            entries: [
                Entry(
                    "Ins Ctrl-X", "mark or unmark the selected book (* in the margin)",
                    documentation: """
                        mark or unmark the selected book: its row shows * and the header how many are marked; marks \
                        belong to the account's session (a switch clears them)
                        """, [Binding(.search, [.insert, .ctrl("x")], .toggleMark)]),
                Entry(
                    "F7", "mark every book the search matches (all pages)",
                    [Binding(.search, [.function(7)], .markEveryMatch)]),
                Entry(
                    "Alt-X", "unmark every book",
                    [
                        Binding(
                            .search, [.modified(.character("x"), .alt), .modified(.character("X"), .alt)], .clearMarks)
                    ]
                ),
                Entry(
                    "F8", "one change for every marked book, with a preview",
                    documentation: """
                        the bulk editor: one change for every marked book (set the author, publisher, year, series, \
                        series index or notes; add or remove tags; replace text in a field), with how many books it \
                        changes and a sample of before -> after, worked out by the rule the save applies
                        """, [Binding(.search, [.function(8)], .openBulkEditor)]),
                Entry(
                    "Up Down", "in the bulk editor: choose the change",
                    [
                        Binding(.bulkEditor, [.up], .chooseBulkChange(by: -1)),
                        Binding(.bulkEditor, [.down], .chooseBulkChange(by: 1)),
                    ]),
                Entry(
                    "Tab", "in a replacement: the text to find / what replaces it",
                    [Binding(.bulkEditor, [.tab, .backTab], .switchBulkFocus)]),
                Entry(
                    "line keys", "as in the search line (Left, Ctrl-A, Ctrl-W...)",
                    lineKeys(.bulkEditor).flatMap(\.bindings)),
                Entry(
                    "Ctrl-N", "all or nothing: one transaction, or nothing saved",
                    documentation: """
                        all or nothing, on or off: every book saved in one transaction, or, if any conflicts or \
                        fails, none; off (the default), each book is saved on its own and has its own outcome, a \
                        partial outcome
                        """, [Binding(.bulkEditor, [.ctrl("n")], .toggleAllOrNothing)]),
                Entry(
                    "Enter Ctrl-S", "save the change to every marked book, as a batch",
                    documentation: """
                        save the change, a compare-and-set per book against the revision the editor read, as a \
                        batch ('bookshelf undo N' reverts it); the search stays usable meanwhile, and the rule \
                        shows the batch's progress
                        """, [Binding(.bulkEditor, [.enter, .ctrl("s")], .runBulkEdit)]),
                Entry(
                    "Esc", "close the bulk editor (the marks stay)", [Binding(.bulkEditor, [.escape], .closeBulkEditor)]
                ),
                Entry(
                    "F9", "the batch: its progress, then each book's outcome",
                    documentation: """
                        the batch: its progress, then the summary ("118 saved, 3 unchanged, 2 conflicts") and each \
                        book's outcome (saved, unchanged, merged, conflict, failed); Up Down walk it, Enter on a \
                        conflict opens the book with the conflict banner (reload, overwrite, merge), u undoes the \
                        batch (as a batch of its own, with the same outcomes), Esc closes
                        """,
                    [
                        Binding(.global, [.function(9)], .toggleBatchOutcomes),
                        Binding(.batchOutcomes, [.up], .moveBatchSelection(by: -1)),
                        Binding(.batchOutcomes, [.down], .moveBatchSelection(by: 1)),
                        Binding(.batchOutcomes, [.enter], .openBatchOutcome),
                        Binding(.batchOutcomes, [.character("u")], .undoBatch),
                        Binding(.batchOutcomes, [.escape], .closeBatchOutcomes),
                    ]),
            ]),
        Section(
            title: "History of a book",
            entries: [
                Entry(
                    "Up Down", "choose a revision (what it changed is marked)",
                    [
                        Binding(.history, [.up], .moveHistorySelection(by: -1)),
                        Binding(.history, [.down], .moveHistorySelection(by: 1)),
                    ]),
                Entry(
                    "Enter", "ask, then restore it as a new revision; conflicts as usual",
                    documentation: """
                        restore it, after asking (y / n): saved as a new revision, conflicts as usual (editors only)
                        """, [Binding(.history, [.enter], .requestRestore)]),
                Entry(
                    "Esc F3 Ctrl-Y", "close the history",
                    [
                        Binding(.history, [.escape, .function(3), .ctrl("y")], .closeHistory)
                    ]),
            ]),
        Section(
            title: "Anywhere",
            entries: [
                Entry(
                    "F1 (? with an empty search)", "this help; Up Down PgUp PgDn scroll it, other keys close it",
                    documentation: """
                        this help; Up Down PgUp PgDn and the wheel scroll it ("more ↑" / "more ↓" say there is more), \
                        other keys close it
                        """,
                    [
                        Binding(.global, [.function(1)], .toggleHelp),
                        Binding(.search, [.character("?")], .helpFromEmptySearch),
                        Binding(.help, [.up], .scrollHelp(.rows(-1))),
                        Binding(.help, [.down], .scrollHelp(.rows(1))),
                        Binding(.help, [.pageUp], .scrollHelp(.pages(-1))),
                        Binding(.help, [.pageDown], .scrollHelp(.pages(1))),
                        Binding(.help, [.mouse(.wheelUp)], .scrollHelp(.rows(-3))),
                        Binding(.help, [.mouse(.wheelDown)], .scrollHelp(.rows(3))),
                        Binding(.help, [.anyOtherKey], .closeHelp),
                    ]),
                Entry(
                    "F2 Ctrl-T", "switch account or a recent catalog; own account reconnects",
                    documentation: """
                        switch account (asks for a password if the account needs one; the input is masked), or open \
                        one of the catalogs and libraries opened recently, listed below the accounts, as a new session; \
                        your own account, after a lost connection, asks for its password again
                        """,
                    [
                        Binding(.global, [.function(2), .ctrl("t")], .toggleAccounts),
                        Binding(.accounts, [.up], .moveAccountSelection(by: -1)),
                        Binding(.accounts, [.down], .moveAccountSelection(by: 1)),
                        Binding(.accounts, [.enter], .switchAccount),
                        Binding(.accounts, [.escape], .closeAccounts),
                        Binding(.password, [.anyCharacter], .typePassword),
                        Binding(.password, [.paste], .pastePassword),
                        Binding(.password, [.backspace], .erasePasswordCharacter),
                        Binding(.password, [.ctrl("u")], .clearPassword),
                        Binding(.password, [.enter], .submitPassword),
                        Binding(.password, [.escape, .ctrl("c")], .cancelPassword),
                    ]),
                Entry(
                    "F4", "recent requests: time, fate, server; Up Down PgUp PgDn scroll",
                    documentation: """
                        the recent requests to the catalog, newest first: how long each took, what became of its \
                        answer, what answered each shown search (the search index, the books while it is built, \
                        the database's search function: docs/commands.md), and, when reads are served by a standby, \
                        which server answered and whether it fell back to the primary; Up Down PgUp PgDn and the \
                        wheel scroll it, any other key closes it
                        """,
                    [
                        Binding(.global, [.function(4)], .toggleRequests),
                        Binding(.requests, [.up], .scrollRequests(.rows(-1))),
                        Binding(.requests, [.down], .scrollRequests(.rows(1))),
                        Binding(.requests, [.pageUp], .scrollRequests(.pages(-1))),
                        Binding(.requests, [.pageDown], .scrollRequests(.pages(1))),
                        Binding(.requests, [.mouse(.wheelUp)], .scrollRequests(.rows(-3))),
                        Binding(.requests, [.mouse(.wheelDown)], .scrollRequests(.rows(3))),
                        Binding(.requests, [.anyOtherKey], .closeRequests),
                    ]),
                Entry(
                    "F6", "saves the catalog lost (a failover): book and revision of each",
                    documentation: """
                        your saves the catalog acknowledged and then lost (a failover to a standby that did not \
                        have them): each book, the revision lost and the one the catalog is back at; until you \
                        have opened this list, a lost book's row is marked with !; any other key closes it
                        """,
                    [
                        Binding(.global, [.function(6)], .toggleLostSaves),
                        Binding(.lostSaves, [.anyOtherKey], .closeLostSaves),
                    ]),
                Entry(
                    "Ctrl-Q Ctrl-C", "quit (asks first if unsaved)",
                    [
                        Binding(.global, [.ctrl("q"), .ctrl("c")], .quit),
                        Binding(.tooSmall, [.ctrl("q"), .ctrl("c")], .quit),
                    ]),
                Entry(
                    "y / n", "answer a question (Enter = yes, Esc = no)",
                    documentation: """
                        answer a question (Enter = yes, Esc = no; to "Restore it?" about a kept draft, n discards it \
                        and Esc asks again at the next start)
                        """,
                    [
                        Binding(.question, yes, .confirm),
                        Binding(.question, no, .cancelConfirmation),
                        Binding(.restoreQuestion, yes, .confirmRestore),
                        Binding(.restoreQuestion, [.character("n"), .character("N")], .cancelRestore),
                        // A reflex never discards a kept draft: Esc only puts the question off.
                        Binding(.restoreQuestion, [.escape], .restoreLater),
                    ]),
            ]),
    ]

    /// Every binding, in the order of the help.
    public static let bindings: [Binding] = sections.flatMap(\.entries).flatMap(\.bindings)

    /// What one layer binds, ready for dispatch: single keys by key, then the families in the
    /// help's order, "any other key" last.
    struct LayerBindings {
        var byKey: [Key: KeyAction] = [:]
        var families: [(pattern: KeyPattern, action: KeyAction)] = []

        /// The actions `key` asks for, in the order they are tried.
        func actions(for key: Key) -> [KeyAction] {
            var actions = byKey[key].map { [$0] } ?? []
            for family in families where family.pattern.matches(key) { actions.append(family.action) }
            return actions
        }
    }

    static let layers: [InputLayer: LayerBindings] = {
        var layers: [InputLayer: LayerBindings] = [:]
        for binding in bindings {
            for pattern in binding.keys {
                if case let .key(key) = pattern {
                    // One key, one action per layer; `KeymapTests` checks it.
                    layers[binding.layer, default: LayerBindings()].byKey[key] = binding.action
                } else {
                    layers[binding.layer, default: LayerBindings()].families.append((pattern, binding.action))
                }
            }
        }
        for (layer, bound) in layers {
            let catchAll = bound.families.filter { $0.pattern == .anyOtherKey }
            layers[layer]?.families = bound.families.filter { $0.pattern != .anyOtherKey } + catchAll
        }
        return layers
    }()

    /// The actions `key` asks for in `layer`, in the order they are tried.
    static func actions(for key: Key, in layer: InputLayer) -> [KeyAction] {
        layers[layer]?.actions(for: key) ?? []
    }
}
