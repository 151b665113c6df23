import TerminalUI

/// A hint the screen shows: the keys that do something in a layer, named from `Keymap`, and
/// what they do ("Enter save"). Renaming a binding renames its hint; a hint whose action its
/// layer binds to no key is left out, never shown with a key that does not do it, and
/// `KeyHintTests` fails for it.
struct KeyHint: Equatable, Sendable {
    let layer: InputLayer
    let actions: [KeyAction]
    let says: String

    init(_ layer: InputLayer, _ actions: KeyAction..., says: String) {
        self.layer = layer
        self.actions = actions
        self.says = says
    }

    /// The keys, named: the first key `bindings` give each action in the layer ("↑↓ PgUp
    /// PgDn"). Nil if the layer binds one of the actions to no key.
    func keys(in bindings: [Keymap.Binding] = Keymap.bindings) -> String? {
        var names: [String] = []
        for action in actions {
            guard let pattern = bindings.first(where: { $0.layer == layer && $0.action == action })?.keys.first
            else { return nil }
            names.append(KeyName.of(pattern))
        }
        return KeyName.joined(names)
    }

    func text(in bindings: [Keymap.Binding] = Keymap.bindings) -> String? {
        keys(in: bindings).map { $0 + " " + says }
    }
}

/// Hints side by side ("Tab field · Enter save"), written once from the keymap.
struct HintLine: Equatable, Sendable {
    let hints: [KeyHint]
    let text: String

    init(_ hints: [KeyHint], separator: String = " · ") {
        self.hints = hints
        text = hints.compactMap { $0.text() }.joined(separator: separator)
    }
}

/// The names hints give keys: the names the help uses ("Ctrl-R", "PgDn", "Esc"), arrows as ↑↓.
enum KeyName {
    static func of(_ pattern: KeyPattern) -> String {
        switch pattern {
        case let .key(key): of(key)
        case .anyCharacter: "typing"
        case .paste: "paste"
        case .mouse(.click): "click"
        case .mouse: "wheel"
        case .anyOtherKey: "other keys"
        }
    }

    static func of(_ key: Key) -> String {
        switch key {
        case let .character(character): String(character)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .insert: "Insert"
        case .delete: "Delete"
        case .backspace: "Backspace"
        case .enter: "Enter"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .escape: "Esc"
        case let .ctrl(letter): "Ctrl-" + letter.uppercased()
        case let .function(number): "F\(number)"
        case .mouse: "click"
        case .paste: "paste"
        case let .modified(base, modifiers):
            (modifiers.contains(.ctrl) ? "Ctrl-" : "") + (modifiers.contains(.alt) ? "Alt-" : "")
                + (modifiers.contains(.shift) ? "Shift-" : "") + of(base)
        }
    }

    /// Names side by side, a space between them, arrows together ("↑↓").
    static func joined(_ names: [String]) -> String {
        var text = ""
        for name in names {
            if let last = text.last, !(arrows.contains(last) && name.first.map(arrows.contains) == true) { text += " " }
            text += name
        }
        return text
    }

    private static let arrows: Set<Character> = ["↑", "↓", "←", "→"]
}

