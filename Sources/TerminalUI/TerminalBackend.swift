/// What a `Terminal` drives, as in ratatui: a screen that shows canvases and reports its size,
/// and a source of input bytes and lifecycle events. `Terminal` owns the event loop (key
/// decoding, the escape delay, coalesced frames, the ticker, Ctrl-Z); the backend owns the
/// device. The app runs on the ncurses backend (`Terminal(options:)`); tests run the same
/// loop on a `MemoryTerminalBackend`, without a tty.
@MainActor
public protocol TerminalBackend: AnyObject {
    /// The screen's size now.
    var size: TerminalSize { get }
    /// Whether styles may use colours (false on monochrome terminals and with `NO_COLOR`).
    var usesColor: Bool { get }
    /// The key sequences this terminal's type defines, decoded beside the built-in forms.
    var terminfoKeys: [[UInt8]: Key] { get }

    /// Called once, by `Terminal.init`: from now on the backend reports through `events`
    /// (resizes and quit signals may come before `startInput`).
    func attach(_ events: TerminalBackendEvents)
    /// Starts delivering input (`events.input`), from `Terminal.start()`.
    func startInput()
    /// Shows a frame.
    func present(_ canvas: Canvas)
    /// The next frame is drawn in full (after a resize, or when the screen may hold foreign output).
    func invalidate()
    /// Re-reads the device's size (a resize may have been signalled) and answers it.
    func refreshSize() -> TerminalSize
    /// Gives the device back as it was found (quit, suspend). Idempotent.
    func restore()
    /// Stops the program as a job after `restore()` (Ctrl-Z); `events.continued` follows when
    /// it is resumed. Answers false, doing nothing, when nothing could resume it.
    func suspend() -> Bool
    /// Takes the device again after a suspend.
    func reenter()
}

/// How a backend reports to its `Terminal`. Every callback runs on the main actor.
public struct TerminalBackendEvents {
    /// Bytes the user typed or pasted, as read.
    public var input: @MainActor ([UInt8]) -> Void
    /// The input reached its end (the terminal went away).
    public var inputClosed: @MainActor () -> Void
    /// The size may have changed (`refreshSize()` tells).
    public var resized: @MainActor () -> Void
    /// A signal asks the program to end (SIGINT, SIGTERM, SIGHUP).
    public var quitSignal: @MainActor (Int32) -> Void
    /// A signal asks the program to stop as a job (SIGTSTP), as Ctrl-Z does.
    public var suspendSignal: @MainActor () -> Void
    /// The program continued after a stop (SIGCONT).
    public var continued: @MainActor () -> Void
}
