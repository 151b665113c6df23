import CNcurses
import Dispatch

#if canImport(Glibc)
    import Glibc

    /// glibc's `malloc_trim`, which Swift's Glibc module does not export.
    @_silgen_name("malloc_trim")
    private func malloc_trim(_ pad: Int) -> Int32
#endif

/// The real terminal, through ncurses: owns it from `init` until the process ends (see
/// `Terminal` for the lifetime guarantees), reads standard input, turns signals into backend
/// events, and puts canvases on the screen with ncurses' wide-character API.
///
/// Two layers of diffing: `FrameDiff` limits the cells handed to ncurses to the ones
/// that changed since the last frame, and ncurses' own `doupdate` then sends the
/// terminal only the bytes needed to turn what is on screen into the new picture.
@MainActor
final class NcursesBackend: TerminalBackend {
    private var presented: Canvas?
    private var colorPairs: [ColorPairKey: Int16] = [:]
    private var cursorVisible: Bool?
    let usesColor: Bool
    /// `usesColor` for the static writers (one terminal per process).
    nonisolated(unsafe) private static var colorsEnabled = false
    let terminfoKeys: [[UInt8]: Key]

    private static var isActive = false
    private let restoreSequence: String
    /// Mouse reporting and bracketed paste: sent on start and after a suspend, undone on
    /// every way out (`leaveModes`), including the crash and atexit handlers.
    private let enterModes: String
    private let leaveModes: String
    private var events: TerminalBackendEvents?
    private var sources: [any DispatchSourceProtocol] = []

    private struct ColorPairKey: Hashable {
        let foreground: Color?
        let background: Color?
    }

    /// Takes over the terminal: UTF-8 locale, raw mode, keypad, no echo, hidden cursor,
    /// alternate screen, signal handling.
    init(options: Terminal.Options) throws {
        guard !Self.isActive else { throw TerminalError.alreadyActive }
        guard TerminalLocale.prepare() else { throw TerminalError.noUTF8Locale }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }

        shim_terminal_guard_save_original()
        // Ignored before ncurses starts, so it installs none of its own handlers for
        // these; dispatch sources receive them instead (a source needs the default
        // action out of the way).
        for signo in Self.handledSignals { signal(signo, SIG_IGN) }

        guard Self.startNcursesAtMostLargestDrawn() != nil else {
            throw TerminalError.unsupportedTerminal(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        let screen = shim_stdscr()
        raw()
        noecho()
        nonl()
        // Keypad transmit mode, so the keys send what terminfo names (which then wins over
        // the built-in forms). Input is read and decoded by `Terminal`, not by ncurses: it
        // knows only terminfo's sequences, and terminals send others.
        keypad(screen, true)
        intrflush(screen, false)
        // ncurses must not cut a frame short because input is pending: it would only be
        // finished by a later read through ncurses, which never comes.
        typeahead(-1)
        curs_set(0)
        terminfoKeys = Self.readTerminfoKeys()
        // Mouse: basic reports (1000) in SGR encoding (1006), which has no column limit.
        // Paste: bracketed (2004), so pasted text arrives marked as text.
        enterModes = (options.mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "") + "\u{1B}[?2004h"
        leaveModes = (options.mouse ? "\u{1B}[?1006l\u{1B}[?1000l" : "") + "\u{1B}[?2004l"

        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        usesColor = has_colors() && !noColor
        if usesColor {
            start_color()
            use_default_colors()
        }
        Self.colorsEnabled = usesColor
        restoreSequence = Self.makeRestoreSequence() + leaveModes
        Self.isActive = true
        shim_terminal_guard_arm(restoreSequence, leaveModes)
    }

    var size: TerminalSize { TerminalSize(rows: Int(shim_lines()), columns: Int(shim_cols())) }

    func attach(_ events: TerminalBackendEvents) {
        self.events = events
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            addSignalSource(signo) { events.quitSignal(signo) }
        }
        addSignalSource(SIGWINCH) { events.resized() }
        addSignalSource(SIGTSTP) { events.suspendSignal() }
        addSignalSource(SIGCONT) { events.continued() }
    }

