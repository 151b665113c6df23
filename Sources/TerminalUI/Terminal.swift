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

    /// The most the terminal draws: a window larger than this (tmux allows 10000×10000) gets
    /// its top left drawn, this size. Every cell costs a canvas cell, a cell of the frame kept
    /// for the diff and ncurses' own grids, so an unbounded window could take all the memory
    /// for cells no screen shows (EnormousWindowTmuxTests holds the bound).
    public static let largestDrawn = TerminalSize(rows: 500, columns: 1000)

    /// This size, each side bounded by `largestDrawn`'s.
    public var drawn: TerminalSize {
        TerminalSize(rows: min(rows, Self.largestDrawn.rows), columns: min(columns, Self.largestDrawn.columns))
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

/// The program's terminal: the event loop over a `TerminalBackend`. It turns the backend's
/// input, resizes and signals into `TerminalEvent`s on the main actor, and draws `render`'s
/// canvas after every event (coalesced into one frame per turn of the main queue).
///
/// On the ncurses backend (`init(options:)`, the app's) it owns the real terminal from
/// `init` until the process ends. Lifetime guarantees (docs/terminals.md, "Suspending and leaving"):
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
/// Keys are decoded here by `InputDecoder`, not by ncurses, which knows only the sequences
/// terminfo names for TERM.
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
    /// Paints a frame. The canvas arrives blank at the current size (`size`, at most
    /// `TerminalSize.largestDrawn`).
    public var render: (inout Canvas) -> Void = { _ in }
    /// Runs when the program is about to end without being asked to by the app: a quit signal
    /// (SIGHUP when the terminal is closed, SIGTERM, SIGINT) or the terminal gone. The last
    /// moment to keep the user's unsaved work; the terminal is restored after it.
    public var beforeUnaskedExit: () -> Void = {}

    public private(set) var size: TerminalSize
    /// False on monochrome terminals and when `NO_COLOR` is set: styles keep their
    /// attributes, colours are ignored.
    public var usesColor: Bool { backend.usesColor }

    private let backend: any TerminalBackend
    private let escapeDelay: DispatchTimeInterval
    private var decoder: InputDecoder
    private var escapeTimer: (any DispatchSourceTimer)?
    private var ticker: (any DispatchSourceTimer)?
    private var drawScheduled = false
    private var suspended = false
    private var running = false

    /// Takes over the real terminal through ncurses: UTF-8 locale, raw mode, keypad, no
    /// echo, hidden cursor, alternate screen, signal handling. Nothing is drawn until
    /// `run()`/`start()`.
    public convenience init(options: Options = Options()) throws {
        try self.init(backend: NcursesBackend(options: options), options: options)
    }

    /// Runs the event loop on `backend` (a `MemoryTerminalBackend` in tests).
    public init(backend: any TerminalBackend, options: Options = Options()) {
        self.backend = backend
        decoder = InputDecoder(terminfo: backend.terminfoKeys)
        escapeDelay = .milliseconds(max(0, options.escapeDelayMilliseconds))
        size = backend.size.drawn
        backend.attach(
            TerminalBackendEvents(
                input: { [unowned self] bytes in self.receive(bytes) },
                inputClosed: { [unowned self] in self.quitUnasked(status: 128 + SIGHUP) },
                resized: { [unowned self] in self.syncSize() },
                quitSignal: { [unowned self] signo in self.quitUnasked(status: 128 + signo) },
                suspendSignal: { [unowned self] in self.suspend() },
                continued: { [unowned self] in self.continued() }))
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
        backend.startInput()
        setNeedsDraw()
    }

    /// Restores the terminal and exits; `farewell`, if any, is printed on the restored
    /// terminal (what became of work the user waited for, say).
    public func quit(status: Int32 = 0, farewell: String? = nil) -> Never {
        backend.restore()
        if let farewell { print(sanitize(farewell)) }
        exit(status)
    }

    private func quitUnasked(status: Int32) -> Never {
        beforeUnaskedExit()
        quit(status: status)
    }

    /// Asks for a frame. Any number of requests in one turn of the main queue produce
    /// one draw. Events already request one; call this when state changes for another
    /// reason (an async result arrived).
    public func setNeedsDraw() {
        guard !drawScheduled else { return }
        drawScheduled = true
        // Weak: a terminal dropped with a frame pending (a test's) just never draws it.
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
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
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.deliver(.tick) }
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

    /// Delivers every key the bytes complete (the backend reads a burst at a time: a paste,
    /// an escape sequence). Bytes that may be the start of a sequence wait for the escape delay.
    private func receive(_ bytes: [UInt8]) {
        handle(decoder.feedRead(bytes[...]))
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
        timer.schedule(
            deadline: .now() + (decoder.isInPaste ? Self.pasteTimeout : escapeDelay), leeway: .milliseconds(2))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.escapeTimer?.cancel()
                self.escapeTimer = nil
                self.handle(self.decoder.timeOut())
            }
        }
        timer.resume()
        escapeTimer = timer
    }

    /// Takes the backend's size (at most `TerminalSize.largestDrawn`); a change repaints
    /// everything and is delivered as `.resize`.
    private func syncSize() {
        let current = backend.refreshSize().drawn
        guard current != size else { return }
        size = current
        backend.invalidate()
        deliver(.resize(current))
    }

    // MARK: - Suspend and continue

    /// Leaves the screen and stops the job, like Ctrl-Z in a cooked terminal; the SIGCONT
    /// that `fg` sends brings it back (`continued()`). When nothing could continue us the
    /// backend says so and nothing happens.
    private func suspend() {
        guard !suspended else { return }
        suspended = true
        if !backend.suspend() { suspended = false }
    }

    /// SIGCONT: after our own suspend, come back; after a stop by someone else (kill
    /// -STOP) the screen may hold foreign output, so repaint it.
    private func continued() {
        if suspended {
            suspended = false
            backend.reenter()
            // The first frame after coming back puts the terminal back into program mode.
            syncSize()
            backend.invalidate()
            drawNow()
        } else {
            backend.invalidate()
            setNeedsDraw()
        }
    }
}
