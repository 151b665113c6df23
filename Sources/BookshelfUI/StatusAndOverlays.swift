import BookCatalog
import BookshelfModel
import Foundation
import TerminalUI

/// The bottom line: the spinner and what the app is waiting for, or the error to act on,
/// and the keys that matter right now.
enum StatusLine {
    static let spinnerFrames: [Character] = ["|", "/", "-", "\\"]

    static func render(_ state: BookshelfState, ui: UIState, in area: Rect, into canvas: inout Canvas) {
        let spinner = String(spinnerFrames[ui.spinnerPhase % spinnerFrames.count])
        var message: StyledText?
        if let connecting = state.connection.connectingTo {
            let doing = state.connection.concernsCatalog ? "Opening" : "Connecting to"
            message = StyledText("\(spinner) \(doing) \(connecting)…", style: Theme.status)
        } else if let error = state.connection.error {
            let what = state.connection.concernsCatalog ? "Could not open" : "Could not switch account:"
            message = StyledText("\(what) \(error)", style: Theme.statusError)
        } else if state.connection.isLost, state.passwordPrompt == nil, let account = state.account {
            // It explains every failure that follows, so it comes before them.
            message = StyledText(
                "Disconnected: \(Hints.reconnectSteps) \(account), to type the password again.",
                style: Theme.statusError)
        } else if state.connection.isUnreachable {
            // Like the lost password, it explains the failures that follow.
            message = StyledText(
                "Cannot reach the catalog: still trying. Nothing here is lost.", style: Theme.statusError)
        } else if let refusal = state.connection.refusal {
            // The server answers: it is not lost, and the words say what it will not do.
            message = StyledText("The catalog refuses: \(refusal). Nothing here is lost.", style: Theme.statusError)
        } else if let activity = state.editor?.activity {
            message = StyledText("\(spinner) \(EditorPane.activityText(activity))", style: Theme.status)
        } else if state.search.isBusy {
            // The last answer came without the index: unless this query narrows an earlier one,
            // it reads the whole catalog again, and the user should know why it takes a while.
            let why =
                state.search.answeredWhileIndexing
                ? " (the search index is being built; until then a new word reads the whole catalog)" : ""
            message = StyledText("\(spinner) Searching…\(why)", style: Theme.status)
        } else if state.search.isLoadingMore {
            message = StyledText("\(spinner) Loading more…", style: Theme.status)
        } else if let error = state.search.error {
            message = StyledText("Search failed: \(error)", style: Theme.statusError)
        } else if state.bulk.isMarkingMatches {
            let then = state.bulk.opensEditorWhenMarked ? " Then the bulk editor opens." : ""
            message = StyledText("\(spinner) Marking every match…\(then)", style: Theme.status)
        } else if let error = state.bulk.markError {
            message = StyledText(error, style: Theme.statusError)
        } else if let notice = ui.notice {
            message = StyledText(notice.fitting(area.width - 2), style: Theme.status)
        } else if let action = state.waitingForSave {
            message = StyledText(
                "\(spinner) Waiting for the save to go through, then: \(action.verb)", style: Theme.status)
        } else if state.search.opensWhenAnswered {
            message = StyledText("\(spinner) Opening the first result when the search answers…", style: Theme.status)
        } else if let fact = state.message {
            message = StyledText(fact, style: Theme.status)
        } else if let note = state.bulk.markNote {
            message = StyledText(note, style: Theme.status)
        } else if let batch = state.bulk.batch {
            let failed = batch.error != nil || batch.savedNothing || batch.counts.conflicts + batch.counts.failed > 0
            message = StyledText(
                (batch.isRunning ? "\(spinner) " : "") + batch.headline + " · " + Hints.batchLine.text,
                style: failed && !batch.isRunning ? Theme.statusError : Theme.status)
        }
        let hints = " " + hintText(state, ui: ui) + " "
        let hintsWidth = TextLayout.width(hints)
        canvas.fill(area, style: Theme.status)
        if let message {
            // The message wins the room; hints take what is left on the right.
            let needed = min(area.width, message.width + 2)
            (StyledText(" ", style: Theme.status) + message).draw(
                in: &canvas, x: area.x, y: area.y, width: needed, fill: Theme.status)
            if area.width - needed >= hintsWidth {
                canvas.draw(hints, x: area.x + area.width - hintsWidth, y: area.y, style: Theme.status)
            }
        } else {
            StyledText(hints, style: Theme.status).draw(
                in: &canvas, x: area.x, y: area.y, width: area.width, fill: Theme.status)
        }
    }

