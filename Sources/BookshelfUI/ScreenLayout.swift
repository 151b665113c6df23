import TerminalUI

/// Where each part of the screen goes at a given size. Pure, so the renderer and the key
/// handler (a click, a page jump) agree on it.
///
/// ```
/// row 0        header: account, store, catalog size
/// row 1        search line
/// row 2        rule with the match count
/// rows 3...    results list | detail or editor pane (side by side when wide,
///              the pane below or instead of the list when narrow)
/// last row     status: spinner, errors, key hints
/// ```
public struct ScreenLayout: Equatable, Sendable {
    public static let minimumColumns = 40
    public static let minimumRows = 10
    /// From this width on, the pane sits beside the list.
    public static let sideBySideColumns = 96

    public let columns: Int
    public let rows: Int
    public let header: Rect
    public let search: Rect
    public let rule: Rect
    /// Empty when the editor or history takes the whole main area on a narrow screen.
    public let list: Rect
    /// The detail or editor pane, nil when there is no room for it.
    public let pane: Rect?
    /// A vertical or horizontal line between list and pane.
    public let divider: Rect?
    public let status: Rect

    public var isTooSmall: Bool { columns < Self.minimumColumns || rows < Self.minimumRows }

    /// `paneIsModal`: the editor or the history view is open, so on a narrow screen the pane
    /// takes the main area instead of the list.
    public init(columns: Int, rows: Int, paneIsModal: Bool) {
        self.columns = columns
        self.rows = rows
        header = Rect(x: 0, y: 0, width: columns, height: 1)
        search = Rect(x: 0, y: 1, width: columns, height: 1)
        rule = Rect(x: 0, y: 2, width: columns, height: 1)
        status = Rect(x: 0, y: max(0, rows - 1), width: columns, height: 1)
        let mainTop = 3
        let mainHeight = max(0, rows - 1 - mainTop)
        if columns >= Self.sideBySideColumns {
            let paneWidth = min(64, max(36, columns * 2 / 5))
            let listWidth = columns - paneWidth - 1
            list = Rect(x: 0, y: mainTop, width: listWidth, height: mainHeight)
            divider = Rect(x: listWidth, y: mainTop, width: 1, height: mainHeight)
            pane = Rect(x: listWidth + 1, y: mainTop, width: paneWidth, height: mainHeight)
        } else if paneIsModal {
            list = Rect(x: 0, y: mainTop, width: columns, height: 0)
            divider = nil
            pane = Rect(x: 0, y: mainTop, width: columns, height: mainHeight)
        } else if mainHeight >= 13 {
            let paneHeight = 4
            let listHeight = mainHeight - paneHeight - 1
            list = Rect(x: 0, y: mainTop, width: columns, height: listHeight)
            divider = Rect(x: 0, y: mainTop + listHeight, width: columns, height: 1)
            pane = Rect(x: 0, y: mainTop + listHeight + 1, width: columns, height: paneHeight)
        } else {
            list = Rect(x: 0, y: mainTop, width: columns, height: mainHeight)
            divider = nil
            pane = nil
        }
    }

    /// How many results to ask the store for at once on a terminal of `rows` rows: a screen
    /// and the next page down, never fewer than the model's default, so one answer fills
    /// even a 60-row list.
    public static func pageSize(forRows rows: Int) -> Int { max(50, 2 * rows) }

    /// The result index shown at screen row `y`, if `y` is a list row.
    public func resultIndex(atRow y: Int, column x: Int, top: Int) -> Int? {
        guard y >= list.y, y < list.y + list.height, x >= list.x, x < list.x + list.width else { return nil }
        return top + (y - list.y)
    }
}