    func startInput() {
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [unowned self] in
            MainActor.assumeIsolated { self.readPendingInput() }
        }
        input.resume()
        sources.append(input)
        Self.write(enterModes)
    }

    /// Brings ncurses to the kernel's window size, at most `TerminalSize.largestDrawn`: ncurses
    /// keeps grids of its own of the size it is told. Called for SIGWINCH (ncurses alone
    /// notices a resize only at its next read) and for KEY_RESIZE, which resizeterm
    /// itself queues; the size check makes the second call a no-op.
    func refreshSize() -> TerminalSize {
        if let window = Self.windowSize()?.drawn,
            window.rows != Int(shim_lines()) || window.columns != Int(shim_cols())
        {
            let shrinks = window.rows * window.columns < Int(shim_lines()) * Int(shim_cols())
            resizeterm(Int32(window.rows), Int32(window.columns))
            // The larger grids just freed go back to the system, so memory follows the window down.
            if shrinks { Self.returnFreedMemory() }
        }
        return size
    }

    /// The kernel's window size, nil when it does not say.
    private static func windowSize() -> TerminalSize? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard shim_window_size(&rows, &columns) == 0 else { return nil }
        return TerminalSize(rows: Int(rows), columns: Int(columns))
    }

    /// ncurses sizes its grids from the window when it starts; a window larger than the largest
    /// drawn is given to it as that size through LINES and COLUMNS, which ncurses prefers to the
    /// window's own (and which are taken away again once it has started).
    private static func startNcursesAtMostLargestDrawn() -> OpaquePointer? {
        guard let window = windowSize(), window != window.drawn else { return shim_newterm() }
        let drawn = window.drawn
        let names: [String] = ["LINES", "COLUMNS"]
        let kept = names.map { name in (name, getenv(name).map { String(cString: $0) }) }
        setenv("LINES", String(drawn.rows), 1)
        setenv("COLUMNS", String(drawn.columns), 1)
        defer {
            for (name, value) in kept {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return shim_newterm()
    }

    private static func returnFreedMemory() {
        #if canImport(Glibc)
            _ = malloc_trim(0)
        #endif
    }

    func restore() {
        shim_terminal_guard_disarm()
        if !isendwin() { endwin() }
        Self.write(leaveModes)
    }

    /// When nothing could continue us (we lead our own session, e.g. started directly by
    /// tmux or ssh, no job control) this does nothing.
    func suspend() -> Bool {
        guard getpgrp() != getsid(0) else { return false }
        restore()
        // SIGSTOP, because our own SIGTSTP is routed to a dispatch source; the whole
        // process group stops, as it would for a terminal-generated SIGTSTP. The stop can
        // take effect after kill returns (another thread takes the signal), so coming back
        // waits for SIGCONT instead of following on here: the terminal modes must not be
        // switched on again before the shell has the terminal.
        kill(0, SIGSTOP)
        return true
    }

    func reenter() {
        shim_terminal_guard_arm(restoreSequence, leaveModes)
        Self.write(enterModes)
        keypad(shim_stdscr(), true)  // endwin left keypad transmit mode
    }

    /// Reads what the terminal sent (the read source fires once for a burst of bytes: a
    /// paste, an escape sequence).
    private func readPendingInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
            // The terminal went away without a SIGHUP reaching us; never spin on EOF.
            events?.inputClosed()
            return
        }
        guard count > 0 else { return }
        events?.input(Array(buffer.prefix(count)))
    }

    private static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT]

    private func addSignalSource(_ signo: Int32, _ action: @escaping @MainActor () -> Void) {
        let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated { action() }
        }
        source.resume()
        sources.append(source)
    }

    /// The key sequences the terminal type's terminfo entry defines.
    private static func readTerminfoKeys() -> [[UInt8]: Key] {
        var capabilities: [(String, Key)] = [
            ("kcuu1", .up), ("kcud1", .down), ("kcub1", .left), ("kcuf1", .right),
            ("khome", .home), ("kend", .end), ("kich1", .insert), ("kdch1", .delete),
            ("kpp", .pageUp), ("knp", .pageDown), ("kcbt", .backTab), ("kent", .enter),
            // vt220-style entries name the editing pad's keys Find and Select.
            ("kfnd", .home), ("kslt", .end),
        ]
        capabilities += (1...12).map { ("kf\($0)", .function($0)) }
        var keys: [[UInt8]: Key] = [:]
        for (name, key) in capabilities {
            guard let value = tigetstr(name), Int(bitPattern: value) != -1, Int(bitPattern: value) != 0 else {
                continue
            }
            let sequence = Array(String(cString: value).utf8)
            if keys[sequence] == nil { keys[sequence] = key }
        }
        return keys
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// What the crash handler writes to undo curses mode, computed now because a
    /// signal handler cannot ask terminfo: leave the alternate screen, normal cursor,
    /// plain attributes, keypad off (the caller adds mouse and paste modes off).
    private static func makeRestoreSequence() -> String {
        var sequence = ""
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = tigetstr(capability), Int(bitPattern: value) != -1, Int(bitPattern: value) != 0 {
                sequence += String(cString: value)
            }
        }
        return sequence
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
        let updates = FrameDiff.updates(from: presented, to: canvas)
        for row in Self.rowsToRepaint(from: presented, updates: updates) {
            wredrawln(screen, Int32(row), 1)
        }
        for update in updates {
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
        Self.write(Self.clustersBeyondCurses(in: canvas))
    }

    /// The rows ncurses must write whole this frame: those that change and held a cluster
    /// written beside ncurses. ncurses believes blanks are there, so a blank put where the
    /// cluster was would look unchanged to it and the cluster would stay on the terminal.
    nonisolated static func rowsToRepaint(from presented: Canvas?, updates: [CellUpdate]) -> [Int] {
        guard let presented else { return [] }
        let changed = Set(updates.map(\.position.y)).filter { $0 < presented.height }
        return changed.sorted().filter { y in
            (0..<presented.width).contains { x in
                let cell = presented[x, y]
                return !cell.isContinuation && cursesCharacters(cell) == nil
            }
        }
    }

    /// The clusters a `cchar_t` cannot hold (a flag, a ZWJ family, a spacing vowel sign),
    /// which ncurses was given as blanks of their width, written whole over those blanks:
    /// cursor saved, each placed and styled, cursor and attributes restored, so ncurses'
    /// idea of the screen and the cursor stays true. All of them are written after every
    /// frame, because ncurses may clear the blanks it holds (an erase to end of line).
    nonisolated static func clustersBeyondCurses(in canvas: Canvas) -> String {
        var output = ""
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let cell = canvas[x, y]
                guard !cell.isContinuation, cursesCharacters(cell) == nil else { continue }
                output += "\u{1B}[\(y + 1);\(x + 1)H" + selectGraphicRendition(cell.style) + cell.symbol
            }
        }
        return output.isEmpty ? "" : "\u{1B}7" + output + "\u{1B}[0m\u{1B}8"
    }

    private nonisolated static func selectGraphicRendition(_ style: Style) -> String {
        var codes = ["0"]
        if style.attributes.contains(.bold) { codes.append("1") }
        if style.attributes.contains(.dim) { codes.append("2") }
        if style.attributes.contains(.underline) { codes.append("4") }
        if style.attributes.contains(.reverse) { codes.append("7") }
        if let foreground = style.foreground, colorsEnabled { codes.append(String(30 + foreground.rawValue)) }
        if let background = style.background, colorsEnabled { codes.append(String(40 + background.rawValue)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func setCursorVisible(_ visible: Bool) {
        guard cursorVisible != visible else { return }
        cursorVisible = visible
        curs_set(visible ? 1 : 0)
    }

    private func draw(_ cell: Cell, x: Int, y: Int, on screen: UnsafeMutablePointer<WINDOW>?) {
        let pair = colorPair(for: cell.style)
        let attributes = attributes(for: cell.style)
        func add(_ characters: [wchar_t], x: Int) {
            var characters = characters
            var character = cchar_t()
            setcchar(&character, &characters, attributes, pair, nil)
            // The bottom-right cell reports ERR (the cursor cannot advance past it) but is
            // drawn all the same.
            _ = mvwadd_wch(screen, Int32(y), Int32(x), &character)
        }
        if let characters = Self.cursesCharacters(cell) {
            add(characters, x: x)
        } else {
            // A cluster ncurses cannot hold is held as one blank per column, overwritten after
            // the frame (`clustersBeyondCurses`).
            for column in x..<(x + max(1, cell.width)) { add([32, 0], x: column) }
        }
    }

    /// The cell as ncurses holds it: a spacing character of the cell's width followed by at
    /// most CCHARW_MAX - 1 (4) non-spacing ones, and a terminating 0. Nil when the cluster is
    /// not of that form (a second spacing scalar, too many marks, an emoji sequence whose
    /// first scalar alone has another width): it is then written whole beside ncurses.
    nonisolated static func cursesCharacters(_ cell: Cell) -> [wchar_t]? {
        TerminalLocale.prepare()
        var result: [wchar_t] = []
        for scalar in cell.symbol.unicodeScalars {
            let value = wchar_t(bitPattern: scalar.value)
            let width = wcwidth(value)
            if result.isEmpty {
                guard Int(width) == cell.width else { return nil }
            } else if width != 0 || result.count >= Int(CCHARW_MAX) {
                return nil
            }
            result.append(value)
        }
        if result.isEmpty { return nil }
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
