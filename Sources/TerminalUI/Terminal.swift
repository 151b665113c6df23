import CNcurses
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

public struct TerminalSize: Hashable, Sendable {
    public var rows: Int
    public var columns: Int
    public init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
    }
}

/// Everything the app's update function receives, one at a time, on the main actor.
public enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    /// The window changed size; the next frame is already drawn at this size.
    case resize(TerminalSize)
    /// The repeating timer set with `Terminal.setTicker(every:)` fired.
    case tick
}

public enum TerminalError: Error, Equatable, Sendable {
    /// Standard input or output is not a terminal (piped, redirected).
    case notATerminal
    /// Neither the user's locale nor C.UTF-8 gives a UTF-8 character set.
    case noUTF8Locale
    /// ncurses could not set up this terminal type (unknown or unusable TERM).
    case unsupportedTerminal(String)
    /// Only one `Terminal` can own the screen.
    case alreadyActive
}

/// The program's terminal: owns ncurses from `init` until the process ends, turns
/// keys, resizes and timer ticks into `TerminalEvent`s on the main actor, and draws
/// `render`'s canvas after every event (coalesced into one frame per turn of the main
/// queue).
///
/// Lifetime guarantees (see the module README section):
/// - `quit(status:)`, SIGINT, SIGTERM and SIGHUP restore the terminal, then exit
///   (SIGxxx exits with 128 + signal number);
/// - any other `exit()` restores it from an atexit handler; a crash (SIGSEGV, SIGBUS,
///   SIGILL, SIGFPE, SIGTRAP, SIGABRT: Swift traps included) restores the tty modes
///   and screen from an async-signal-safe handler before the process dies;
/// - Ctrl-Z (and SIGTSTP) leaves curses mode and stops the job; `fg` (SIGCONT) comes
///   back and repaints everything at the current size. Ctrl-C is an ordinary key
///   (`.ctrl("c")`), the app decides what it means.
///
/// All callbacks run on the main actor, which is the main dispatch queue; after
/// `run()` that queue is served by a worker thread, so nothing here assumes the main
/// thread.
@MainActor
public final class Terminal {
    public struct Options: Sendable {
        /// Report clicks and the wheel as `.mouse` keys. Costs the terminal's own
        /// text selection (most terminals still select with Shift held).
        public var mouse: Bool
        /// How long a lone Esc waits for the rest of an escape sequence.
        public var escapeDelayMilliseconds: Int

        public init(mouse: Bool = true, escapeDelayMilliseconds: Int = 25) {
            self.mouse = mouse
            self.escapeDelayMilliseconds = escapeDelayMilliseconds
        }
    }

    /// Receives every event. Runs on the main actor; a frame is drawn afterwards.
    public var onEvent: (TerminalEvent) -> Void = { _ in }
    /// Paints a frame. The canvas arrives blank at the current size.
    public var render: (inout Canvas) -> Void = { _ in }

    public private(set) var size: TerminalSize
    /// False on monochrome terminals and when `NO_COLOR` is set: styles keep their
    /// attributes, colours are ignored.
    public let usesColor: Bool

    private static var isActive = false
    private let backend: NcursesBackend
    private let restoreSequence: String
    private var sources: [any DispatchSourceProtocol] = []
    private var ticker: (any DispatchSourceTimer)?
    private var drawScheduled = false
    private var suspended = false
    private var running = false

    /// Takes over the terminal: UTF-8 locale, raw mode, keypad, no echo, hidden cursor,
    /// alternate screen, signal handling. Nothing is drawn until `run()`/`start()`.
    public init(options: Options = Options()) throws {
        guard !Self.isActive else { throw TerminalError.alreadyActive }
        guard TerminalLocale.prepare() else { throw TerminalError.noUTF8Locale }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw TerminalError.notATerminal }

