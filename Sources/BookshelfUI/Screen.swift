import BookCatalog
import BookshelfModel
import Foundation
import TerminalSafeText
import TerminalUI

/// What the header says about the store: its kind and where it is, and what its revisions
/// mean. Given by the executable.
public struct StoreInfo: Equatable, Sendable {
    public let kind: String
    public let location: String
    public let revisions: RevisionStyle

    public init(kind: String, location: String, revisions: RevisionStyle = .counter) {
        self.kind = kind
        self.location = location
        self.revisions = revisions
    }
}

/// The whole screen as a pure function of the model's state, the UI state and the size.
/// Nothing here reads a clock, a store or a global: the same inputs paint the same cells.
public enum Screen {
    /// `requests` are the recent requests, oldest first, for the request panel when it is open.
    public static func render(
        _ state: BookshelfState, ui: UIState, store: StoreInfo, requests: [RequestTrace] = [], into canvas: inout Canvas
    ) {
        let layout = ScreenLayout(
            columns: canvas.width, rows: canvas.height, paneIsModal: state.editor != nil || state.history != nil)
        canvas.cursor = nil
        if layout.isTooSmall {
            TooSmallScreen.render(state, into: &canvas)
            return
        }
        renderHeader(state, ui: ui, store: store, layout: layout, into: &canvas)
        renderSearchLine(state, ui: ui, layout: layout, into: &canvas)
        let top = ListViewport.top(
            current: state.search.listTop, selection: state.search.selection,
            count: state.search.rows.count, height: layout.list.height)
        renderRule(
            state, top: top, booksOfAccount: state.search.accountBooks,
            layout: layout, into: &canvas)
        ResultList.render(
            state.search, lost: state.lostSaves.unseen, marked: state.bulk.marked, top: top, in: layout.list,
            into: &canvas)
        if let batch = state.bulk.batch, batch.isRunning {
            BatchProgressBar.render(batch, on: layout.rule, into: &canvas)
        }
        if let divider = layout.divider {
            let symbol: Character = divider.width == 1 ? "│" : "─"
            canvas.fill(divider, symbol: symbol, style: Theme.border)
        }
        if let pane = layout.pane {
            if let editor = state.editor {
                EditorPane.render(
                    editor, viewOnly: state.accountRole == .reader, revisions: store.revisions, ui: ui, in: pane,
                    into: &canvas)
            } else if let history = state.history {
                HistoryPane.render(history, revisions: store.revisions, in: pane, into: &canvas)
            } else {
                DetailPane.render(
                    state.search.selectedBook, terms: SearchTerms(state.search.rowsQuery),
                    viewOnly: state.accountRole == .reader, revisions: store.revisions, in: pane, into: &canvas)
            }
        }
        StatusLine.render(state, ui: ui, in: layout.status, into: &canvas)
        Overlays.render(state, ui: ui, requests: requests, revisions: store.revisions, into: &canvas)
    }

    static func renderHeader(
        _ state: BookshelfState, ui: UIState, store: StoreInfo, layout: ScreenLayout, into canvas: inout Canvas
    ) {
        var text = StyledText(" Bookshelf", style: Theme.header)
        let account = state.account.map { "  \($0)" } ?? "  not connected"
        text.append(account, style: Theme.header)
        if let role = state.accountRole { text.append(" (\(role.rawValue))", style: Theme.header) }
        if state.connection.isLost {
            text.append(" · disconnected", style: Theme.header)
        } else if state.connection.isUnreachable {
            // The freshness checks go on, and the first one answered clears it.
            text.append(" · disconnected, retrying", style: Theme.header)
        } else if state.connection.refusal != nil {
            text.append(" · refused, retrying", style: Theme.header)
        }
        if let books = state.search.accountBooks {
            text.append(" · \(NumberText.grouped(books)) book\(books == 1 ? "" : "s")", style: Theme.header)
        }
        if state.bulk.markedCount > 0 {
            text.append(" · \(NumberText.grouped(state.bulk.markedCount)) marked", style: Theme.header)
        }
        text.append("  \(store.kind) \(store.location)", style: Theme.header)
        text.draw(in: &canvas, x: 0, y: layout.header.y, width: layout.columns, fill: Theme.header)
    }

