import BookCatalog
import BookshelfModel
import Foundation
@testable import BookshelfUI
import Testing
import TerminalUI

/// The keymap is what the keys do: every binding, pressed in its layer, does its action, and
/// every key the help names is bound where the help says.
@MainActor
@Suite struct KeymapTests {
    @Test func everyBindingDoesItsActionInItsLayer() async throws {
        var pressed = 0
        for binding in Keymap.bindings {
            for pattern in binding.keys {
                for key in Self.samples(of: pattern, in: binding.layer) {
                    try await check(binding.action, key: key, in: binding.layer)
                    pressed += 1
                }
            }
        }
        #expect(pressed > Keymap.bindings.count)
        print("KeymapTests: pressed \(pressed) keys for \(Keymap.bindings.count) bindings")
    }

    @Test func noKeyIsBoundTwiceInOneLayer() {
        var seen: [String: KeyAction] = [:]
        for binding in Keymap.bindings {
            for case let .key(key) in binding.keys {
                let name = "\(binding.layer) \(key)"
                #expect(
                    seen[name] == nil,
                    "\(name) is bound to \(seen[name].map { "\($0)" } ?? "") and \(binding.action)")
                seen[name] = binding.action
            }
        }
    }

    /// The keys column of each help row names keys that row's bindings answer to.
    @Test func theKeysEachHelpRowNamesAreBoundInIt() {
        var named = 0
        for entry in Keymap.sections.flatMap(\.entries) {
            let bound = Set(
                entry.bindings.flatMap(\.keys).compactMap { pattern -> Key? in
                    if case let .key(key) = pattern { key } else { nil }
                })
            for word in entry.keys.split(separator: " ") {
                let name = word.trimmingCharacters(in: CharacterSet(charactersIn: "(),"))
                guard let key = Self.key(named: name) else { continue }
                #expect(
                    bound.contains(key),
                    "the help row \"\(entry.keys)\" names \(word), which none of its bindings takes")
                named += 1
            }
        }
        #expect(named >= 40, "the help names \(named) keys")
    }

    /// The key a help text names ("Ctrl-B", "F3", "PgUp", "?"), nil for words that name none ("typing").
    static func key(named name: String) -> Key? {
        let names: [String: Key] = [
            "Left": .left, "Right": .right, "Up": .up, "Down": .down, "Home": .home, "End": .end,
            "PgUp": .pageUp, "PgDn": .pageDown, "Backspace": .backspace, "Delete": .delete, "Enter": .enter,
            "Esc": .escape, "Tab": .tab, "Shift-Tab": .backTab,
            "?": .character("?"), "y": .character("y"), "n": .character("n"),
        ]
        if let key = names[name] { return key }
        for (prefix, modifier) in [("Ctrl-", KeyModifiers.ctrl), ("Alt-", .alt)] where name.hasPrefix(prefix) {
            let rest = String(name.dropFirst(prefix.count))
            let base = rest.count == 1 ? Key.character(Character(rest.lowercased())) : names[rest]
            guard let base else { return nil }
            if modifier == .ctrl, case let .character(letter) = base { return .ctrl(letter) }
            return .modified(base, modifier)
        }
        if name.hasPrefix("F"), let number = Int(name.dropFirst()) { return .function(number) }
        return nil
    }

    /// The stack is the order the help describes: questions first, the search last.
    @Test func theInputStackGoesFromQuestionsToTheSearch() {
        #expect(
            InputLayer.stack == [
                .question, .tooSmall, .password, .restoreQuestion, .global, .help, .accounts, .requests, .lostSaves,
                .bulkEditor, .batchOutcomes, .conflict, .notes, .editor, .history, .search,
            ])
        #expect(InputLayer.stack.filter { !$0.isModal } == [.global, .conflict, .notes])
    }

    /// Keys a modal layer has no binding for stop there: nothing behind it acts on them.
    @Test func aModalLayerKeepsTheKeysItDoesNotBind() async throws {
        // None of them is a global key (F1, F2, Ctrl-T, Ctrl-Q, Ctrl-C).
        let pool: [Key] = [
            .character("x"), .character("?"), .enter, .escape, .tab, .up, .down, .pageDown, .home, .insert,
            .function(3), .function(5), .ctrl("y"), .ctrl("g"), .ctrl("e"), .paste("x"),
            .mouse(MouseEvent(.click, row: 5, column: 4)),
            .mouse(MouseEvent(.wheelDown, row: 5, column: 4)),
        ]
        var pressed = 0
        let modal: [InputLayer] = [
            .question, .tooSmall, .password, .restoreQuestion, .help, .accounts, .requests, .lostSaves, .editor,
            .history, .bulkEditor, .batchOutcomes,
        ]
        for layer in modal {
            let harness = try await Self.scenario(for: layer)
            for key in pool where Keymap.actions(for: key, in: layer).isEmpty {
                let (state, ui) = (harness.model.state, harness.app.ui)
                await harness.press(key)
                #expect(harness.model.state == state && harness.app.ui == ui, "\(key) in \(layer) acted")
                pressed += 1
            }
        }
        #expect(pressed > 50)
        print("KeymapTests: \(pressed) unbound keys pressed in modal layers")
    }

    static func scenario(for layer: InputLayer) async throws -> AppHarness {
        switch layer {
        case .question: return try await askingBeforeQuitting()
        case .tooSmall:
            let harness = try await thirtyBooks()
            harness.resize(columns: 30, rows: 8)
            return harness
        case .password: return try await typingBobsPassword()
        case .restoreQuestion:
            let harness = try await inTheHistory()
            await harness.press(.down, .enter)
            try #require(harness.model.state.history?.restoreQuestion == 2)
            return harness
        case .help, .accounts, .requests, .lostSaves:
            let harness = try await thirtyBooks()
            let keys: [InputLayer: Key] = [.help: .function(1), .accounts: .function(2), .lostSaves: .function(6)]
            await harness.press(keys[layer] ?? .function(4))
            return harness
        case .editor:
            // Beside the list, which a key the editor does not take would move.
            let harness = try await thirtyBooks(columns: 140)
            await harness.press(.enter)
            try #require(harness.model.state.editor?.isLoaded == true)
            return harness
        case .history: return try await inTheHistory()
        case .notes: return try await editingNotes()
        case .bulkEditor: return try await bulkEditing()
        case .batchOutcomes: return try await walkingABatch()
        case .search, .global, .conflict: return try await thirtyBooks()
        }
    }

    // MARK: Keys to press

    /// The keys `pattern` stands for: the key, or samples of its family.
    static func samples(of pattern: KeyPattern, in layer: InputLayer) -> [Key] {
        switch pattern {
        case let .key(key): [key]
        case .anyCharacter: [.character("x"), .character("é")]
        case .paste: [layer == .password ? .paste("cd\r\n") : .paste("a\tb\nc")]
        // The third row of the list (a screen of 80 columns: the list starts at row 3).
        case let .mouse(action): [.mouse(MouseEvent(action, row: 5, column: 4))]
        case .anyOtherKey:
            [.character("x"), .enter, .function(3), .ctrl("s"), .mouse(MouseEvent(.click, row: 5, column: 4))]
        }
    }

    // MARK: Each action, from a scenario where it shows

    func check(_ action: KeyAction, key: Key, in layer: InputLayer) async throws {
        let what = "\(action) by \(key) in \(layer)"
        switch action {
        case .confirm, .cancelConfirmation:
            let harness = try await Self.askingBeforeQuitting()
            await harness.press(key)
            if action == .confirm {
                #expect(harness.quitCount == 1, "\(what)")
            } else {
                #expect(harness.quitCount == 0 && harness.model.state.confirmation == nil, "\(what)")
                #expect(harness.model.state.editor?.isDirty == true, "\(what): the draft stays")
            }

        case .quit where layer == .tooSmall:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            harness.resize(columns: 30, rows: 8)
            await harness.press(key)
            #expect(harness.quitCount == 1, "\(what)")
        case .quit:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.press(.function(1))
            await harness.press(key)
            #expect(harness.quitCount == 1 && harness.app.ui.overlay == nil, "\(what)")
        case .toggleHelp, .toggleAccounts, .toggleRequests, .toggleLostSaves:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.press(key)
            let opened: UIState.Overlay =
                switch action {
                case .toggleHelp: .help(scroll: 0)
                case .toggleAccounts: .accounts(highlighted: nil)
                case .toggleLostSaves: .lostSaves
                default: .requests(scroll: 0)
                }
            #expect(harness.app.ui.overlay == opened, "\(what)")
            await harness.press(key)
            #expect(harness.app.ui.overlay == nil, "\(what), twice")

        case .typePassword, .pastePassword, .erasePasswordCharacter, .clearPassword, .submitPassword, .cancelPassword:
            let harness = try await Self.typingBobsPassword()
            await harness.press(key)
            let count = harness.app.ui.password.count
            switch action {
            case .typePassword: #expect(count == 3, "\(what)")
            case .pastePassword: #expect(count == 4, "\(what): the line break is not part of it")
            case .erasePasswordCharacter: #expect(count == 1, "\(what)")
            case .clearPassword: #expect(count == 0 && harness.model.state.passwordPrompt != nil, "\(what)")
            case .submitPassword: #expect(harness.model.state.account == "bob" && count == 0, "\(what)")
            default:
                #expect(harness.model.state.passwordPrompt == nil && count == 0, "\(what)")
                #expect(harness.model.state.account == "alice", "\(what)")
            }

        case let .scrollHelp(step), let .scrollRequests(step):
            let harness = AppHarness(columns: 44, rows: 12)
            await harness.start()
            let limit: Int
            if case .scrollHelp = action {
                await harness.press(.function(1))
                limit = Overlays.helpMaximumScroll(columns: 44, rows: 12)
            } else {
                // A search a key: more requests than the panel has rows.
                await harness.type("abcdefghijklmnopqrstuvwxyzabcd")
                await harness.press(.function(4))
                limit = RequestPanel.maximumScroll(harness.model.log.entries, columns: 44, rows: 12)
            }
            try #require(limit >= 20, "the overlay has room to scroll")
            // Start from line 10, then one line is 1, a wheel step 3 and a page 12 - 4 rows.
            for _ in 0..<10 { await harness.press(.down) }
            await harness.press(key)
            let expected =
                switch step {
                case let .rows(rows): 10 + rows
                case let .pages(pages): 10 + pages * 8
                }
            let scrolled: UIState.Overlay =
                if case .scrollHelp = action { .help(scroll: expected) } else { .requests(scroll: expected) }
            #expect(harness.app.ui.overlay == scrolled, "\(what)")
        case .closeHelp, .closeRequests, .closeLostSaves:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.press(
                action == .closeHelp ? .function(1) : action == .closeLostSaves ? .function(6) : .function(4))
            await harness.press(key)
            #expect(harness.app.ui.overlay == nil, "\(what)")
            #expect(
                harness.model.state.search.query == "" && harness.model.state.editor == nil
                    && harness.model.state.history == nil, "\(what): nothing behind the help acts on it")

        case let .moveAccountSelection(delta):
            let harness = AppHarness(
                columns: 80, rows: 12,
                accounts: ["alice", "bob", "carol"].map {
                    Account(name: $0, role: .editor, scope: "main")
                })
            await harness.start()
            await harness.press(.function(2), .down)
            await harness.press(key)
            #expect(
                harness.app.ui.overlay == .accounts(highlighted: .account(["alice", "bob", "carol"][1 + delta])),
                "\(what)")
        case .switchAccount, .closeAccounts:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.press(.function(2), .down)
            await harness.press(key)
            #expect(harness.app.ui.overlay == nil, "\(what)")
            #expect(harness.model.state.account == (action == .switchAccount ? "bob" : "alice"), "\(what)")

        case .reload, .overwrite, .editMerge, .keepEditing, .chooseFirst:
            let harness = try await Self.inAConflict()
            await harness.press(key)
            let editor = try #require(harness.model.state.editor, "\(what)")
            let mine = "History of Rome, Vol. 1"
            switch action {
            case .reload:
                #expect(
                    editor.conflict == nil && editor.draft == BookDraft(title: "Rome", author: "T. Mommsen")
                        && editor.base?.revision == 2, "\(what)")
            case .overwrite:
                #expect(editor.outcome == .saved(revision: 3), "\(what)")
                #expect(try await harness.otherEditor().load(id: 2).title == mine, "\(what)")
            case .editMerge:
                #expect(
                    editor.conflict == nil && editor.draft == BookDraft(title: mine, author: "T. Mommsen")
                        && editor.base?.revision == 2, "\(what)")
            case .keepEditing:
                #expect(editor.conflict == nil && editor.draft.title == mine && editor.base?.revision == 1, "\(what)")
            default:
                #expect(editor.conflict != nil, "\(what)")
                #expect(harness.app.ui.notice?.text.hasPrefix("Choose first: ") == true, "\(what)")
                #expect(try await harness.otherEditor().load(id: 2).revision == 2, "\(what): nothing saved")
            }

        case .explainReload, .explainOverwrite:
            let harness = try await Self.editingOneLine()
            await harness.press(key)
            #expect(
                harness.app.ui.notice?.text
                    == (action == .explainReload
                        ? "Ctrl-R reloads only after a conflict."
                        : "Ctrl-O overwrites only after a conflict."),
                "\(what)")
            #expect(harness.model.state.editor?.draft.title == Self.line, "\(what)")
        case .closeEditor:
            let harness = try await Self.editingOneLine()
            await harness.press(key)
            #expect(harness.model.state.editor == nil, "\(what)")
        case .save where layer == .notes:
            let harness = try await Self.editingNotes()
            await harness.press(key)
            #expect(harness.model.state.editor?.outcome == .saved(revision: 2), "\(what)")
            #expect(harness.model.state.editor?.draft.notes == Self.notes, "\(what): no new line")
        case .save:
            let harness = try await Self.editingOneLine()
            await harness.type("!")
            await harness.press(key)
            #expect(harness.model.state.editor?.outcome == .saved(revision: 2), "\(what)")
            #expect(try await harness.otherEditor().load(id: 1).title == "one two-th!ree four", "\(what)")
        case .nextField:
            let harness = try await Self.editingOneLine()
            await harness.press(key)
            #expect(harness.model.state.editor?.focus == .author, "\(what)")
        case .previousField:
            // Before the first field comes the last: the notes.
            let harness = try await Self.editingOneLine()
            await harness.press(key)
            #expect(harness.model.state.editor?.focus == .notes, "\(what)")

        case .paste where layer == .notes, .edit where layer == .notes:
            let harness = try await Self.editingNotes()
            await harness.press(key)
            let (text, cursor) = Self.notesAfter(action, key: key)
            let notes = harness.model.state.editor?.lines[.notes]
            #expect(notes?.text == text && notes?.cursor == cursor, "\(what)")
            #expect(harness.model.state.editor?.outcome == nil, "\(what): nothing saved")

        case .type, .paste, .edit:
            let (text, cursor) = Self.lineAfter(action, key: key)
            if layer == .bulkEditor {
                let harness = try await Self.bulkEditingOneLine()
                await harness.press(key)
                let value = harness.model.state.bulk.editor?.value
                #expect(value?.text == text && value?.cursor == cursor, "\(what)")
                #expect(harness.model.state.search.query == "", "\(what): the search is not edited")
            } else if layer == .editor {
                let harness = try await Self.editingOneLine()
                await harness.press(key)
                #expect(harness.model.state.editor?.draft.title == text, "\(what)")
                #expect(harness.model.state.editor?.lines.title.cursor == cursor, "\(what)")
                #expect(harness.model.state.search.query == "", "\(what): the search is not edited")
            } else {
                let harness = try await Self.searchingOneLine()
                await harness.press(key)
                let search = harness.model.state.search
                #expect(search.query == text && search.line.cursor == cursor, "\(what)")
            }

        case .moveHistorySelection, .requestRestore, .closeHistory:
            let harness = try await Self.inTheHistory()
            await harness.press(.down)
            await harness.press(key)
            let history = harness.model.state.history
            switch action {
            case let .moveHistorySelection(delta): #expect(history?.selection == 1 + delta, "\(what)")
            case .requestRestore: #expect(history?.restoreQuestion == 2, "\(what): revision 2 is the second newest")
            default: #expect(history == nil, "\(what)")
            }
        case .confirmRestore, .cancelRestore, .restoreLater:
            let harness = try await Self.inTheHistory()
            await harness.press(.down, .enter)
            await harness.press(key)
            if action == .confirmRestore {
                #expect(harness.model.state.history == nil, "\(what)")
                #expect(harness.model.state.editor?.outcome == .saved(revision: 4), "\(what)")
                #expect(
                    try await harness.otherEditor().load(id: 2)
                        == BookRecord(id: 2, title: "History of Rome", revision: 4, author: "T. Mommsen"), "\(what)")
            } else {
                let history = harness.model.state.history
                #expect(history != nil && history?.restoreQuestion == nil && history?.selection == 1, "\(what)")
                #expect(try await harness.otherEditor().load(id: 2).revision == 3, "\(what): nothing saved")
            }

        case .helpFromEmptySearch:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.press(key)
            #expect(harness.app.ui.overlay == .help(scroll: 0) && harness.model.state.search.query == "", "\(what)")
            await harness.press(.escape)
            await harness.type("x")
            await harness.press(key)
            #expect(
                harness.app.ui.overlay == nil && harness.model.state.search.query == "x?",
                "\(what): in a search that is not empty it is typed")
        case .clearSearch:
            let harness = AppHarness(columns: 80, rows: 12)
            await harness.start()
            await harness.type("rome")
            await harness.press(key)
            #expect(harness.model.state.search.query == "" && harness.model.state.search.line.text == "", "\(what)")
        case let .moveSelection(step):
            let harness = try await Self.thirtyBooks()
            // From the third page's first row on a list of 8 rows.
            for _ in 0..<2 { await harness.press(.pageDown) }
            await harness.press(key)
            let expected =
                switch step {
                case let .rows(rows): 16 + rows
                case let .pages(pages): 16 + pages * 8
                }
            #expect(harness.model.state.search.selection == expected, "\(what)")
        case let .scrollList(delta):
            let harness = try await Self.thirtyBooks()
            harness.app.handle(.key(.mouse(MouseEvent(.wheelDown, row: 5, column: 4))))
            harness.app.handle(.key(.mouse(MouseEvent(.wheelDown, row: 5, column: 4))))
            await harness.press(key)
            // From rows 6...13 shown and row 6 selected: the view moves by 3 rows, and the
            // selection only as far as it must to stay in view.
            #expect(harness.model.state.search.listTop == 6 + delta, "\(what)")
            #expect(harness.model.state.search.selection == max(6, 6 + delta), "\(what)")
        case .click:
            let harness = try await Self.thirtyBooks()
            let third = harness.model.state.search.rows[2].id
            await harness.press(key)
            #expect(harness.model.state.search.selection == 2 && harness.model.state.editor == nil, "\(what)")
            await harness.press(key)
            #expect(harness.model.state.editor?.bookID == third, "\(what), twice: it opens")
        case .open, .openHistory:
            let harness = try await Self.thirtyBooks()
            await harness.press(.down)
            let second = harness.model.state.search.rows[1].id
            await harness.press(key)
            if action == .open {
                #expect(harness.model.state.editor?.bookID == second, "\(what)")
            } else {
                let history = harness.model.state.history
                #expect(history?.bookID == second && history?.revisions != nil, "\(what)")
            }

        case .toggleMark:
            let harness = try await Self.thirtyBooks()
            let first = harness.model.state.search.rows[0].id
            await harness.press(key)
            #expect(harness.model.state.bulk.marked == [first], "\(what)")
            await harness.press(key)
            #expect(harness.model.state.bulk.marked.isEmpty, "\(what), twice: unmarked")
        case .markEveryMatch:
            // Pages of 10: the rows loaded are fewer than the matches, and every match is marked.
            let harness = AppHarness(
                columns: 80, rows: 12, books: (1...30).map { (String(format: "Book %02d", $0), "Author \($0)") },
                pageSize: 10)
            await harness.start()
            await harness.type("book 1")
            try #require(harness.model.state.search.total == 11)
            try #require(harness.model.state.search.rows.count == 10)
            await harness.press(key)
            // "Book 01" and "Book 10"..."Book 19", added first to nineteenth: ids 1 and 10...19.
            #expect(harness.model.state.bulk.marked == Set([1] + Array(10...19)), "\(what)")
        case .clearMarks:
            let harness = try await Self.thirtyBooks()
            await harness.press(.function(7))
            try #require(harness.model.state.bulk.markedCount == 30)
            await harness.press(key)
            #expect(harness.model.state.bulk.marked.isEmpty, "\(what)")
        case .openBulkEditor:
            let harness = try await Self.thirtyBooks()
            await harness.press(key)
            #expect(harness.model.state.bulk.editor == nil, "\(what): nothing marked, nothing opens")
            await harness.press(.insert, key)
            let editor = harness.model.state.bulk.editor
            #expect(editor?.markedBooks == 1 && editor?.isReading == false, "\(what)")
        case let .chooseBulkChange(delta):
            let harness = try await Self.bulkEditing()
            await harness.press(.down)
            await harness.press(key)
            #expect(harness.model.state.bulk.editor?.kind == BulkChangeKind.allCases[1 + delta], "\(what)")
        case .switchBulkFocus:
            let harness = try await Self.bulkEditing()
            await harness.press(key)
            #expect(harness.model.state.bulk.editor?.focus == .value, "\(what): a value alone keeps the cursor")
            for _ in 0..<BulkChangeKind.allCases.count { await harness.press(.down) }
            await harness.press(key)
            #expect(harness.model.state.bulk.editor?.kind == .replace(.notes), "\(what)")
            #expect(harness.model.state.bulk.editor?.focus == .replacement, "\(what)")
        case .toggleAllOrNothing:
            let harness = try await Self.bulkEditing()
            await harness.press(key)
            #expect(harness.model.state.bulk.editor?.allOrNothing == true, "\(what)")
        case .runBulkEdit:
            let harness = try await Self.bulkEditing()
            await harness.type("Ann Other")
            await harness.press(key)
            let batch = harness.model.state.bulk.batch
            #expect(batch?.isRunning == false && batch?.counts.saved == 1, "\(what)")
            #expect(try await harness.otherEditor().load(id: 1).author == "Ann Other", "\(what)")
        case .closeBulkEditor:
            let harness = try await Self.bulkEditing()
            await harness.press(key)
            #expect(harness.model.state.bulk.editor == nil && harness.model.state.bulk.markedCount == 1, "\(what)")
        case .toggleBatchOutcomes:
            let harness = try await Self.walkingABatch()
            await harness.press(key)
            #expect(harness.model.state.bulk.batch?.isListOpen == false, "\(what)")
            await harness.press(key)
            #expect(harness.model.state.bulk.batch?.isListOpen == true, "\(what), twice")
        case let .moveBatchSelection(delta):
            let harness = try await Self.walkingABatch()
            await harness.press(.down)
            await harness.press(key)
            #expect(harness.model.state.bulk.batch?.selection == 1 + delta, "\(what)")
        case .openBatchOutcome:
            let harness = try await Self.walkingABatch()
            await harness.press(key)
            #expect(harness.model.state.editor?.bookID == 1, "\(what)")
            #expect(harness.model.state.bulk.batch?.isListOpen == false, "\(what): the list gives way")
        case .undoBatch:
            let harness = try await Self.walkingABatch()
            await harness.press(key)
            let undo = harness.model.state.bulk.batch
            #expect(undo?.isRunning == false && undo?.counts.saved == 3, "\(what): \(String(describing: undo))")
            #expect(
                undo?.headline.hasPrefix("Batch 2, undo of batch 1: 3 saved") == true,
                "\(what): \(String(describing: undo))")
            for id in 1...3 { #expect(try await harness.otherEditor().load(id: id).author != "Ann Other", "\(what)") }
            // The undo is a batch of its own, which can be undone in turn.
            await harness.press(key)
            #expect(
                harness.model.state.bulk.batch?.headline.hasPrefix("Batch 3, undo of batch 2: 3 saved") == true,
                "\(what)")
            for id in 1...3 { #expect(try await harness.otherEditor().load(id: id).author == "Ann Other", "\(what)") }
        case .closeBatchOutcomes:
            let harness = try await Self.walkingABatch()
            await harness.press(key)
            #expect(harness.model.state.bulk.batch?.isListOpen == false, "\(what)")
        }
    }

    /// The bulk editor open over the first book (marked), read.
    static func bulkEditing() async throws -> AppHarness {
        let harness = try await thirtyBooks()
        await harness.press(.insert, .function(8))
        try #require(harness.model.state.bulk.editor?.isReading == false)
        return harness
    }

    /// The bulk editor's value is `line`, the cursor at `cursor`.
    static func bulkEditingOneLine() async throws -> AppHarness {
        let harness = try await bulkEditing()
        await harness.type(line)
        await harness.press(.home)
        for _ in 0..<cursor { await harness.press(.right) }
        try #require(harness.model.state.bulk.editor?.value == LineEditor(line, cursor: cursor))
        return harness
    }

    /// The first three books got a new author in a batch; its outcome list is open.
    static func walkingABatch() async throws -> AppHarness {
        let harness = try await thirtyBooks()
        await harness.press(.insert, .down, .insert, .down, .insert, .function(8))
        await harness.type("Ann Other")
        await harness.press(.enter)
        try #require(harness.model.state.bulk.batch?.counts.saved == 3)
        await harness.press(.function(9))
        try #require(harness.model.state.bulk.batch?.isListOpen == true)
        return harness
    }

    // MARK: Scenarios

    /// A line whose every readline edit leaves something different: the cursor sits inside
    /// "three", two letters from each end of the word, after a word joined by a hyphen.
    static let line = "one two-three four"
    static let cursor = 10

    /// What `line` becomes, with the cursor at `cursor`, after `action` for `key`.
    static func lineAfter(_ action: KeyAction, key: Key) -> (text: String, cursor: Int) {
        switch action {
        case .type:
            guard case let .character(character) = key else { return ("", 0) }
            return ("one two-th\(character)ree four", 11)
        case .paste: return ("one two-tha b cree four", 15)
        case let .edit(edit):
            switch edit {
            case .insert: return ("", 0)
            case .backspace: return ("one two-tree four", 9)
            case .deleteForward: return ("one two-thee four", 10)
            case .left: return (line, 9)
            case .right: return (line, 11)
            case .home: return (line, 0)
            case .end: return (line, 18)
            case .deleteToStart: return ("ree four", 0)
            case .deleteToEnd: return ("one two-th", 10)
            case .deleteWordBackward: return ("one ree four", 4)
            case .wordLeft: return (line, 8)
            case .wordRight: return (line, 13)
            case .deleteWordForward: return ("one two-th four", 10)
            case .deleteAlphanumericWordBackward: return ("one two-ree four", 8)
            case .lineUp, .lineDown: return (line, cursor)
            }
        default: return ("", 0)
        }
    }

    /// The notes: `line` between two others, the cursor at `cursor` in it.
    static let notes = "first line\n" + line + "\nlast"

    /// What `notes` becomes, with the cursor 10 characters into its second line, after
    /// `action` for `key` in the notes.
    static func notesAfter(_ action: KeyAction, key: Key) -> (text: String, cursor: Int) {
        switch action {
        // The pasted "a\tb\nc" keeps its line break.
        case .paste: ("first line\none two-tha b\ncree four\nlast", 11 + 15)
        case .edit(.insert("\n")): ("first line\none two-th\nree four\nlast", 11 + 11)
        // Column 10 of the first line is its end; the last line is shorter, so its end.
        case .edit(.lineUp): (notes, 10)
        case .edit(.lineDown): (notes, 11 + 19 + 4)
        default: ("", 0)
        }
    }

    /// The editor is open on a book whose notes (typed: Enter is a new line there) are
    /// `notes`, the cursor 10 characters into the second line.
    static func editingNotes() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 24, books: [("Notes", "Ann Author")])
        await harness.start()
        await harness.press(.enter, .backTab)
        await harness.type("first line")
        await harness.press(.enter)
        await harness.type(line)
        await harness.press(.enter)
        await harness.type("last")
        await harness.press(.up, .home)
        for _ in 0..<cursor { await harness.press(.right) }
        let editor = harness.model.state.editor
        try #require(editor?.focus == .notes && editor?.draft.notes == notes && editor?.lines[.notes].cursor == 21)
        return harness
    }

    /// The search line holds `line`, the cursor at `cursor`.
    static func searchingOneLine() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.type(line)
        await harness.press(.home)
        for _ in 0..<cursor { await harness.press(.right) }
        try #require(harness.model.state.search.line.cursor == cursor && harness.model.state.search.query == line)
        return harness
    }

    /// The editor is open on a book titled `line`, the cursor at `cursor` in the title.
    static func editingOneLine() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 12, books: [(line, "Ann Author")])
        await harness.start()
        await harness.press(.enter)
        for _ in cursor..<line.count { await harness.press(.left) }
        let editor = harness.model.state.editor
        try #require(editor?.draft.title == line && editor?.lines.title.cursor == cursor)
        return harness
    }

    /// Thirty books on a list of 8 rows from screen row 3, the first selected.
    static func thirtyBooks(columns: Int = 80) async throws -> AppHarness {
        let books = (1...30).map { (String(format: "Book %02d", $0), "Author \($0)") }
        let harness = AppHarness(columns: columns, rows: 12, books: books)
        await harness.start()
        try #require(
            harness.model.state.search.rows.count == 30 && harness.app.layout.list.y == 3
                && harness.app.layout.list.height == 8)
        try #require(harness.model.state.search.selection == 0)
        return harness
    }

    /// An unsaved draft, and Ctrl-Q asked about it.
    static func askingBeforeQuitting() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 12)
        await harness.start()
        await harness.press(.enter)
        await harness.type("!")
        await harness.press(.ctrl("q"))
        try #require(harness.model.state.confirmation?.action == .quit)
        return harness
    }

    /// The password prompt for bob (whose password is "ab"), "ab" typed.
    static func typingBobsPassword() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 12, passwords: ["bob": "ab"])
        await harness.start()
        await harness.press(.function(2), .down, .enter)
        await harness.type("ab")
        try #require(harness.model.state.passwordPrompt?.account == "bob" && harness.app.ui.password.count == 2)
        return harness
    }

    /// Alice saved "History of Rome, Vol. 1" over revision 1 after bob saved revision 2
    /// ("Rome" by "T. Mommsen"): both changed the title, so a merge waits to be edited.
    static func inAConflict() async throws -> AppHarness {
        let harness = AppHarness(columns: 80, rows: 16)
        await harness.start()
        await harness.type("mommsen")
        await harness.press(.enter)
        let theirs = SaveRequest(id: 2, title: "Rome", author: "T. Mommsen", expectedRevision: 1)
        _ = try await harness.otherEditor().save(theirs)
        await harness.type(", Vol. 1")
        await harness.press(.enter)
        let conflict = try #require(harness.model.state.editor?.conflict)
        try #require(conflict.theirs?.revision == 2 && conflict.merged != nil)
        return harness
    }

    /// The history of Mommsen's book, newest first: revision 3 (bob's title), 2 (bob's
    /// author, "T. Mommsen"), 1.
    static func inTheHistory() async throws -> AppHarness {
        let harness = try await AppHarness.mommsenWithHistory()
        try #require(harness.model.state.history?.revisions?.map(\.revision) == [3, 2, 1])
        return harness
    }
}
