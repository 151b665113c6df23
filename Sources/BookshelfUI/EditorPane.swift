import Foundation
import BookCatalog
import BookshelfModel
import TerminalUI

/// The editor: every field of the book (`EditorForm`), what the store said about the last save, and, after a conflict,
/// their version and yours side by side with the three ways out. For a reader (`viewOnly`)
/// it is a viewer: "View book", and no key that saves or edits is offered.
enum EditorPane {

    static func render(
        _ editor: EditorState, viewOnly: Bool, revisions: RevisionStyle = .counter, ui: UIState, in area: Rect,
        into canvas: inout Canvas
    ) {
        var writer = PaneWriter(area: area)
        guard let base = editor.base else {
            if let error = editor.loadError {
                writer.wrapped("Could not open book #\(editor.bookID): \(error)", style: Theme.error, into: &canvas)
                writer.line(StyledText(Hints.goBack.text, style: Theme.hint), into: &canvas)
            } else {
                writer.line(StyledText("Opening book #\(editor.bookID)…", style: Theme.hint), into: &canvas)
            }
            return
        }
        var heading = StyledText("\(viewOnly ? "View" : "Edit") book #\(editor.bookID)", style: Theme.label)
        heading.append(" · \(revisions.text(base.revision))", style: Theme.hint)
        if editor.isDirty { heading.append(" · modified", style: Theme.warning) }
        writer.line(heading, into: &canvas)

        // What follows the form is drawn under it; the form gets the rows it needs, or what
        // the rest leaves (at least three rows), scrolling when that is fewer.
        var scratch = Canvas(width: area.width, height: area.height)
        var measure = PaneWriter(area: Rect(x: 0, y: 0, width: area.width, height: area.height))
        footer(editor, viewOnly: viewOnly, revisions: revisions, base: base, writer: &measure, into: &scratch)
        let remaining = area.y + area.height - writer.y
        let needed = EditorForm.height(editor, width: area.width)
        let formHeight = min(needed, max(min(3, remaining), remaining - measure.y))
        let formArea = Rect(x: area.x, y: writer.y, width: area.width, height: formHeight)
        let cursor = EditorForm.render(editor, in: formArea, into: &canvas)
        if let cursor, ui.overlay == nil { canvas.cursor = cursor }
        for _ in 0..<formHeight { writer.skip() }
        footer(editor, viewOnly: viewOnly, revisions: revisions, base: base, writer: &writer, into: &canvas)
    }

    /// Everything under the form: why it is read-only, the store's last word, a newer revision,
    /// and the conflict's ways out or the keys.
    private static func footer(
        _ editor: EditorState, viewOnly: Bool, revisions: RevisionStyle, base: BookRecord, writer: inout PaneWriter,
        into canvas: inout Canvas
    ) {
        if let reason = editor.readOnlyReason {
            writer.wrapped(reason, style: Theme.warning, into: &canvas)
        }
        if let activity = editor.activity {
            writer.line(StyledText(activityText(activity), style: Theme.hint), into: &canvas)
        } else if let outcome = editor.outcome {
            let (text, style) = outcomeText(outcome, account: editor.account, revisions: revisions)
            writer.wrapped(text, style: style, into: &canvas)
        }
        if let newer = editor.changedElsewhere {
            writer.wrapped(
                revisions == .counter
                    ? "Someone else saved revision \(newer.revision) since you opened this book: \(newer.title)"
                    : "Someone else saved this book since you opened it (\(revisions.text(newer.revision))): \(newer.title)",
                style: Theme.warning, into: &canvas)
        }
        if let error = editor.watchError {
            writer.wrapped("Could not re-read this book: \(error)", style: Theme.hint, into: &canvas)
        }
        if let conflict = editor.conflict {
            writer.skip()
            ConflictBanner.render(
                conflict, draft: editor.draft, base: base, revisions: revisions, writer: &writer, into: &canvas)
        } else {
            writer.skip()
            writer.line(
                StyledText(
                    (viewOnly ? Hints.viewerPane : editor.focus == .notes ? Hints.notesPane : Hints.editorPane).text,
                    style: Theme.hint),
                into: &canvas)
        }
    }

    static func activityText(_ activity: EditorActivity) -> String {
        switch activity {
        case .loading: "Opening…"
        case .saving: "Saving…"
        case .fetchingCurrent: "Someone else saved first; fetching their version…"
        case .reconciling: "Checking whether the last save went through…"
        }
    }

    static func outcomeText(_ outcome: SaveOutcome, account: String?, revisions: RevisionStyle = .counter) -> (
        String, Style
    ) {
        switch outcome {
        case let .saved(revision):
            (
                revisions == .counter ? "Saved as revision \(revision)." : "Saved (\(revisions.text(revision))).",
                Theme.success
            )
        case .noChanges: ("No changes to save.", Theme.hint)
        case .rejected(.notAllowed):
            (
                "Not saved: \(account ?? "this account") may not change this book (a reader, or a book of another scope).",
                Theme.error
            )
        case let .rejected(failure): ("Not saved: \(failure.description)", Theme.error)
        case .notCommitted: ("The last save did not go through. Save again to retry.", Theme.warning)
        case let .lost(revision, current):
            (
                "Revision \(revision) was lost (a failover?): the catalog is back at revision \(current). "
                    + "Your text is kept here; save to send it again.",
                Theme.warning
            )
        case let .unresolved(failure):
            (
                "Unknown whether the last save went through\(failure.map { " (\($0.description))" } ?? ""). Save again to check.",
                Theme.warning
            )
        }
    }
}