    static func hintText(_ state: BookshelfState, ui: UIState) -> String {
        hintLine(state, ui: ui).text
    }

    /// The keys that matter now, named from the keymap (`Hints`).
    static func hintLine(_ state: BookshelfState, ui: UIState) -> HintLine {
        if let prompt = state.passwordPrompt { return prompt.reconnects ? Hints.reconnect : Hints.connect }
        if state.confirmation != nil { return Hints.question }
        switch ui.overlay {
        case .help?: return Hints.help
        case .accounts?: return Hints.accounts
        case .requests?: return Hints.requests
        case .lostSaves?: return Hints.lostSaves
        case nil: break
        }
        if state.bulk.batch?.isListOpen == true { return Hints.batchOutcomes }
        if state.bulk.editor != nil { return Hints.bulkEditor }
        if state.keptDraft != nil { return Hints.restoreQuestion }
        if let history = state.history, state.editor == nil {
            if history.restoreQuestion != nil { return Hints.restoreQuestion }
            return history.canRestore ? Hints.history : Hints.historyReadOnly
        }
        if let editor = state.editor {
            if editor.conflict?.merged != nil { return Hints.conflictWithMerge }
            if editor.conflict?.theirs != nil { return Hints.conflict }
            if state.accountRole == .reader { return Hints.viewer }
            return editor.focus == .notes ? Hints.notes : Hints.editor
        }
        return state.accountRole == .reader ? Hints.searchReader : Hints.search
    }
}

/// Boxes drawn over the screen: a question, the password prompt, the account switcher, help,
/// the request panel.
enum Overlays {
    static func render(
        _ state: BookshelfState, ui: UIState, requests: [RequestTrace], revisions: RevisionStyle = .counter,
        into canvas: inout Canvas
    ) {
        if let confirmation = state.confirmation {
            let box = Box(
                title: confirmation.waitsForSave ? "Save in progress" : "Unsaved changes",
                lines: [confirmation.question, "", TooSmallScreen.answers(confirmation)],
                canvas: canvas, preferredWidth: 52)
            box.draw(into: &canvas)
            return
        }
        if let prompt = state.passwordPrompt {
            renderPassword(prompt, secret: ui.password, into: &canvas)
            return
        }
        if let kept = state.keptDraft {
            Box(
                title: "Kept draft",
                lines: [kept.question(basedOn: revisions.basis(kept.revision)), "", Hints.keptDraftBox.text],
                canvas: canvas,
                preferredWidth: 52
            ).draw(into: &canvas)
            return
        }
        if let revision = state.history?.restoreQuestion {
            Box(
                title: "Restore",
                lines: ["Restore \(revisions.basis(revision)) as a new revision?", "", Hints.restoreBox.text],
                canvas: canvas, preferredWidth: 44
            ).draw(into: &canvas)
            return
        }
        switch ui.overlay {
        case let .help(scroll)?:
            renderHelp(scroll: scroll, into: &canvas)
        case let .accounts(highlighted)?:
            renderAccounts(state, highlighted: highlighted, into: &canvas)
        case let .requests(scroll)?:
            RequestPanel.render(requests, scroll: scroll, into: &canvas)
        case .lostSaves?:
            LostSavesPanel.render(state.lostSaves, into: &canvas)
        case nil:
            if let batch = state.bulk.batch, batch.isListOpen {
                BatchOutcomesPanel.render(batch, into: &canvas)
            } else if let editor = state.bulk.editor {
                BulkEditorPanel.render(editor, into: &canvas)
            }
        }
    }

