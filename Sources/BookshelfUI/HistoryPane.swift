import Foundation
import BookCatalog
import BookshelfModel
import TerminalUI

/// A book's revisions, newest first, each with what it changed against the one before it
/// marked, in the pane beside (or below) the list.
enum HistoryPane {
    static let labelWidth = 8

    static func render(_ history: HistoryState, in area: Rect, into canvas: inout Canvas) {
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
        // Three or four lines a revision; the highlighted one stays in view.
        let room = area.y + area.height - writer.y
        var first = min(history.selection, revisions.count - 1)
        var used = lineCount(history, at: first)
        while first > 0, used + lineCount(history, at: first - 1) <= room {
            first -= 1
            used += lineCount(history, at: first)
        }
        for index in revisions.indices.dropFirst(first) where writer.hasRoom {
            revision(
                revisions, index, change: history.change(at: index), selected: index == history.selection,
                writer: &writer, into: &canvas)
        }
    }

    private static func revision(
        _ revisions: [BookRevision], _ index: Int, change: RevisionChange?, selected: Bool,
        writer: inout PaneWriter, into canvas: inout Canvas
    ) {
        let revision = revisions[index]
        let older = revisions.indices.contains(index + 1) ? revisions[index + 1].record : nil
        let who = revision.account.map(sanitize) ?? "no account"
        // Who before when: a narrow pane cuts the time, not the name.
        let heading = "Revision \(revision.revision) · \(who) · \(timestamp(revision.savedAt))"
        writer.line(StyledText(heading, style: selected ? Theme.selected : Theme.label), into: &canvas)
        let width = max(1, writer.area.width - 2 - labelWidth)
        for field in [EditorField.title, .author] {
            let now = sanitize(field == .title ? revision.record.title : revision.record.author)
            let before = older.map { sanitize(field == .title ? $0.title : $0.author) }
            var text = StyledText(
                (field == .title ? "Title" : "Author").padding(toLength: labelWidth, withPad: " ", startingAt: 0),
                style: Theme.hint)
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
        if let fields = change?.fields, let line = otherFieldsLine(fields) {
            writer.line(line, into: &canvas)
        }
    }

    /// "Changed Title, Tags, Notes": every field the revision changed, when it changed more
    /// than the title and author shown above it; nil when it did not.
    private static func otherFieldsLine(_ fields: [EditorField]) -> StyledText? {
        guard fields.contains(where: { $0 != .title && $0 != .author }) else { return nil }
        var text = StyledText("Changed".padding(toLength: labelWidth, withPad: " ", startingAt: 0), style: Theme.hint)
        text.append(fields.map(\.label).joined(separator: ", "), style: Theme.difference)
        return text
    }

    private static func lineCount(_ history: HistoryState, at index: Int) -> Int {
        3 + (history.change(at: index).flatMap { otherFieldsLine($0.fields) } == nil ? 0 : 1)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day().time(includingFractionalSeconds: false)
                .dateSeparator(.dash).timeSeparator(.colon).dateTimeSeparator(.space))
    }
}