/// Their version and yours, inline, with the keys that resolve the conflict.
enum ConflictBanner {
    static func render(
        _ conflict: ConflictState, draft: BookDraft, base: BookRecord, revisions: RevisionStyle = .counter,
        writer: inout PaneWriter, into canvas: inout Canvas
    ) {
        guard let theirs = conflict.theirs else {
            writer.line(StyledText("Someone else saved this book first.", style: Theme.conflict), into: &canvas)
            if let error = conflict.fetchError {
                writer.wrapped("Their version could not be fetched: \(error)", style: Theme.error, into: &canvas)
            } else {
                writer.line(StyledText("Fetching their version…", style: Theme.hint), into: &canvas)
            }
            writer.line(StyledText(Hints.keepEditing.text, style: Theme.hint), into: &canvas)
            return
        }
        writer.wrapped(
            revisions == .counter
                ? "Conflict: someone else saved revision \(theirs.revision) while you edited revision \(base.revision)."
                : "Conflict: someone else saved this book (\(revisions.text(theirs.revision))) while you edited it "
                    + "(as \(revisions.text(base.revision))).",
            style: Theme.conflict, into: &canvas)
        let labelWidth = 8
        guard conflict.fields.isEmpty else {
            fieldConflicts(conflict.fields, labelWidth: labelWidth, writer: &writer, into: &canvas)
            writer.wrapped(Hints.fieldConflictBanner.text, style: Theme.hint, into: &canvas)
            return
        }
        let (theirLine, yourLine) = DifferenceElision.elide(
            versionText(title: theirs.title, author: theirs.author),
            versionText(title: draft.title, author: draft.author),
            width: max(1, writer.area.width - 2 - labelWidth))
        version("Theirs", pieces: theirLine, labelWidth: labelWidth, writer: &writer, into: &canvas)
        version("Yours", pieces: yourLine, labelWidth: labelWidth, writer: &writer, into: &canvas)
        writer.line(StyledText(Hints.conflictBanner.text, style: Theme.hint), into: &canvas)
    }

    /// Each field both sides changed: base, theirs and yours, the characters where each
    /// differs from the base marked. Fields only one side changed are merged already.
    private static func fieldConflicts(
        _ fields: [FieldConflict], labelWidth: Int,
        writer: inout PaneWriter, into canvas: inout Canvas
    ) {
        let width = max(1, writer.area.width - 2 - labelWidth)
        for conflict in fields {
            writer.line(
                StyledText("Both changed the \(conflict.field.name):", style: Theme.label),
                into: &canvas)
            let (base, theirs, mine) = (oneLine(conflict.base), oneLine(conflict.theirs), oneLine(conflict.mine))
            let (baseAgainstTheirs, theirLine) = DifferenceElision.elide(base, theirs, width: width)
            let (_, yourLine) = DifferenceElision.elide(base, mine, width: width)
            version(
                "Base", pieces: baseAgainstTheirs.map { DifferenceElision.Piece(text: $0.text, differs: false) },
                labelWidth: labelWidth, writer: &writer, into: &canvas)
            version("Theirs", pieces: theirLine, labelWidth: labelWidth, writer: &writer, into: &canvas)
            version("Yours", pieces: yourLine, labelWidth: labelWidth, writer: &writer, into: &canvas)
        }
    }

    /// Notes on one line, each line break shown as "↵", so the three versions line up.
    static func oneLine(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ↵ ") }

    private static func versionText(title: String, author: String) -> String {
        author.isEmpty ? title : title + " — " + author
    }

    /// One version, cut where theirs and yours agree, the differing characters marked.
    private static func version(
        _ label: String, pieces: [DifferenceElision.Piece], labelWidth: Int,
        writer: inout PaneWriter, into canvas: inout Canvas
    ) {
        var text = StyledText(
            "\(label): ".padding(toLength: labelWidth, withPad: " ", startingAt: 0), style: Theme.label)
        if pieces.allSatisfy({ $0.text.isEmpty }) {
            text.appendEmptyMarker()
        } else {
            for piece in pieces { text.append(piece.text, style: piece.differs ? Theme.difference : .plain) }
        }
        writer.line(text, into: &canvas)
    }
}

/// Writes lines top-down into a pane, stopping at its bottom.
struct PaneWriter {
    let area: Rect
    private(set) var y: Int

    init(area: Rect) {
        self.area = area
        y = area.y
    }

    var hasRoom: Bool { y < area.y + area.height }

    /// Claims the next row; false when the pane is full.
    mutating func take() -> Bool {
        guard hasRoom else { return false }
        y += 1
        return true
    }

    mutating func skip() { _ = take() }

    mutating func line(_ text: StyledText, into canvas: inout Canvas) {
        let row = y
        guard take() else { return }
        text.draw(in: &canvas, x: area.x + 1, y: row, width: max(0, area.width - 2))
    }

    /// Up to three wrapped lines of `text`; a longer text is cut with "…".
    mutating func wrapped(_ text: String, style: Style, into canvas: inout Canvas, maxLines: Int = 3) {
        let lines = TextWrap.lines(text, width: max(1, area.width - 2))
        for (index, part) in lines.prefix(maxLines).enumerated() {
            let cut = index == maxLines - 1 && lines.count > maxLines
            line(StyledText(cut ? part + " …" : part, style: style), into: &canvas)
        }
    }
}
