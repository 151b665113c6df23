import Foundation

/// Every key the app understands, grouped as the help overlay shows them. The overlay and
/// the README's key table are written from this one list (a test compares the README with
/// `markdownTable()`), so they cannot disagree with each other.
public enum KeyHelp {
    public struct Entry: Equatable, Sendable {
        public let keys: String
        /// What the overlay says: short enough for a help box.
        public let action: String
        /// What the README says, where it explains more than the overlay has room for.
        public let documentation: String

        init(keys: String, action: String, documentation: String? = nil) {
            self.keys = keys
            self.action = action
            self.documentation = documentation ?? action
        }
    }

    public struct Section: Equatable, Sendable {
        public let title: String
        public let entries: [Entry]
    }

    public static let sections: [Section] = [
        Section(title: "Searching", entries: [
            Entry(keys: "typing", action: "edit the search; results follow as you type"),
            Entry(keys: "Left Right Ctrl-B Ctrl-F", action: "move the cursor in the search line"),
            Entry(keys: "Home End Ctrl-A Ctrl-E", action: "cursor to the start / end of the line"),
            Entry(keys: "Backspace Delete Ctrl-D", action: "delete before / under the cursor"),
            Entry(keys: "Ctrl-U Ctrl-K", action: "delete to the start / end of the line"),
            Entry(keys: "Ctrl-W", action: "delete the word before the cursor"),
            Entry(keys: "Alt-B Alt-F", action: "a word back / forward; Ctrl-Left Ctrl-Right too"),
            Entry(keys: "Alt-Backspace Alt-D", action: "delete a word before / after the cursor"),
            Entry(keys: "paste", action: "inserted as text; line breaks become spaces"),
            Entry(keys: "Esc", action: "clear the search"),
            Entry(keys: "Up Down", action: "move the selection"),
            Entry(keys: "PgUp PgDn", action: "move the selection and the view by a page",
                  documentation: "move the selection and the view by a whole page (a page not loaded yet is loaded first, then the move completes)"),
            Entry(keys: "wheel, click", action: "scroll the view; select a row (click it again to open it)",
                  documentation: "scroll the view (the selection stays on its book while it is visible, else it moves to the edge); click selects a row, a second click opens it"),
            Entry(keys: "Enter", action: "edit the selected book"),
            Entry(keys: "F3 Ctrl-Y", action: "history of the selected book, newest first"),
        ]),
        Section(title: "Editing a book", entries: [
            Entry(keys: "Tab Shift-Tab Up Down", action: "move between title and author"),
            Entry(keys: "line keys", action: "as in the search line (Left, Ctrl-A, Ctrl-W...)"),
            Entry(keys: "Enter Ctrl-S", action: "save"),
            Entry(keys: "Esc", action: "close the editor (asks first if unsaved)"),
        ]),
        Section(title: "When someone else saved first", entries: [
            Entry(keys: "(nothing)", action: "fields only they changed are merged and saved for you"),
            Entry(keys: "Ctrl-R", action: "reload: take their version, drop yours"),
            Entry(keys: "Ctrl-O", action: "overwrite their version with yours (keeping their other fields)"),
            Entry(keys: "Ctrl-E", action: "edit a merge: theirs, with yours in the fields you both changed"),
            Entry(keys: "Esc, any edit", action: "keep editing your version"),
        ]),
        Section(title: "History of a book", entries: [
            Entry(keys: "Up Down", action: "choose a revision (what it changed is marked)"),
            Entry(keys: "Enter", action: "ask, then restore it as a new revision; conflicts as usual",
                  documentation: "restore it, after asking (y / n): saved as a new revision, conflicts as usual (editors only)"),
            Entry(keys: "Esc F3 Ctrl-Y", action: "close the history"),
        ]),
        Section(title: "Anywhere", entries: [
            Entry(keys: "F1 (? with an empty search)", action: "this help; Up Down PgUp PgDn scroll it, other keys close it",
                  documentation: "this help; Up Down PgUp PgDn and the wheel scroll it (\"more ↑\" / \"more ↓\" say there is more), other keys close it"),
            Entry(keys: "F2 Ctrl-T", action: "switch account; your own account reconnects a lost connection",
                  documentation: "switch account (asks for a password if the account needs one; the input is masked); your own account, after a lost connection, asks for its password again"),
            Entry(keys: "Ctrl-Q Ctrl-C", action: "quit (asks first if unsaved)"),
            Entry(keys: "y / n", action: "answer a question (Enter = yes, Esc = no)"),
        ]),
    ]

    /// The help as plain lines for a box `width` columns wide: keys and action side by side
    /// when there is room, else the action indented under its keys. A long action wraps
    /// under its own first word, so every line keeps its column.
    public static func lines(width: Int = 80) -> [String] {
        let keyColumn = (sections.flatMap(\.entries).map(\.keys.count).max() ?? 0) + 2
        let sideBySide = width >= keyColumn + 2 + 40
        var lines: [String] = []
        for (index, section) in sections.enumerated() {
            if index > 0 { lines.append("") }
            lines.append(section.title)
            for entry in section.entries {
                let indent = sideBySide ? 2 + keyColumn : 6
                var action = TextWrap.lines(entry.action, width: max(10, width - indent))
                    .map { String(repeating: " ", count: indent) + $0 }
                if sideBySide {
                    let keys = "  " + entry.keys.padding(toLength: keyColumn, withPad: " ", startingAt: 0)
                    action[0] = keys + action[0].dropFirst(indent)
                } else {
                    lines.append("  " + entry.keys)
                }
                lines += action
            }
        }
        return lines
    }

    /// The README's key table (section "Keys"): a header, then each section's title in bold
    /// followed by its entries, one Markdown row each.
    public static func markdownTable() -> [String] {
        var rows = ["| Keys | Action |", "|---|---|"]
        for section in sections {
            rows.append("| **\(section.title)** | |")
            rows += section.entries.map { "| \($0.keys) | \($0.documentation) |" }
        }
        return rows
    }
}