    static let promptText = "Search: "

    static func renderSearchLine(_ state: BookshelfState, ui: UIState, layout: ScreenLayout, into canvas: inout Canvas)
    {
        let y = layout.search.y
        let promptWidth = canvas.draw(promptText, x: 0, y: y, style: Theme.prompt)
        let cursorX = FieldView.draw(
            state.search.line, in: &canvas, x: promptWidth, y: y,
            width: layout.columns - promptWidth, style: .plain)
        if state.editor == nil, ui.overlay == nil, state.passwordPrompt == nil, state.confirmation == nil {
            canvas.cursor = Position(x: cursorX, y: y)
        }
    }

    /// "3,010"; "10,000+" or "about 460,000" when the store stopped counting; "60+" (so far)
    /// while it is still counting. Rows listing every book are as many as the header counted
    /// (`booksOfAccount`, exact), so the rule says that number rather than an estimate of it.
    static func totalText(_ search: SearchState, booksOfAccount: Int? = nil) -> String {
        if !search.totalCount.isExact, let books = booksOfAccount, books >= search.rows.count,
            SearchTerms(search.rowsQuery).matchesEverything
        {
            return NumberText.grouped(books)
        }
        let number = NumberText.grouped(search.total)
        switch search.totalCount {
        case .exact: return number
        case .atLeast, .counting: return number + "+"
        case .about: return "about " + number
        }
    }

    static func renderRule(
        _ state: BookshelfState, top: Int, booksOfAccount: Int? = nil, layout: ScreenLayout,
        into canvas: inout Canvas
    ) {
        canvas.fill(layout.rule, symbol: "─", style: Theme.border)
        let search = state.search
        var count: String
        if search.rows.isEmpty {
            count =
                search.isBusy || search.error != nil
                ? ""
                : SearchTerms(search.query).hasNoSearchableWords ? "no searchable words" : "no matches"
        } else if layout.list.height == 0 {
            count =
                search.total == 1 && search.totalCount.isExact
                ? "1 match" : "\(totalText(search, booksOfAccount: booksOfAccount)) matches"
        } else {
            let last = min(search.rows.count, top + layout.list.height)
            count =
                "\(NumberText.grouped(top + 1))–\(NumberText.grouped(last)) of \(totalText(search, booksOfAccount: booksOfAccount))"
                // Rows that answer an older query say which one, until the current answer arrives.
                + (search.rowsAreCurrent ? "" : " for “\(TextLayout.truncate(search.rowsQuery, toWidth: 20))”")
        }
        guard !count.isEmpty else { return }
        // The page came first; its count follows (`TotalCount.counting`).
        if case .counting = search.totalCount, search.rowsAreCurrent { count += ", counting…" }
        let label = " \(count) "
        let width = TextLayout.width(label)
        canvas.draw(label, x: max(0, layout.columns - width - 1), y: layout.rule.y, style: Theme.count)
    }
}

/// The screen below the minimum size: a note saying so, or the pending question in the
/// fewest lines. A question that does not fit even so is not shown, and then its "yes" is
/// not taken (`showsQuestion`): nobody answers a question they could not read.
enum TooSmallScreen {
    static func render(_ state: BookshelfState, into canvas: inout Canvas) {
        if let confirmation = state.confirmation,
            showsQuestion(confirmation, columns: canvas.width, rows: canvas.height)
        {
            var lines = questionLines(confirmation, width: canvas.width).map { ($0, Theme.warning) }
            let note = TextWrap.lines(sizeNote(canvas), width: canvas.width)
            if lines.count + 1 + note.count <= canvas.height {
                lines += [("", Style.plain)] + note.map { ($0, Theme.hint) }
            }
            draw(lines, into: &canvas)
            return
        }
        var message = sizeNote(canvas) + " Resize it, or " + Hints.quitWhenTooSmall.text
        if state.confirmation != nil {
            message = sizeNote(canvas) + " Resize it to answer the question, or " + Hints.keepEditingAnswer.text
        }
        draw(TextWrap.lines(message, width: canvas.width).map { ($0, Theme.warning) }, into: &canvas)
    }

