import BookshelfModel
@testable import BookshelfUI
import Testing
import TerminalUI

/// The hints on the screen name keys from the keymap: each key a hint names is one its layer
/// binds to that action, so renaming a binding renames the hint.
@Suite struct KeyHintTests {
    @Test func everyHintNamesAKeyItsLayerBindsToItsAction() {
        var checked = 0
        for hints in Hints.all.map(\.hints) + [Hints.inSentences] {
            for hint in hints {
                #expect(hint.keys() != nil, "\(hint.layer) binds no key to \(hint.actions) (\(hint.says))")
                for action in hint.actions {
                    let bound = Keymap.bindings.contains {
                        $0.layer == hint.layer && $0.action == action && !$0.keys.isEmpty
                    }
                    #expect(bound, "\(hint.layer) does not bind \(action)")
                }
                checked += 1
            }
        }
        print("KeyHintTests: \(checked) hints in \(Hints.all.count) lines checked against the keymap")
        #expect(checked >= Hints.all.count)
    }

    @Test func aHintNamesTheFirstKeyOfItsBinding() {
        #expect(KeyHint(.editor, .save, says: "save").text() == "Enter save", "Enter, then Ctrl-S")
        #expect(KeyHint(.global, .quit, says: "quit").text() == "Ctrl-Q quit", "Ctrl-Q, then Ctrl-C")
        #expect(KeyHint(.history, .closeHistory, says: "close").text() == "Esc close", "Esc, then F3 and Ctrl-Y")
        #expect(KeyHint(.help, .closeHelp, says: "close").text() == "other keys close")
        #expect(
            KeyHint(
                .help, .scrollHelp(.rows(-1)), .scrollHelp(.rows(1)), .scrollHelp(.pages(-1)),
                .scrollHelp(.pages(1)), says: "scroll"
            ).text() == "↑↓ PgUp PgDn scroll")
    }

    @Test func renamingABindingRenamesItsHint() {
        // The keymap with saving moved from Enter to Ctrl-S alone.
        let renamed = Keymap.bindings.map { binding in
            binding.layer == .editor && binding.action == .save
                ? Keymap.Binding(.editor, [Key.ctrl("s")], .save) : binding
        }
        #expect(KeyHint(.editor, .save, says: "save").text(in: renamed) == "Ctrl-S save")
        let unbound = Keymap.bindings.filter { !($0.layer == .editor && $0.action == .save) }
        #expect(KeyHint(.editor, .save, says: "save").text(in: unbound) == nil, "no key, no hint")
        #expect(KeyHint(.search, .save, says: "save").text() == nil, "the search does not save")
    }

    /// Texts no screen test shows whole, as they were written by hand before.
    @Test func hintsInSentencesReadAsBefore() {
        #expect(
            Hints.chooseFirstWithMerge.text
                == "Ctrl-R take theirs, Ctrl-O keep yours, Ctrl-E edit a merge, Esc keep editing")
        #expect(Hints.chooseFirst.text == "Ctrl-R take theirs, Ctrl-O overwrite, Esc keep editing")
        #expect(Hints.keepEditingAnswer.text == "n to keep editing.")
        #expect(Hints.afterSaveAnswers.text == "y yes, once it has gone through · n no, keep editing")
        #expect(Hints.reconnectSteps == "F2, then Enter on")
        #expect(Hints.reconnect.text == "Enter reconnect · Esc stay disconnected")
        #expect(Hints.historyReadOnly.text == "↑↓ revision · Esc close")
        #expect(Hints.historyPaneReadOnly.text == "↑↓ choose · Esc close")
        #expect(Hints.goBack.text == "Esc to go back")
        #expect(Hints.keepEditing.text == "Esc keep editing")
    }

    @Test func keysAreNamedAsTheHelpNamesThem() {
        #expect(KeyName.of(Key.ctrl("r")) == "Ctrl-R")
        #expect(KeyName.of(Key.function(3)) == "F3")
        #expect(KeyName.of(Key.modified(.left, .ctrl)) == "Ctrl-←")
        #expect(KeyName.of(Key.modified(.character("b"), .alt)) == "Alt-b")
        #expect(KeyName.joined(["↑", "↓", "PgUp", "PgDn"]) == "↑↓ PgUp PgDn")
    }
}