/// Every hint the screen shows, by where it shows.
enum Hints {
    // The status line.
    static let connect = HintLine([
        KeyHint(.password, .submitPassword, says: "connect"), KeyHint(.password, .cancelPassword, says: "cancel"),
    ])
    static let reconnect = HintLine([
        KeyHint(.password, .submitPassword, says: "reconnect"),
        KeyHint(.password, .cancelPassword, says: "stay disconnected"),
    ])
    static let question = HintLine([
        KeyHint(.question, .confirm, says: "yes"), KeyHint(.question, .cancelConfirmation, says: "no"),
    ])
    static let help = HintLine([
        KeyHint(
            .help, .scrollHelp(.rows(-1)), .scrollHelp(.rows(1)), .scrollHelp(.pages(-1)), .scrollHelp(.pages(1)),
            says: "scroll"),
        KeyHint(.help, .closeHelp, says: "close"),
    ])
    static let accounts = HintLine([
        KeyHint(.accounts, .switchAccount, says: "switch"), KeyHint(.accounts, .closeAccounts, says: "close"),
    ])
    static let requests = HintLine([
        KeyHint(
            .requests, .scrollRequests(.rows(-1)), .scrollRequests(.rows(1)), .scrollRequests(.pages(-1)),
            .scrollRequests(.pages(1)), says: "scroll"),
        KeyHint(.requests, .closeRequests, says: "close"),
    ])
    static let lostSaves = HintLine([KeyHint(.lostSaves, .closeLostSaves, says: "close")])
    static let restoreQuestion = HintLine([
        KeyHint(.restoreQuestion, .confirmRestore, says: "yes"), KeyHint(.restoreQuestion, .cancelRestore, says: "no"),
    ])
    static let history = HintLine([
        KeyHint(.history, .moveHistorySelection(by: -1), .moveHistorySelection(by: 1), says: "revision"),
        KeyHint(.history, .requestRestore, says: "restore"), KeyHint(.history, .closeHistory, says: "close"),
    ])
    static let historyReadOnly = HintLine([
        KeyHint(.history, .moveHistorySelection(by: -1), .moveHistorySelection(by: 1), says: "revision"),
        KeyHint(.history, .closeHistory, says: "close"),
    ])
    static let conflictWithMerge = HintLine([
        KeyHint(.conflict, .reload, says: "theirs"), KeyHint(.conflict, .overwrite, says: "yours"),
        KeyHint(.conflict, .editMerge, says: "merge"), KeyHint(.conflict, .keepEditing, says: "keep editing"),
    ])
    static let conflict = HintLine([
        KeyHint(.conflict, .reload, says: "theirs"), KeyHint(.conflict, .overwrite, says: "overwrite"),
        KeyHint(.conflict, .keepEditing, says: "keep editing"),
    ])
    static let editor = HintLine([
        KeyHint(.editor, .nextField, says: "field"), KeyHint(.editor, .save, says: "save"),
        KeyHint(.editor, .closeEditor, says: "close"), KeyHint(.global, .toggleHelp, says: "help"),
    ])
    /// In the notes Enter is a new line: Ctrl-S saves.
    static let notes = HintLine([
        KeyHint(.editor, .nextField, says: "field"), KeyHint(.notes, .edit(.insert("\n")), says: "line"),
        KeyHint(.notes, .save, says: "save"), KeyHint(.editor, .closeEditor, says: "close"),
        KeyHint(.global, .toggleHelp, says: "help"),
    ])
    static let viewer = HintLine([
        KeyHint(.editor, .nextField, says: "field"), KeyHint(.editor, .closeEditor, says: "close"),
        KeyHint(.global, .toggleHelp, says: "help"),
    ])
    static let search = HintLine(searchHints(open: "edit"))
    static let searchReader = HintLine(searchHints(open: "view"))

    private static func searchHints(open: String) -> [KeyHint] {
        [
            KeyHint(.search, .open, says: open), KeyHint(.global, .toggleHelp, says: "help"),
            KeyHint(.global, .toggleAccounts, says: "switch"), KeyHint(.global, .quit, says: "quit"),
        ]
    }

    // The editor pane.
    static let editorPane = HintLine([
        KeyHint(.editor, .nextField, says: "next field"), KeyHint(.editor, .save, says: "save"),
        KeyHint(.editor, .closeEditor, says: "close"),
    ])
    static let notesPane = HintLine([
        KeyHint(.editor, .nextField, says: "next field"), KeyHint(.notes, .edit(.insert("\n")), says: "new line"),
        KeyHint(.notes, .save, says: "save"), KeyHint(.editor, .closeEditor, says: "close"),
    ])
    static let viewerPane = HintLine([
        KeyHint(.editor, .nextField, says: "next field"), KeyHint(.editor, .closeEditor, says: "close"),
    ])
    static let goBack = HintLine([KeyHint(.editor, .closeEditor, says: "to go back")])
    static let keepEditing = HintLine([KeyHint(.conflict, .keepEditing, says: "keep editing")])
    static let conflictBanner = HintLine([
        KeyHint(.conflict, .reload, says: "take theirs"), KeyHint(.conflict, .overwrite, says: "overwrite with yours"),
        KeyHint(.conflict, .keepEditing, says: "keep editing"),
    ])
    static let fieldConflictBanner = HintLine([
        KeyHint(.conflict, .reload, says: "theirs"), KeyHint(.conflict, .overwrite, says: "keep yours"),
        KeyHint(.conflict, .editMerge, says: "edit a merge"), KeyHint(.conflict, .keepEditing, says: "keep editing"),
    ])

    // The history pane and its question.
    static let historyPane = HintLine([
        KeyHint(.history, .moveHistorySelection(by: -1), .moveHistorySelection(by: 1), says: "choose"),
        KeyHint(.history, .requestRestore, says: "restore"), KeyHint(.history, .closeHistory, says: "close"),
    ])
    static let historyPaneReadOnly = HintLine([
        KeyHint(.history, .moveHistorySelection(by: -1), .moveHistorySelection(by: 1), says: "choose"),
        KeyHint(.history, .closeHistory, says: "close"),
    ])
    static let restoreBox = HintLine([
        KeyHint(.restoreQuestion, .confirmRestore, says: "yes, restore"),
        KeyHint(.restoreQuestion, .cancelRestore, says: "no"),
    ])
    static let keptDraftBox = HintLine([
        KeyHint(.restoreQuestion, .confirmRestore, says: "yes, restore"),
        KeyHint(.restoreQuestion, .cancelRestore, says: "no, discard it"),
        KeyHint(.restoreQuestion, .restoreLater, says: "ask me next time"),
    ])