    /// Whether `confirmation` is drawn whole at this size.
    static func showsQuestion(_ confirmation: Confirmation, columns: Int, rows: Int) -> Bool {
        columns > 0 && questionLines(confirmation, width: columns).count <= rows
    }

    static func questionLines(_ confirmation: Confirmation, width: Int) -> [String] {
        TextWrap.lines(confirmation.question, width: width) + TextWrap.lines(answers(confirmation), width: width)
    }

    /// What y and n do for this question.
    static func answers(_ confirmation: Confirmation) -> String {
        (confirmation.waitsForSave ? Hints.afterSaveAnswers : Hints.discardAnswers).text
    }

    private static func sizeNote(_ canvas: Canvas) -> String {
        "Terminal too small: \(canvas.width)x\(canvas.height), needs \(ScreenLayout.minimumColumns)x\(ScreenLayout.minimumRows)."
    }

    private static func draw(_ lines: [(String, Style)], into canvas: inout Canvas) {
        let first = max(0, (canvas.height - lines.count) / 2)
        for (offset, (line, style)) in lines.enumerated() where first + offset < canvas.height {
            let x = max(0, (canvas.width - TextLayout.width(line)) / 2)
            canvas.draw(line, x: x, y: first + offset, style: style, maxWidth: canvas.width - x)
        }
    }
}

/// The results: one book per row, the matched parts highlighted, the selection reversed.
enum ResultList {
    /// `lost`: the books whose lost save the user has not yet seen in the list (their rows are marked).
    static func render(
        _ search: SearchState, lost: Set<Int> = [], marked: Set<Int> = [], top: Int, in area: Rect,
        into canvas: inout Canvas
    ) {
        guard area.height > 0, area.width > 0 else { return }
        if search.rows.isEmpty {
            let message: String
            let style: Style
            if let error = search.error {
                message = error
                style = Theme.error
            } else if search.isBusy {
                message = "Searching…"
                style = Theme.hint
            } else {
                message =
                    search.query.isEmpty
                    ? "The catalog is empty."
                    : SearchTerms(search.query).hasNoSearchableWords
                        ? "No books: " + SearchTerms.noSearchableWordsExplanation + "."
                        : "No books match."
                style = Theme.hint
            }
            for (offset, line) in TextWrap.lines(message, width: area.width - 2).prefix(area.height).enumerated() {
                canvas.draw(line, x: area.x + 1, y: area.y + offset, style: style, maxWidth: area.width - 1)
            }
            return
        }
        // Rows that answer an older query are dimmed and show no selection: Enter cannot open them.
        let current = search.rowsAreCurrent
        let terms = SearchTerms(current ? search.query : search.rowsQuery)
        for row in 0..<area.height {
            let index = top + row
            let y = area.y + row
            if index < search.rows.count {
                let record = search.rows[index]
                let selected = current && index == search.selection
                drawLine(
                    for: record, terms: terms, selected: selected, dimmed: !current,
                    lost: lost.contains(record.id), marked: marked.contains(record.id), in: &canvas, x: area.x, y: y,
                    width: area.width)
            } else if index == search.rows.count, search.isLoadingMore {
                canvas.draw(" Loading more…", x: area.x, y: y, style: Theme.hint, maxWidth: area.width)
            }
        }
    }