    static func renderPassword(_ prompt: PasswordPrompt, secret: SecretText, into canvas: inout Canvas) {
        let intro =
            prompt.reconnects
            ? "The connection was lost. Type the password of \(prompt.account) to reconnect; your search and draft are kept."
            : "Account \(prompt.account) needs a password."
        var lines = [intro, "", ""]
        if let problem = prompt.problem { lines.append(problem) }
        lines += ["", (prompt.reconnects ? Hints.reconnect : Hints.connect).text]
        let box = Box(
            title: prompt.reconnects ? "Reconnect" : "Password", lines: lines, canvas: canvas, preferredWidth: 44)
        box.draw(into: &canvas)
        // The field sits on the blank line after the intro, however many lines that took.
        let fieldRow = TextWrap.lines(intro, width: max(1, box.inner.width)).count + 1
        guard fieldRow < box.inner.height else { return }
        // Only a mask is drawn: one bullet per character typed, scrolled as any field is
        // ("‹" says that more was typed than shows).
        let fieldWidth = box.inner.width
        let mask = LineEditor(String(repeating: "•", count: secret.count))
        let y = box.inner.y + fieldRow
        let cursorX = FieldView.draw(
            mask, in: &canvas, x: box.inner.x, y: y, width: fieldWidth, style: Theme.focusedField)
        if let problem = prompt.problem {
            canvas.draw(problem, x: box.inner.x, y: y + 1, style: Theme.statusError, maxWidth: fieldWidth)
        }
        canvas.cursor = Position(x: cursorX, y: y)
    }

    static func renderAccounts(_ state: BookshelfState, highlighted: SwitcherChoice?, into canvas: inout Canvas) {
        // One row per choice, so that the highlight's row is the choice's: the box must wrap
        // nothing, so every line is cut to the room there is (an account's at its end, a path at
        // its start, so its end shows).
        let width = max(1, canvas.width - 6)
        var lines = AccountColumns.lines(state.accounts).map { TextLayout.truncate($0, toWidth: width) }
        if lines.isEmpty { lines = ["Listing accounts…"] }
        let accountLines = lines.count
        if !state.otherCatalogs.isEmpty {
            lines +=
                ["", RecentCatalogLines.heading] + state.otherCatalogs.map { RecentCatalogLines.line($0, width: width) }
        }
        let box = Box(title: "Switch account or catalog", lines: lines, canvas: canvas, preferredWidth: 40)
        box.draw(into: &canvas)
        let choice = state.switcherRow(highlighting: highlighted)
        let row = choice < state.accounts.count ? choice : accountLines + 2 + (choice - state.accounts.count)
        if !SwitcherChoice.all(in: state).isEmpty, row < box.inner.height {
            canvas.setStyle(
                Theme.selected, in: Rect(x: box.inner.x, y: box.inner.y + row, width: box.inner.width, height: 1))
        }
        if !state.otherCatalogs.isEmpty, accountLines + 1 < box.inner.height {
            canvas.draw(
                RecentCatalogLines.heading, x: box.inner.x, y: box.inner.y + accountLines + 1,
                style: Theme.overlayTitle,
                maxWidth: box.inner.width)
        }
    }

    static func helpBox(canvas: Canvas, scroll: Int) -> Box {
        // As wide as the screen allows, up to a readable measure: KeyHelp wraps to it, so
        // the box never wraps a line again (which would lose the columns).
        let innerWidth = min(canvas.width - 2, 100) - 4
        return Box(
            title: "Keys", lines: KeyHelp.lines(width: innerWidth), canvas: canvas, preferredWidth: 80, scroll: scroll)
    }

    /// The furthest the help can scroll at this size.
    static func helpMaximumScroll(columns: Int, rows: Int) -> Int {
        helpBox(canvas: Canvas(width: columns, height: rows), scroll: .max).scroll
    }

    static func renderHelp(scroll: Int, into canvas: inout Canvas) {
        let box = helpBox(canvas: canvas, scroll: scroll)
        box.draw(into: &canvas)
        let titles = Set(KeyHelp.sections.map(\.title))
        for row in 0..<box.inner.height
        where box.scroll + row < box.lines.count && titles.contains(box.lines[box.scroll + row]) {
            canvas.draw(
                box.lines[box.scroll + row], x: box.inner.x, y: box.inner.y + row, style: Theme.overlayTitle,
                maxWidth: box.inner.width)
        }
    }
}

/// A bordered box centred on the screen, as large as its lines or the screen allow.
struct Box {
    let frame: Rect
    let inner: Rect
    let title: String
    let lines: [String]
    let scroll: Int

    init(title: String, lines: [String], canvas: Canvas, preferredWidth: Int, scroll: Int = 0) {
        let widest = lines.map(TextLayout.width).max() ?? 0
        let width = min(canvas.width - 2, max(preferredWidth, min(widest + 4, canvas.width - 2)))
        // Wrap to the room there is.
        let wrapped = lines.flatMap { $0.isEmpty ? [""] : TextWrap.lines($0, width: max(1, width - 4)) }
        let height = min(canvas.height - 2, wrapped.count + 2)
        let x = max(0, (canvas.width - width) / 2)
        let y = max(0, (canvas.height - height) / 2)
        frame = Rect(x: x, y: y, width: width, height: height)
        inner = Rect(x: x + 2, y: y + 1, width: max(0, width - 4), height: max(0, height - 2))
        self.title = title
        self.lines = wrapped
        self.scroll = min(max(0, scroll), max(0, wrapped.count - inner.height))
    }

