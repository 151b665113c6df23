/// A cell a backend must (re)draw.
public struct CellUpdate: Hashable, Sendable {
    public let position: Position
    public let cell: Cell
}

/// What changes between two frames, the way ratatui's `Buffer::diff` does it.
///
/// Contract: applying the updates, in order, to a screen showing `previous` yields
/// `next`, where drawing a wide glyph covers its continuation cell too. So:
/// - an update is emitted for every cell that differs, except continuation cells
///   (their lead draws them; a continuation cannot change unless its lead or the cell
///   replacing it does);
/// - with no previous frame, or a previous frame of another size, every non-continuation
///   cell is emitted (a full redraw);
/// - updates come row by row, left to right, so a wide glyph is drawn after anything it
///   replaces on its left.
public enum FrameDiff {
    public static func updates(from previous: Canvas?, to next: Canvas) -> [CellUpdate] {
        let comparable = previous.flatMap { $0.width == next.width && $0.height == next.height ? $0 : nil }
        var updates: [CellUpdate] = []
        for y in 0..<next.height {
            for x in 0..<next.width {
                let cell = next[x, y]
                if cell.isContinuation { continue }
                // An equal wide lead implies an equal continuation (Canvas invariant).
                if let comparable, comparable[x, y] == cell { continue }
                updates.append(CellUpdate(position: Position(x: x, y: y), cell: cell))
            }
        }
        return updates
    }
}

/// The test backend: applies frames through `FrameDiff`, exactly as the ncurses backend
/// does, into a text grid that tests read back as lines and styles.
public struct MemoryBackend: Sendable {
    public private(set) var screen: Canvas
    /// The updates the last `present` applied (what a real terminal would have been sent).
    public private(set) var lastUpdates: [CellUpdate] = []
    private var presented: Canvas?

    public init(width: Int, height: Int) {
        screen = Canvas(width: width, height: height)
    }

    /// Draws `canvas`, sending only what changed since the previous frame.
    public mutating func present(_ canvas: Canvas) {
        if canvas.width != screen.width || canvas.height != screen.height {
            screen = Canvas(width: canvas.width, height: canvas.height)
            presented = nil
        }
        lastUpdates = FrameDiff.updates(from: presented, to: canvas)
        for update in lastUpdates {
            screen.apply(update)
        }
        screen.cursor = canvas.cursor
        presented = canvas
    }

    /// Forgets the previous frame, so the next `present` redraws everything (what the
    /// terminal does after a resize or a resume from Ctrl-Z).
    public mutating func invalidate() { presented = nil }

    /// The screen as text, one string per row: a wide glyph appears once, its
    /// continuation cell adds nothing, so each line is `width` columns wide on screen.
    public var lines: [String] { screen.textLines() }

    public func style(x: Int, y: Int) -> Style { screen[x, y].style }
}

extension Canvas {
    /// The grid as text, one string per row (wide glyphs once, continuations skipped,
    /// trailing spaces kept so every row is `width` display columns).
    public func textLines() -> [String] {
        (0..<height).map { y in
            var line = ""
            for x in 0..<width where !self[x, y].isContinuation {
                line += self[x, y].symbol
            }
            return line
        }
    }

    /// One row as text with trailing spaces removed, for compact assertions.
    public func trimmedLine(_ y: Int) -> String {
        var line = textLines()[y]
        while line.last == " " { line.removeLast() }
        return line
    }

    /// Puts one update on this grid the way a terminal would: the cell plus, for a wide
    /// glyph, its continuation.
    mutating func apply(_ update: CellUpdate) {
        let cell = update.cell
        draw(cell.symbol, x: update.position.x, y: update.position.y, style: cell.style, maxWidth: max(1, cell.width))
    }
}
