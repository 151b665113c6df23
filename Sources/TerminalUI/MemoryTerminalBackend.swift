/// A `TerminalBackend` without a device, for tests: the test types bytes, resizes the screen,
/// stops and continues the program, and reads back every frame the event loop presented
/// (through a `MemoryBackend`, so frames are diffed exactly as on the real terminal).
@MainActor
public final class MemoryTerminalBackend: TerminalBackend {
    public private(set) var size: TerminalSize
    public let usesColor: Bool
    public let terminfoKeys: [[UInt8]: Key]
    /// What the screen shows now.
    public private(set) var screen: MemoryBackend
    public private(set) var framesPresented = 0
    public private(set) var isInputStarted = false
    /// How often the device was given back (quit, suspend).
    public private(set) var restoreCount = 0
    /// Whether `suspend()` may stop the program (as with job control).
    public var canSuspend = true
    public private(set) var isSuspended = false

    private var events: TerminalBackendEvents?
    private var frameWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(size: TerminalSize, usesColor: Bool = true, terminfoKeys: [[UInt8]: Key] = [:]) {
        self.size = size
        self.usesColor = usesColor
        self.terminfoKeys = terminfoKeys
        screen = MemoryBackend(width: size.columns, height: size.rows)
    }

    /// The screen as lines of text.
    public var lines: [String] { screen.lines }

    // MARK: Driving it, as a user and the system would

    /// Bytes as the terminal would send them for keys typed or pasted.
    public func send(_ bytes: [UInt8]) {
        precondition(isInputStarted, "input is read only after Terminal.start()")
        events?.input(bytes)
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// The window changes size (SIGWINCH).
    public func resize(to size: TerminalSize) {
        self.size = size
        events?.resized()
    }

    /// The program is continued after a stop (SIGCONT).
    public func continueProgram() {
        events?.continued()
    }

    /// Suspends until `count` frames have been presented in all.
    public func waitForFrames(_ count: Int) async {
        if framesPresented >= count { return }
        await withCheckedContinuation { frameWaiters.append((count, $0)) }
    }

    // MARK: TerminalBackend

    public func attach(_ events: TerminalBackendEvents) { self.events = events }

    public func startInput() { isInputStarted = true }

    public func present(_ canvas: Canvas) {
        screen.present(canvas)
        framesPresented += 1
        let ready = frameWaiters.filter { $0.count <= framesPresented }
        frameWaiters.removeAll { $0.count <= framesPresented }
        ready.forEach { $0.continuation.resume() }
    }

    public func invalidate() { screen.invalidate() }

    public func refreshSize() -> TerminalSize { size }

    public func restore() { restoreCount += 1 }

    public func suspend() -> Bool {
        guard canSuspend else { return false }
        restore()
        isSuspended = true
        return true
    }

    public func reenter() { isSuspended = false }
}
