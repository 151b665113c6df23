import Foundation
import BookCatalog
import BookshelfModel
import TerminalUI

/// A book's revisions, newest first, each with what it changed against the one before it
/// marked, in the pane beside (or below) the list: the title and author whole, and every other
/// field it changed as what it was and what it became, so that a restore is not done blind.
enum HistoryPane {
    /// The editor form's label column, so that "Publisher" and "Series #" fit.
    static let labelWidth = EditorForm.labelWidth

    static func render(
        _ history: HistoryState, revisions style: RevisionStyle = .counter, in area: Rect, into canvas: inout Canvas
    ) {
        var writer = PaneWriter(area: area)
        writer.line(StyledText("History of book #\(history.bookID) · newest first", style: Theme.label), into: &canvas)
        writer.line(
            StyledText(
                (history.canRestore ? Hints.historyPane : Hints.historyPaneReadOnly).text,
                style: Theme.hint), into: &canvas)
        if let error = history.error {
            writer.wrapped("Could not read the history: \(error)", style: Theme.error, into: &canvas)
            return
        }
        guard let revisions = history.revisions else {
            writer.line(StyledText("Reading the history…", style: Theme.hint), into: &canvas)
            return
        }
        // Three lines a revision and one for each other field it changed; the highlighted one stays in view.
        let room = area.y + area.height - writer.y
        var first = min(history.selection, revisions.count - 1)
        var used = lineCount(history, at: first)
        while first > 0, used + lineCount(history, at: first - 1) <= room {
            first -= 1
            used += lineCount(history, at: first)
        }
        for index in revisions.indices.dropFirst(first) where writer.hasRoom {
            revision(
                revisions, index, style: style, change: history.change(at: index),
                selected: index == history.selection, writer: &writer, into: &canvas)
        }
    }

    private static func revision(
        _ revisions: [BookRevision], _ index: Int, style: RevisionStyle, change: RevisionChange?, selected: Bool,
        writer: inout PaneWriter, into canvas: inout Canvas
    ) {
        let revision = revisions[index]
        let older = revisions.indices.contains(index + 1) ? revisions[index + 1].record : nil
        let who = revision.account.map(sanitize)
        // Who before when: a narrow pane cuts the time, not the name.
        let heading: String =
            switch style {
            case .counter: "Revision \(revision.revision) · \(who ?? "no account") · \(timestamp(revision.savedAt))"
            // A time is the revision itself; a change no save of Bookshelf made is calibre's own.
            case .lastModified:
                (who.map { "Saved by \($0)" } ?? "Changed in calibre") + " at \(timestamp(revision.savedAt)) UTC"
                    + (revision.batch.map { " · batch \($0)" } ?? "")
            }
        writer.line(StyledText(heading, style: selected ? Theme.selected : Theme.label), into: &canvas)
        let width = max(1, writer.area.width - 2 - labelWidth)
        for field in [EditorField.title, .author] {
            let now = sanitize(field == .title ? revision.record.title : revision.record.author)
            let before = older.map { sanitize(field == .title ? $0.title : $0.author) }
            var text = StyledText(
                label(field), style: Theme.hint)
            if now.isEmpty {
                text.appendEmptyMarker()
            } else if let before, before != now {
                for piece in DifferenceElision.elideChange(from: before, to: now, width: width) {
                    text.append(piece.text, style: piece.differs ? Theme.difference : .plain)
                }
            } else {
                text.append(now, style: .plain)
            }
            writer.line(text, into: &canvas)
        }
        if let older, let change {
            for field in otherFields(change) {
                writer.line(changeLine(field, from: older, to: revision.record, width: width), into: &canvas)
            }
        }
    }

    /// The fields a revision changed beyond the title and author shown above them.
    private static func otherFields(_ change: RevisionChange) -> [EditorField] {
        change.fields.filter { $0 != .title && $0 != .author }
    }

    private static func label(_ field: EditorField) -> String {
        EditorForm.label(field).padding(toLength: labelWidth, withPad: " ", startingAt: 0)
    }

    static let arrow = " → "

    /// "Tags      history, rome → history": what `field` was and what it became, on one line
    /// (notes with "↵" for each line break), "(empty)" for nothing. Where the two differ is
    /// marked; when both do not fit, each side gets half the room and keeps the part where
    /// they differ (`DifferenceElision`).
    static func changeLine(_ field: EditorField, from older: BookRecord, to newer: BookRecord, width: Int)
        -> StyledText
    {
        let was = ConflictBanner.oneLine(BookDraft(older)[field])
        let became = ConflictBanner.oneLine(BookDraft(newer)[field])
        let whole = TextLayout.width(was) + TextLayout.width(arrow) + TextLayout.width(became) <= width
        let side = whole ? width : max(1, (width - TextLayout.width(arrow)) / 2)
        let (before, after) = DifferenceElision.elide(was, became, width: side)
        var text = StyledText(label(field), style: Theme.hint)
        func append(_ pieces: [DifferenceElision.Piece]) {
            if pieces.isEmpty { return text.appendEmptyMarker() }
            for piece in pieces { text.append(piece.text, style: piece.differs ? Theme.difference : .plain) }
        }
        append(before)
        text.append(arrow, style: Theme.hint)
        append(after)
        return text
    }

    private static func lineCount(_ history: HistoryState, at index: Int) -> Int {
        3 + (history.change(at: index).map { otherFields($0).count } ?? 0)
    }

    static func timestamp(_ date: Date) -> String { RevisionStyle.timestamp(date) }
}
