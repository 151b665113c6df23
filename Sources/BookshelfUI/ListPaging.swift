import BookshelfModel

/// Page moves and scrolling in the result list, across page loads. The model loads rows a
/// page at a time; the list must still move by a whole page when the page it moves to is
/// not loaded yet, and a tall screen must never show blank rows while more books exist.
/// Pure decisions over the search state and the UI state; `BookshelfApp` carries them out.
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

    static func page(by delta: Int, search: SearchState, ui: UIState, height: Int) -> Move? {
        guard !search.rows.isEmpty else { return nil }
        // A page move made while an earlier one waits continues from that one's target.
        let from = ui.pendingSelection.map(\.index) ?? search.selection ?? 0
        let fromTop = ui.pendingSelection.map(\.top) ?? ui.listTop
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