        shim_terminal_guard_save_original()
        // Ignored before ncurses starts, so it installs none of its own handlers for
        // these; dispatch sources receive them instead (a source needs the default
        // action out of the way).
        for signal in Self.handledSignals { Glibc.signal(signal, SIG_IGN) }

        guard shim_newterm() != nil else {
            throw TerminalError.unsupportedTerminal(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        let screen = shim_stdscr()
        raw()
        noecho()
        nonl()
        keypad(screen, true)
        nodelay(screen, true)
        intrflush(screen, false)
        set_escdelay(Int32(options.escapeDelayMilliseconds))
        curs_set(0)
        if options.mouse {
            mousemask(shim_button1_pressed() | shim_button1_clicked() | shim_button4_pressed() | shim_button5_pressed(), nil)
            mouseinterval(0)  // report presses at once instead of waiting to see a click
        }

        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        usesColor = has_colors() && !noColor
        if usesColor {
            start_color()
            use_default_colors()
        }
        backend = NcursesBackend(usesColor: usesColor)
        restoreSequence = Self.makeRestoreSequence(mouse: options.mouse)
        size = TerminalSize(rows: Int(shim_lines()), columns: Int(shim_cols()))
        Self.isActive = true
        shim_terminal_guard_arm(restoreSequence)
        installSignalSources()
        syncSize()
    }

    /// Starts reading input and draws the first frame, then serves the main queue
    /// forever. Call from synchronous top-level code on the main thread. Leave with
    /// `quit(status:)`.
    public func run() -> Never {
        start()
        dispatchMain()
    }

    /// Like `run()` but returns at once, for programs whose main queue is already
    /// being served (an async `main`).
    public func start() {
        guard !running else { return }
        running = true
        let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        input.setEventHandler { [unowned self] in
            MainActor.assumeIsolated { self.readPendingInput() }
        }
        input.resume()
        sources.append(input)
        setNeedsDraw()
    }

    /// Restores the terminal and exits the process.
    public func quit(status: Int32 = 0) -> Never {
        restore()
        exit(status)
    }

    /// Asks for a frame. Any number of requests in one turn of the main queue produce
    /// one draw. Events already request one; call this when state changes for another
    /// reason (an async result arrived).
    public func setNeedsDraw() {
        guard !drawScheduled else { return }
        drawScheduled = true
        DispatchQueue.main.async { [unowned self] in
            MainActor.assumeIsolated {
                self.drawScheduled = false
                self.drawNow()
            }
        }
    }

    /// Sends `.tick` every `interval` (for a spinner while something is busy);
    /// nil stops it.
    public func setTicker(every interval: Duration?) {
        ticker?.cancel()
        ticker = nil
        guard let interval, interval > .zero else { return }
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
            leeway: .milliseconds(5))
        timer.setEventHandler { [unowned self] in
            MainActor.assumeIsolated { self.deliver(.tick) }
        }
        timer.resume()
        ticker = timer
    }

    // MARK: - Events

    private func deliver(_ event: TerminalEvent) {
        guard !suspended else { return }
        onEvent(event)
        setNeedsDraw()
    }

    private func drawNow() {
        guard running, !suspended else { return }
        var canvas = Canvas(width: size.columns, height: size.rows)
        render(&canvas)
        backend.present(canvas)
    }

    /// Drains everything ncurses can decode now: the read source fires once for a
    /// burst of bytes (a paste, an escape sequence), not once per key.
    private func readPendingInput() {
        let screen = shim_stdscr()
        var sawInput = false
        while true {
            var value: wint_t = 0
            let status = wget_wch(screen, &value)
            if status == ERR { break }
            sawInput = true
            if status == KEY_CODE_YES {
                handleKeyCode(Int32(bitPattern: value))
            } else if value == 26 {
                suspend()  // Ctrl-Z: raw mode delivers it as a byte, not as SIGTSTP
            } else if let key = KeyDecoder.decode(.character(value)) {
                deliver(.key(key))
            }
        }
        if !sawInput && Self.inputHungUp() {
            // The terminal went away without a SIGHUP reaching us; never spin on EOF.
            quit(status: 128 + SIGHUP)
        }
    }

