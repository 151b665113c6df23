/// How many result rows the screen shows, as the UI lays it out: given to the model when the
/// app starts and on every resize (`setListHeights`), so that paging is decided here, from the
/// selection and the view, and the UI never calls back after a change.
public struct ListHeights: Equatable, Sendable {
    /// The list's height while only the search is on screen.
    public var browsing: Int
    /// Its height while the editor or the history is open (0 where the pane takes its place).
    public var withPaneOpen: Int

    public init(browsing: Int, withPaneOpen: Int) {
        self.browsing = browsing
        self.withPaneOpen = withPaneOpen
    }
}

/// A page move that reaches past the loaded rows: the row to select once they are loaded, for
/// the query it was made in (see `ListPaging`).
public struct PendingSelection: Equatable, Sendable {
    public var index: Int
    public var query: String
    /// The first row to show once `index` is selected (the view moved by the page too).
    public var top: Int
}

/// The result list as the screen shows it: its heights, the first row shown, a page move
/// waiting for rows. The search's, so that paging has one owner.
struct ResultListView {
    /// Nil until the UI gives them: a model with no screen pages only by the selection.
    var heights: ListHeights?
    var top = 0
    var pending: PendingSelection?

    func height(paneIsOpen: Bool) -> Int {
        guard let heights else { return 0 }
        return paneIsOpen ? heights.withPaneOpen : heights.browsing
    }
}

/// Which rows of a list are visible: the window moves only as far as needed to keep the
/// selection in view, so the list does not jump while the user walks through it.
public enum ListViewport {
    public static func top(current: Int, selection: Int?, count: Int, height: Int) -> Int {
        guard height > 0, count > height else { return 0 }
        var top = current
        if let selection {
            if selection < top { top = selection }
            if selection >= top + height { top = selection - height + 1 }
        }
        return min(max(0, top), count - height)
    }
}

/// Page moves and scrolling in the result list, across page loads. The model loads rows a
/// page at a time; the list must still move by a whole page when the page it moves to is
/// not loaded yet, and a tall screen must never show blank rows while more books exist.
/// Pure decisions over the search state and the list's view; the search carries them out.
enum ListPaging {
    /// What to do for a page move of `delta` rows (negative: up) on a list of `height` rows.
    struct Move: Equatable {
        /// The row to select now.
        var select: Int
        /// The first row to show now.
        var top: Int
        /// The row to select once more rows are loaded, when the target is past them.
        var pending: PendingSelection?
    }

    static func page(by delta: Int, search: SearchState, view: ResultListView, height: Int) -> Move? {
        guard !search.rows.isEmpty else { return nil }
        // A page move made while an earlier one waits continues from that one's target.
        let from = view.pending.map(\.index) ?? search.selection ?? 0
        let fromTop = view.pending.map(\.top) ?? view.top
        let target = max(0, min(from + delta, max(0, search.total - 1)))
        let loaded = search.rows.count
        let top = max(0, min(fromTop + (target - from), search.total - height))
        // The view waits for rows too: until they come it cannot show the page it moved to.
        if target < loaded && (top + height <= loaded || loaded >= search.total) {
            return Move(select: target, top: top, pending: nil)
        }
        return Move(
            select: min(target, loaded - 1), top: top,
            pending: PendingSelection(index: target, query: search.query, top: top))
    }

    /// The row to select now that rows arrived for a pending move, or nil to keep waiting;
    /// `drop` says the pending move no longer applies (another query, or nothing more comes).
    static func resolve(_ pending: PendingSelection, search: SearchState, height: Int) -> (select: Int?, drop: Bool) {
        guard pending.query == search.query, !search.rows.isEmpty else { return (nil, true) }
        let loaded = search.rows.count
        let nothingMoreComes =
            loaded >= search.total || (!search.isLoadingMore && !search.isBusy && search.error != nil)
        if (pending.index < loaded && loaded >= pending.top + height) || nothingMoreComes {
            return (min(pending.index, loaded - 1), true)
        }
        return (nil, false)
    }

    /// True when the list shows blank rows although the store has more books.
    static func needsRowsToFill(search: SearchState, top: Int, height: Int) -> Bool {
        height > 0 && !search.isBusy && search.error == nil && search.rows.count < search.total
            && search.rows.count < top + height
    }

    /// The wheel scrolls the view by `delta` rows; the selection moves only as far as needed
    /// to stay in view. Returns the new top and the row to select.
    static func scroll(by delta: Int, search: SearchState, top: Int, height: Int) -> (top: Int, select: Int)? {
        guard !search.rows.isEmpty, height > 0 else { return nil }
        let newTop = max(0, min(top + delta, max(0, search.rows.count - height)))
        let selection = search.selection ?? 0
        return (newTop, min(max(selection, newTop), newTop + height - 1, search.rows.count - 1))
    }
}

extension BookshelfModel {
    /// The list's heights as the screen lays it out (at start and on every resize).
    public func setListHeights(_ heights: ListHeights) {
        guard heights != searchPart.listView.heights else { return }
        searchPart.listView.heights = heights
        changed()
    }

    /// The rows the list shows now: the editor or the history may take its place.
    var listHeight: Int { searchPart.listView.height(paneIsOpen: paneIsOpen) }

    /// PgUp/PgDn: the selection and the view move by `pages` whole pages, also past the loaded
    /// rows (the move then waits for them).
    public func movePage(by pages: Int) {
        let height = listHeight
        guard
            let move = ListPaging.page(
                by: pages * max(1, height), search: searchState, view: searchPart.listView, height: height)
        else { return }
        defer { changed() }
        searchPart.listView.pending = move.pending
        searchPart.listView.top = move.top
        select(index: move.select)
        if move.pending != nil { loadMore() }
    }

    /// The wheel scrolls the view, as list views do; the selection stays unless it would leave it.
    public func scrollList(by delta: Int) {
        let height = listHeight
        let search = searchState
        let top = ListViewport.top(
            current: searchPart.listView.top, selection: search.selection, count: search.rows.count, height: height)
        guard let scrolled = ListPaging.scroll(by: delta, search: search, top: top, height: height) else { return }
        defer { changed() }
        searchPart.listView.pending = nil
        searchPart.listView.top = scrolled.top
        if scrolled.select != search.selection { select(index: scrolled.select) }
        if scrolled.top + height >= search.rows.count { loadMore() }
    }

    /// After every change: finishes a page move that waited for rows, loads rows while the
    /// list shows blanks, and keeps the view on the selection. Decided here, from the state
    /// and the heights the UI gave, so that the UI has nothing to call back.
    func followPaging() {
        guard searchPart.listView.heights != nil, !searchPart.isFollowingPaging else { return }
        searchPart.isFollowingPaging = true
        defer { searchPart.isFollowingPaging = false }
        let height = listHeight
        let search = searchState
        if let pending = searchPart.listView.pending {
            let (select, drop) = ListPaging.resolve(pending, search: search, height: height)
            if drop { searchPart.listView.pending = nil }
            if let select {
                searchPart.listView.top = pending.top
                self.select(index: select)
            } else if !drop {
                loadMore()
            }
        }
        if !editorIsOpen || height > 0 {
            let top = ListViewport.top(
                current: searchPart.listView.top, selection: search.selection, count: search.rows.count, height: height)
            if ListPaging.needsRowsToFill(search: searchState, top: top, height: height) { loadMore() }
        }
        searchPart.listView.top = ListViewport.top(
            current: searchPart.listView.top, selection: searchPart.selection, count: searchPart.rows.count,
            height: height)
    }
}
