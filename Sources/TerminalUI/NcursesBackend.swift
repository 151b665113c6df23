import CNcurses

/// Puts canvases on the real terminal through ncurses' wide-character API.
///
/// Two layers of diffing: `FrameDiff` limits the cells handed to ncurses to the ones
/// that changed since the last frame, and ncurses' own `doupdate` then sends the
/// terminal only the bytes needed to turn what is on screen into the new picture.
@MainActor
final class NcursesBackend {
    private var presented: Canvas?
    private var colorPairs: [ColorPairKey: Int16] = [:]
    private var cursorVisible: Bool?
    let usesColor: Bool

    private struct ColorPairKey: Hashable {
        let foreground: Color?
        let background: Color?
    }

    init(usesColor: Bool) {
        self.usesColor = usesColor
    }

    /// The next frame is drawn in full and the terminal repainted from scratch (after a
    /// resize, or a resume from Ctrl-Z when the screen holds someone else's output).
    func invalidate() {
        presented = nil
        clearok(shim_stdscr(), true)
    }

    func present(_ canvas: Canvas) {
        let screen = shim_stdscr()
        if let presented, presented.width != canvas.width || presented.height != canvas.height {
            werase(screen)
        }
        for update in FrameDiff.updates(from: presented, to: canvas) {
            draw(update.cell, x: update.position.x, y: update.position.y, on: screen)
        }
        presented = canvas
        if let cursor = canvas.cursor, canvas.contains(x: cursor.x, y: cursor.y) {
            setCursorVisible(true)
            wmove(screen, Int32(cursor.y), Int32(cursor.x))
        } else {
            setCursorVisible(false)
        }
        wnoutrefresh(screen)
        doupdate()
    }

    private func setCursorVisible(_ visible: Bool) {
        guard cursorVisible != visible else { return }
        cursorVisible = visible
        curs_set(visible ? 1 : 0)
    }

    private func draw(_ cell: Cell, x: Int, y: Int, on screen: UnsafeMutablePointer<WINDOW>?) {
        var characters = Self.cursesCharacters(cell.symbol)
        var character = cchar_t()
        let pair = colorPair(for: cell.style)
        setcchar(&character, &characters, attributes(for: cell.style), pair, nil)
        // The bottom-right cell reports ERR (the cursor cannot advance past it) but is
        // drawn all the same.
        _ = mvwadd_wch(screen, Int32(y), Int32(x), &character)
    }

    /// ncurses stores a spacing character followed by at most CCHARW_MAX - 1
    /// non-spacing ones; a longer cluster (a ZWJ emoji sequence) keeps its first
    /// scalar and the zero-width ones directly after it. Width was fixed by the canvas
    /// from the first scalar, so the terminal's cell count is unaffected.
    static func cursesCharacters(_ symbol: String) -> [wchar_t] {
        var result: [wchar_t] = []
        for scalar in symbol.unicodeScalars {
            let value = wchar_t(bitPattern: scalar.value)
            if result.isEmpty {
                result.append(value)
            } else if wcwidth(value) == 0 && result.count < Int(CCHARW_MAX) - 1 {
                result.append(value)
            } else {
                break
            }
        }
        if result.isEmpty { result.append(wchar_t(32)) }
        result.append(0)
        return result
    }

    private func attributes(for style: Style) -> attr_t {
        var result = shim_a_normal()
        if style.attributes.contains(.bold) { result |= shim_a_bold() }
        if style.attributes.contains(.dim) { result |= shim_a_dim() }
        if style.attributes.contains(.reverse) { result |= shim_a_reverse() }
        if style.attributes.contains(.underline) { result |= shim_a_underline() }
        return result
    }

    /// Pairs are allocated on first use; 9 × 9 combinations (8 colours and the default)
    /// fit in any colour terminal's pair table except the tiniest, where later
    /// combinations fall back to the default colours.
    private func colorPair(for style: Style) -> Int16 {
        guard usesColor, style.foreground != nil || style.background != nil else { return 0 }
        let key = ColorPairKey(foreground: style.foreground, background: style.background)
        if let pair = colorPairs[key] { return pair }
        let next = colorPairs.count + 1
        guard next < Int(shim_color_pairs()), next <= Int(Int16.max) else { return 0 }
        let pair = Int16(next)
        init_pair(pair, Int16(style.foreground?.rawValue ?? -1), Int16(style.background?.rawValue ?? -1))
        colorPairs[key] = pair
        return pair
    }
}
