import BookCatalog
import BookshelfModel
import TerminalSafeText
import TerminalUI

/// The bulk editor (F8): the change, its value (and replacement), all or nothing, and what it
/// would do to the marked books as read: how many it changes and a sample of before -> after.
/// Book titles and field texts come from the store: the canvas draws them made safe.
enum BulkEditorPanel {
    static let title = "Edit the marked books"

    static func render(_ editor: BulkEditorState, into canvas: inout Canvas) {
        Box(title: title, lines: lines(editor), canvas: canvas, preferredWidth: 72).draw(into: &canvas)
    }

    static func lines(_ editor: BulkEditorState) -> [String] {
        let books = editor.markedBooks == 1 ? "1 marked book" : "\(NumberText.grouped(editor.markedBooks)) marked books"
        var lines = ["Change: \(editor.kind.label)   (of \(books))"]
        let cursor = { (line: LineEditor, focused: Bool) in
            focused ? line.textBeforeCursor + "▏" + String(line.text.dropFirst(line.cursor)) : line.text
        }
        let valueName: String =
            switch editor.kind {
            case .addTags, .removeTags: "Tags (a, b, c)"
            case .replace: "Find"
            default: "Value"
            }
        lines.append("\(valueName): " + cursor(editor.value, editor.focus == .value))
        if editor.kind.takesReplacement {
            lines.append("Replace with: " + cursor(editor.replacement, editor.focus == .replacement))
        }
        lines.append(
            editor.allOrNothing
                ? "All or nothing: ON, one transaction; if any book conflicts or fails, none is saved."
                : "All or nothing: off; each book is saved on its own, with its own outcome (a partial outcome).")
        lines.append("")
        if editor.isReading {
            lines.append("Reading the marked books…")
        } else if let error = editor.readError {
            lines.append("Could not read the marked books: \(error)")
        } else if let problem = editor.problem {
            lines.append("Cannot make this change: \(problem)")
        } else if let preview = editor.preview {
            var counts = ["it changes \(NumberText.grouped(preview.willChange))"]
            if preview.unchanged > 0 { counts.append("\(NumberText.grouped(preview.unchanged)) unchanged") }
            if preview.willFail > 0 { counts.append("\(NumberText.grouped(preview.willFail)) would fail") }
            lines.append("As read now, " + counts.joined(separator: ", ") + ".")
            for sample in preview.sample {
                lines.append(
                    "“\(sample.title)” \(sample.field.label.lowercased()): \(shown(sample.before)) -> \(shown(sample.after))"
                )
            }
        } else {
            lines.append("Type the change to see what it does.")
        }
        return lines
    }

    private static func shown(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.isEmpty ? "(empty)" : "“\(TextLayout.truncate(line, toWidth: 24))”"
    }
}

/// The batch's outcomes (F9): the summary, then a line per book, the chosen one marked with ">".
enum BatchOutcomesPanel {
    static let title = "Bulk edit"

    static func render(_ batch: BatchState, into canvas: inout Canvas) {
        let all = lines(batch)
        // Keep the chosen row in view: the box shows as many lines as the screen has room for.
        let room = max(1, canvas.height - 4)
        let chosenLine = (batch.selection ?? 0) + 2
        let scroll = max(0, chosenLine - room + 1)
        Box(title: title, lines: all, canvas: canvas, preferredWidth: 72, scroll: scroll).draw(into: &canvas)
    }

    static func lines(_ batch: BatchState) -> [String] {
        var lines = [batch.headline, ""]
        if batch.isRunning { return lines + ["Running… the outcome of each book shows here when the batch ends."] }
        guard !batch.rows.isEmpty else { return lines + ["No book was taken."] }
        for (index, row) in batch.rows.enumerated() {
            let mark = index == batch.selection ? "> " : "  "
            let title = TextLayout.truncate(row.title, toWidth: 32)
            lines.append(mark + "#\(row.id) “\(title)”: \(row.outcome)" + (row.reason.map { " (\($0))" } ?? ""))
        }
        return lines
    }
}

/// A running batch's progress on the rule above the list: "Bulk edit ██████░░░░ 340/1,000".
enum BatchProgressBar {
    static let width = 20

    static func render(_ batch: BatchState, on rule: Rect, into canvas: inout Canvas) {
        let filled = batch.total == 0 ? 0 : min(width, batch.done * width / batch.total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let label = " Bulk edit \(bar) \(NumberText.grouped(batch.done))/\(NumberText.grouped(batch.total)) "
        canvas.draw(label, x: rule.x + 1, y: rule.y, style: Theme.count, maxWidth: max(0, rule.width / 2))
    }
}