    /// " Title ………… Author ": the title gets what the author column leaves. Each column is
    /// drawn straight into its cells. A book whose save the catalog lost, while the user has not
    /// seen the list of lost saves (F6), has "!" in the margin: the row went back a revision. A
    /// marked book (for a bulk edit) has "*" there, unless it is lost.
    static func drawLine(
        for record: BookRecord, terms: SearchTerms, selected: Bool, dimmed: Bool, lost: Bool = false,
        marked: Bool = false,
        in canvas: inout Canvas, x: Int, y: Int, width: Int
    ) {
        let base = selected ? Theme.selected : dimmed ? Theme.hint : Style.plain
        let match = selected ? Theme.selectedMatch : dimmed ? Theme.hint : Theme.match
        let authorBase = selected ? Theme.selected : Theme.author
        let title =
            StyledText(lost ? "!" : marked ? "*" : " ", style: lost ? Theme.statusError : marked ? Theme.match : base)
            + StyledText.highlighted(
                record.title, ranges: terms.highlightRanges(in: record.title), base: base, highlight: match)
        guard !record.author.isEmpty, width >= 50 else {
            title.draw(in: &canvas, x: x, y: y, width: width, fill: selected ? Theme.selected : .plain)
            return
        }
        let authorWidth = min(30, width / 3)
        // A space of margin on both sides and two between the columns.
        let titleWidth = width - authorWidth - 4
        let author = StyledText.highlighted(
            record.author, ranges: terms.highlightRanges(in: record.author), base: authorBase, highlight: match)
        title.draw(in: &canvas, x: x, y: y, width: titleWidth + 1, fill: base)
        canvas.fill(Rect(x: x + titleWidth + 1, y: y, width: 2, height: 1), style: base)
        author.draw(in: &canvas, x: x + titleWidth + 3, y: y, width: authorWidth, fill: base)
        canvas.fill(Rect(x: x + width - 1, y: y, width: 1, height: 1), style: base)
    }
}

/// The selected book, read-only; Enter opens it (to view only, for a reader).
enum DetailPane {
    static func render(
        _ book: BookRecord?, terms: SearchTerms, viewOnly: Bool, revisions: RevisionStyle = .counter, in area: Rect,
        into canvas: inout Canvas
    ) {
        guard let book, area.height > 0 else { return }
        let width = area.width - 2
        var y = area.y
        let bottom = area.y + area.height
        let titleLines = TextWrap.lines(book.title, width: width)
        let titleBudget = max(1, area.height - 3)
        for (index, line) in titleLines.prefix(titleBudget).enumerated() where y < bottom {
            let cut = index == titleBudget - 1 && titleLines.count > titleBudget
            StyledText(cut ? line + " …" : line, style: Theme.label).draw(
                in: &canvas, x: area.x + 1, y: y, width: width)
            y += 1
        }
        if y < bottom, !book.author.isEmpty {
            StyledText("by " + book.author, style: Theme.author).draw(in: &canvas, x: area.x + 1, y: y, width: width)
            y += 1
        }
        if y < bottom {
            StyledText(
                "#\(book.id) · \(revisions.text(book.revision)) · Enter to \(viewOnly ? "view" : "edit")",
                style: Theme.hint
            )
            .draw(in: &canvas, x: area.x + 1, y: y, width: width)
            y += 1
        }
        for line in detailLines(book.details, terms: terms) where y < bottom {
            line.draw(in: &canvas, x: area.x + 1, y: y, width: width)
            y += 1
        }
    }

    /// The fields beyond title and author that the book has, a line each: "ISBN … · year ·
    /// publisher", the series and its index, the tags, and the notes' first line. What the
    /// query matched in the searched fields is highlighted, as in the rows, each field (each
    /// tag) on its own: a book found by its series or a tag shows why.
    static func detailLines(_ details: BookDetails, terms: SearchTerms) -> [StyledText] {
        var lines: [StyledText] = []
        func line(_ label: String, _ value: StyledText) {
            lines.append(StyledText(label + " ", style: Theme.hint) + value)
        }
        func searched(_ text: String) -> StyledText {
            StyledText.highlighted(text, ranges: terms.highlightRanges(in: text), base: .plain, highlight: Theme.match)
        }
        var facts: [StyledText] = []
        if let isbn = details.isbn {
            facts.append(StyledText("ISBN ") + StyledText(isbn, style: terms.isbn == isbn ? Theme.match : .plain))
        }
        if let year = details.year { facts.append(StyledText(String(year))) }
        if !details.publisher.isEmpty { facts.append(searched(details.publisher)) }
        if let first = facts.first {
            lines.append(facts.dropFirst().reduce(first) { $0 + StyledText(" · ") + $1 })
        }
        if !details.series.isEmpty || details.seriesIndex != nil {
            var series = searched(details.series)
            if let index = details.seriesIndex { series.append((details.series.isEmpty ? "" : " ") + "#\(index)") }
            line("Series", series)
        }
        if let firstTag = details.tags.first {
            line("Tags", details.tags.dropFirst().reduce(searched(firstTag)) { $0 + StyledText(", ") + searched($1) })
        }
        if let first = details.notes.split(separator: "\n", omittingEmptySubsequences: false).first, !first.isEmpty {
            let more = details.notes.contains("\n") ? " …" : ""
            line("Notes", StyledText(String(first) + more))
        }
        return lines
    }
}

