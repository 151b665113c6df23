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
/// Lifetime guarantees (README, "Terminal behaviour"):
/// - `quit(status:)`, SIGINT, SIGTERM and SIGHUP restore the terminal, then exit
///   (SIGxxx exits with 128 + signal number);
/// - any other `exit()` restores it from an atexit handler; a crash (SIGSEGV, SIGBUS,
///   SIGILL, SIGFPE, SIGTRAP, SIGABRT: Swift traps included) restores the tty modes
///   and screen from an async-signal-safe handler before the process dies;
/// - Ctrl-Z (and SIGTSTP) leaves curses mode and stops the job; `fg` (SIGCONT) comes
///   back and repaints everything at the current size. Ctrl-C is an ordinary key
///   (`.ctrl("c")`), the app decides what it means;
/// - every one of these ways out (and Ctrl-Z) switches mouse reporting and bracketed paste
///   off again; `fg` switches them back on.
///
/// Keys are read from standard input and decoded by `InputDecoder`, not by ncurses, which
/// knows only the sequences terminfo names for TERM.
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
        /// How long a lone Esc waits for the rest of an escape sequence. The default is
        /// 25 ms, or `ESCDELAY` from the environment (as ncurses reads it) when set.
        public var escapeDelayMilliseconds: Int

        public init(mouse: Bool = true, escapeDelayMilliseconds: Int = Options.environmentEscapeDelay ?? 25) {
            self.mouse = mouse
            self.escapeDelayMilliseconds = escapeDelayMilliseconds
        }

        /// `ESCDELAY` in milliseconds, if set to a sensible number.
        public static var environmentEscapeDelay: Int? {
            guard let text = getenv("ESCDELAY").map({ String(cString: $0) }), let value = Int(text),
                  (0...10_000).contains(value)
            else { return nil }
            return value
        }
    }

    /// How long the rest of a bracketed paste may take to arrive before what came is
    /// delivered anyway (a terminal that never sends the end marker must not swallow input).
    static let pasteTimeout: DispatchTimeInterval = .milliseconds(500)

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
    /// Mouse reporting and bracketed paste: sent on start and after a suspend, undone on
    /// every way out (`leaveModes`), including the crash and atexit handlers.
    private let enterModes: String
    private let leaveModes: String
    private let escapeDelay: DispatchTimeInterval
    private var decoder: InputDecoder
    private var escapeTimer: (any DispatchSourceTimer)?
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
        for signo in Self.handledSignals { signal(signo, SIG_IGN) }

        guard shim_newterm() != nil else {
            throw TerminalError.unsupportedTerminal(getenv("TERM").map { String(cString: $0) } ?? "")
        }
        let screen = shim_stdscr()
        raw()
        noecho()
        nonl()
        // Keypad transmit mode, so the keys send what terminfo names (which then wins over
        // the built-in forms). Input is read and decoded here, not by ncurses: it knows
        // only terminfo's sequences, and terminals send others.
        keypad(screen, true)
        intrflush(screen, false)
        // ncurses must not cut a frame short because input is pending: it would only be
        // finished by a later read through ncurses, which never comes.
        typeahead(-1)
        curs_set(0)
        decoder = InputDecoder(terminfo: Self.terminfoKeys())
        escapeDelay = .milliseconds(max(0, options.escapeDelayMilliseconds))
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
        backend = NcursesBackend(usesColor: usesColor)
        restoreSequence = Self.makeRestoreSequence() + leaveModes
        size = TerminalSize(rows: Int(shim_lines()), columns: Int(shim_cols()))
        Self.isActive = true
        shim_terminal_guard_arm(restoreSequence, leaveModes)
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
        Self.write(enterModes)
        setNeedsDraw()
    }

    /// Restores the terminal and exits the process.
    /// Restores the terminal and exits; `farewell`, if any, is printed on the restored
    /// terminal (what became of work the user waited for, say).
    public func quit(status: Int32 = 0, farewell: String? = nil) -> Never {
        restore()
        if let farewell { print(sanitize(farewell)) }
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

    /// Reads what the terminal sent (the read source fires once for a burst of bytes: a
    /// paste, an escape sequence) and delivers every key it completes. Bytes that may be
    /// the start of a sequence wait for the escape delay.
    private func readPendingInput() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
            // The terminal went away without a SIGHUP reaching us; never spin on EOF.
            quit(status: 128 + SIGHUP)
        }
        guard count > 0 else { return }
        handle(decoder.feed(buffer.prefix(count)))
        scheduleEscapeTimeout()
    }

    private func handle(_ keys: [Key]) {
        for key in keys {
            if key == .ctrl("z") {
                suspend()  // raw mode delivers Ctrl-Z as a byte, not as SIGTSTP
            } else {
                deliver(.key(key))
            }
        }
    }

    /// Settles held-back bytes (a lone Esc) once nothing more arrived in time; any new
    /// input restarts the wait.
    private func scheduleEscapeTimeout() {
        escapeTimer?.cancel()
        escapeTimer = nil
        guard decoder.isWaiting else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + (decoder.isInPaste ? Self.pasteTimeout : escapeDelay), leeway: .milliseconds(2))
        timer.setEventHandler { [unowned self] in
            MainActor.assumeIsolated {
                self.escapeTimer?.cancel()
                self.escapeTimer = nil
                self.handle(self.decoder.timeOut())
            }
        }
        timer.resume()
        escapeTimer = timer
    }

    /// The key sequences the terminal type's terminfo entry defines.
    private static func terminfoKeys() -> [[UInt8]: Key] {
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
            guard let value = tigetstr(name), Int(bitPattern: value) != -1, Int(bitPattern: value) != 0 else { continue }
            let sequence = Array(String(cString: value).utf8)
            if keys[sequence] == nil { keys[sequence] = key }
        }
        return keys
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
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
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            addSignalSource(signo) { [unowned self] in self.quit(status: 128 + signo) }
        }
        addSignalSource(SIGWINCH) { [unowned self] in self.syncSize() }
        addSignalSource(SIGTSTP) { [unowned self] in self.suspend() }
        addSignalSource(SIGCONT) { [unowned self] in self.continued() }
    }

    private func addSignalSource(_ signo: Int32, _ action: @escaping @MainActor () -> Void) {
        let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated { action() }
        }
        source.resume()
        sources.append(source)
    }

    /// Leaves curses mode and stops the job, like Ctrl-Z in a cooked terminal; the
    /// SIGCONT that `fg` sends brings it back (`continued()`). When nothing could continue
    /// us (we lead our own session, e.g. started directly by tmux or ssh, no job control)
    /// it does nothing.
    private func suspend() {
        guard !suspended, getpgrp() != getsid(0) else { return }
        suspended = true
        restore()
        // SIGSTOP, because our own SIGTSTP is routed to a dispatch source; the whole
        // process group stops, as it would for a terminal-generated SIGTSTP. The stop can
        // take effect after kill returns (another thread takes the signal), so coming back
        // waits for SIGCONT instead of following on here: the terminal modes must not be
        // switched on again before the shell has the terminal.
        kill(0, SIGSTOP)
    }

    /// SIGCONT: after our own suspend, come back; after a stop by someone else (kill
    /// -STOP) the screen may hold foreign output, so repaint it.
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
        shim_terminal_guard_arm(restoreSequence, leaveModes)
        Self.write(enterModes)
        keypad(shim_stdscr(), true)  // endwin left keypad transmit mode
        // The first doupdate after endwin puts the terminal back into program mode.
        syncSize()
        backend.invalidate()
        drawNow()
    }

    private func restore() {
        shim_terminal_guard_disarm()
        if !isendwin() { endwin() }
        Self.write(leaveModes)
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
}