    func draw(into canvas: inout Canvas) {
        let right = frame.x + frame.width - 1
        let bottom = frame.y + frame.height - 1
        canvas.fill(frame, style: Theme.overlay)
        canvas.fill(
            Rect(x: frame.x + 1, y: frame.y, width: frame.width - 2, height: 1), symbol: "─", style: Theme.border)
        canvas.fill(
            Rect(x: frame.x + 1, y: bottom, width: frame.width - 2, height: 1), symbol: "─", style: Theme.border)
        canvas.fill(
            Rect(x: frame.x, y: frame.y + 1, width: 1, height: frame.height - 2), symbol: "│", style: Theme.border)
        canvas.fill(
            Rect(x: right, y: frame.y + 1, width: 1, height: frame.height - 2), symbol: "│", style: Theme.border)
        canvas.draw("┌", x: frame.x, y: frame.y, style: Theme.border)
        canvas.draw("┐", x: right, y: frame.y, style: Theme.border)
        canvas.draw("└", x: frame.x, y: bottom, style: Theme.border)
        canvas.draw("┘", x: right, y: bottom, style: Theme.border)
        canvas.draw(
            " \(title) ", x: frame.x + 2, y: frame.y, style: Theme.overlayTitle, maxWidth: max(0, frame.width - 4))
        for row in 0..<inner.height where scroll + row < lines.count {
            canvas.draw(lines[scroll + row], x: inner.x, y: inner.y + row, style: Theme.overlay, maxWidth: inner.width)
        }
        // Scrolled boxes say so at both ends, so "more" never points one way only.
        if scroll > 0 {
            canvas.draw(" more ↑ ", x: right - 9, y: frame.y, style: Theme.hint)
        }
        if lines.count > inner.height + scroll {
            canvas.draw(" more ↓ ", x: right - 9, y: bottom, style: Theme.hint)
        }
    }
}

/// The switcher's rows of the other catalogs: the kind, then the path or connection (from a
/// file anyone could write: sanitised, and cut at its start to the room there is).
enum RecentCatalogLines {
    static let heading = "Recent catalogs"

    static func line(_ catalog: RecentCatalog, width: Int) -> String {
        let kind = catalog.kind.title + String(repeating: " ", count: max(0, 11 - catalog.kind.title.count))
        let missing = catalog.isMissing ? "  (missing)" : ""
        let room = width - TextLayout.width(kind) - TextLayout.width(missing)
        return kind + keepingTheEnd(sanitize(catalog.shown), width: room) + missing
    }

    /// `text` in at most `width` columns: "…" and its end when it is wider.
    static func keepingTheEnd(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        let glyphs = TextLayout.glyphs(text)
        guard glyphs.reduce(0, { $0 + $1.width }) > width else { return text }
        var kept: [String] = []
        var used = 1
        for glyph in glyphs.reversed() {
            if used + glyph.width > width { break }
            kept.append(glyph.symbol)
            used += glyph.width
        }
        return "…" + kept.reversed().joined()
    }
}

/// The switcher's rows: name, role and scope in columns (a column the catalog says nothing
/// of is left out), then what is special about the account.
enum AccountColumns {
    static func lines(_ accounts: [AccountChoice]) -> [String] {
        let columns = [
            accounts.map(\.name),
            accounts.map { $0.role?.rawValue ?? "" },
            accounts.map { $0.scope.map { "scope \($0)" } ?? "" },
        ].filter { $0.contains { !$0.isEmpty } }.map(padded)
        return accounts.indices.map { index in
            var line = columns.map { $0[index] }.joined(separator: "  ")
            if accounts[index].isCurrent { line += "  (current)" }
            if accounts[index].needsPassword { line += "  (password)" }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    private static func padded(_ values: [String]) -> [String] {
        let widest = values.map(TextLayout.width).max() ?? 0
        return values.map { $0 + String(repeating: " ", count: widest - TextLayout.width($0)) }
    }
}