    private func handleKeyCode(_ code: Int32) {
        switch code {
        case KEY_RESIZE:
            syncSize()
        case KEY_MOUSE:
            var event = MEVENT()
            guard getmouse(&event) == OK else { return }
            let raw = RawInput.mouse(buttonState: UInt32(event.bstate), row: Int(event.y), column: Int(event.x))
            if let key = KeyDecoder.decode(raw) { deliver(.key(key)) }
        default:
            if let key = KeyDecoder.decode(.keyCode(code)) { deliver(.key(key)) }
        }
    }

    /// Brings ncurses to the kernel's window size. Called for SIGWINCH (ncurses alone
    /// notices a resize only at its next read) and for KEY_RESIZE, which resizeterm
    /// itself queues; the size check makes the second call a no-op.
    private func syncSize() {
        var rows: Int32 = 0
        var columns: Int32 = 0
        if shim_window_size(&rows, &columns) == 0, rows != shim_lines() || columns != shim_cols() {
            resizeterm(rows, columns)
        }
        let current = TerminalSize(rows: Int(shim_lines()), columns: Int(shim_cols()))
        guard current != size else { return }
        size = current
        backend.invalidate()
        deliver(.resize(current))
    }

    // MARK: - Signals, suspend, restore

    private static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT]

    private func installSignalSources() {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            addSignalSource(signal) { [unowned self] in self.quit(status: 128 + signal) }
        }
        addSignalSource(SIGWINCH) { [unowned self] in self.syncSize() }
        addSignalSource(SIGTSTP) { [unowned self] in self.suspend() }
        addSignalSource(SIGCONT) { [unowned self] in self.continued() }
    }

    private func addSignalSource(_ signal: Int32, _ action: @escaping @MainActor () -> Void) {
        let source = DispatchSource.makeSignalSource(signal: signal, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated { action() }
        }
        source.resume()
        sources.append(source)
    }

    /// Leaves curses mode and stops the job, like Ctrl-Z in a cooked terminal. Returns
    /// after the shell continues it. When nothing could continue us (we lead our own
    /// session, e.g. started directly by tmux or ssh, no job control) it does nothing.
    private func suspend() {
        guard !suspended, getpgrp() != getsid(0) else { return }
        suspended = true
        restore()
        // SIGSTOP, because our own SIGTSTP is routed to a dispatch source; the whole
        // process group stops, as it would for a terminal-generated SIGTSTP.
        kill(0, SIGSTOP)
        reenter()
    }

    /// SIGCONT: after our own suspend `reenter()` has already run; after a stop by
    /// someone else (kill -STOP) the screen may hold foreign output, so repaint it.
    private func continued() {
        if suspended {
            reenter()
        } else {
            backend.invalidate()
            setNeedsDraw()
        }
    }

    private func reenter() {
        guard suspended else { return }
        suspended = false
        shim_terminal_guard_arm(restoreSequence)
        // The first doupdate after endwin puts the terminal back into program mode.
        syncSize()
        backend.invalidate()
        drawNow()
    }

    private func restore() {
        shim_terminal_guard_disarm()
        if !isendwin() { endwin() }
    }

    private static func inputHungUp() -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) >= 0 else { return true }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// What the crash handler writes to undo curses mode, computed now because a
    /// signal handler cannot ask terminfo: leave the alternate screen, normal cursor,
    /// plain attributes, keypad off, and stop xterm mouse reporting if it was on.
    private static func makeRestoreSequence(mouse: Bool) -> String {
        var sequence = ""
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            if let value = tigetstr(capability), Int(bitPattern: value) != -1 {
                sequence += String(cString: value)
            }
        }
        if mouse, let value = tigetstr("kmous"), Int(bitPattern: value) != -1 {
            sequence += "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l"
        }
        return sequence
    }
}