/// A one-line text field that scrolls sideways to keep the cursor in view. Text it hides is
/// marked where it is hidden: "‹" in the first column, "›" in the last (each takes a column
/// of the field), so a scrolled line never starts in the middle of a word without a sign.
enum FieldView {
    static let hiddenBefore = "‹"
    static let hiddenAfter = "›"

    /// Draws `line` into `width` columns and returns the cursor's screen column.
    @discardableResult
    static func draw(_ line: LineEditor, in canvas: inout Canvas, x: Int, y: Int, width: Int, style: Style) -> Int {
        guard width > 0 else { return x }
        let glyphs = TextLayout.glyphs(line.text)
        let window = Window(glyphs: glyphs, cursor: line.cursor, width: width)
        canvas.fill(Rect(x: x, y: y, width: width, height: 1), style: style)
        var markerStyle = style
        markerStyle.attributes.remove(.bold)
        markerStyle = markerStyle.adding(.dim)
        if window.hidesBefore { canvas.draw(hiddenBefore, x: x, y: y, style: markerStyle) }
        if window.hidesAfter { canvas.draw(hiddenAfter, x: x + width - 1, y: y, style: markerStyle) }
        let textX = x + (window.hidesBefore ? 1 : 0)
        var column = 0
        for glyph in glyphs {
            defer { column += glyph.width }
            // Only glyphs wholly inside the window: one cut by an edge leaves a blank column.
            guard column >= window.start, column + glyph.width <= window.end else { continue }
            canvas.draw([glyph], x: textX + column - window.start, y: y, style: style, maxWidth: glyph.width)
        }
        return textX + window.cursorColumn - window.start
    }

    /// Which columns of the text a field shows. It has no memory: the cursor stays at the
    /// right edge while the text reaches past it, else the line shows from its start.
    struct Window {
        /// The shown text columns, start..<end.
        let start: Int
        let end: Int
        let hidesBefore: Bool
        let hidesAfter: Bool
        let cursorColumn: Int

        init(glyphs: [Glyph], cursor: Int, width: Int) {
            let total = glyphs.reduce(0) { $0 + $1.width }
            cursorColumn = glyphs.prefix(cursor).reduce(0) { $0 + $1.width }
            // The cursor's cell: its character, or one more column after the end.
            let cursorEnd = cursorColumn + (cursor < glyphs.count ? glyphs[cursor].width : 1)
            let needed = max(total, cursorEnd)
            if needed <= width {
                (start, end, hidesBefore, hidesAfter) = (0, width, false, false)
            } else if width < 4 {
                // No room for markers beside a wide character: the cursor's cell alone counts.
                (start, end, hidesBefore, hidesAfter) = (max(0, cursorEnd - width), max(width, cursorEnd), false, false)
            } else if cursorEnd <= width - 1 {
                // Near the start: the start shows, "›" takes the last column.
                (start, end, hidesBefore, hidesAfter) = (0, width - 1, false, true)
            } else {
                // The cursor's cell is the last one shown, after "‹" (and before "›" if more follows).
                let after = cursorEnd < needed
                let room = width - 1 - (after ? 1 : 0)
                (start, end, hidesBefore, hidesAfter) = (cursorEnd - room, cursorEnd, true, after)
            }
        }
    }
}
