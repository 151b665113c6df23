import Foundation

/// The keymap as the help overlay and the README's key table show it. Both are written from
/// `Keymap.sections` (a test compares the README with `markdownTable()`), so they cannot
/// disagree with each other or with what the keys do.
public enum KeyHelp {
    public static var sections: [Keymap.Section] { Keymap.sections }

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
                var action = TextWrap.lines(entry.help, width: max(10, width - indent))
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