    // Notices about a key that does nothing yet.
    static let chooseFirstWithMerge = HintLine(
        [
            KeyHint(.conflict, .reload, says: "take theirs"), KeyHint(.conflict, .overwrite, says: "keep yours"),
            KeyHint(.conflict, .editMerge, says: "edit a merge"),
            KeyHint(.conflict, .keepEditing, says: "keep editing"),
        ], separator: ", ")
    static let chooseFirst = HintLine(
        [
            KeyHint(.conflict, .reload, says: "take theirs"), KeyHint(.conflict, .overwrite, says: "overwrite"),
            KeyHint(.conflict, .keepEditing, says: "keep editing"),
        ], separator: ", ")
    static let reloadOnlyAfterAConflict = HintLine([
        KeyHint(.conflict, .reload, says: "reloads only after a conflict.")
    ])
    static let overwriteOnlyAfterAConflict = HintLine([
        KeyHint(.conflict, .overwrite, says: "overwrites only after a conflict.")
    ])

    // Keys named inside sentences.
    static let quitWhenTooSmall = HintLine([KeyHint(.tooSmall, .quit, says: "to quit.")])
    static let keepEditingAnswer = HintLine([KeyHint(.question, .cancelConfirmation, says: "to keep editing.")])
    // The bulk editor and its batch.
    static let bulkEditor = HintLine([
        KeyHint(.bulkEditor, .chooseBulkChange(by: -1), .chooseBulkChange(by: 1), says: "change"),
        KeyHint(.bulkEditor, .toggleAllOrNothing, says: "all or nothing"),
        KeyHint(.bulkEditor, .runBulkEdit, says: "save all"), KeyHint(.bulkEditor, .closeBulkEditor, says: "close"),
    ])
    static let batchOutcomes = HintLine([
        KeyHint(.batchOutcomes, .moveBatchSelection(by: -1), .moveBatchSelection(by: 1), says: "book"),
        KeyHint(.batchOutcomes, .openBatchOutcome, says: "open a conflict"),
        KeyHint(.batchOutcomes, .undoBatch, says: "undo"),
        KeyHint(.batchOutcomes, .closeBatchOutcomes, says: "close"),
    ])
    static let batchLine = HintLine([KeyHint(.global, .toggleBatchOutcomes, says: "outcomes")])
    /// "Insert mark, F7 mark every match": in the notice of a bulk edit with nothing marked.
    static let markingKeys =
        HintLine(
            [
                KeyHint(.search, .toggleMark, says: "marks a book"),
                KeyHint(.search, .markEveryMatch, says: "every match"),
            ],
            separator: ", "
        ).text

    static let openAccounts = KeyHint(.global, .toggleAccounts, says: "switch")
    static let chooseAccount = KeyHint(.accounts, .switchAccount, says: "switch")
    /// "F2, then Enter on": how a lost connection is signed in again.
    static let reconnectSteps = "\(openAccounts.keys() ?? ""), then \(chooseAccount.keys() ?? "") on"
    static let inSentences = [openAccounts, chooseAccount]

    // The question about unsaved changes, in its box or on a screen too small for more.
    static let discardAnswers = HintLine([
        KeyHint(.question, .confirm, says: "yes, discard"),
        KeyHint(.question, .cancelConfirmation, says: "no, keep editing"),
    ])
    static let afterSaveAnswers = HintLine([
        KeyHint(.question, .confirm, says: "yes, once it has gone through"),
        KeyHint(.question, .cancelConfirmation, says: "no, keep editing"),
    ])

    static let all: [HintLine] = [
        connect, reconnect, question, help, accounts, restoreQuestion, history, historyReadOnly, conflictWithMerge,
        conflict, editor, notes, viewer, search, searchReader, editorPane, notesPane, viewerPane, goBack, keepEditing,
        conflictBanner, fieldConflictBanner, historyPane, historyPaneReadOnly, restoreBox, keptDraftBox,
        quitWhenTooSmall,
        keepEditingAnswer,
        chooseFirstWithMerge, chooseFirst, reloadOnlyAfterAConflict, overwriteOnlyAfterAConflict, discardAnswers,
        afterSaveAnswers, bulkEditor, batchOutcomes, batchLine,
    ]
}
