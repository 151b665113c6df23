import BookshelfModel
import Dispatch
import TerminalUI

/// Connects a `BookshelfApp` to the real terminal: events in, frames out, one coalesced
/// redraw for any number of model changes and keys in a turn of the main queue, a fast
/// ticker only while something is busy (the spinner) and a slow one otherwise (the
/// freshness poll).
@MainActor
public final class TerminalSession {
    public static let busyTick: Duration = .milliseconds(100)
    public static let idleTick: Duration = .seconds(1)

    private let terminal: Terminal
    private let app: BookshelfApp
    private var tickInterval: Duration?
    private let beforeExit: () -> Void

    /// `beforeExit` runs just before the terminal is restored and the process exits (flush a
    /// trace file there).
    public init(terminal: Terminal, app: BookshelfApp, beforeExit: @escaping () -> Void = {}) {
        self.terminal = terminal
        self.app = app
        self.beforeExit = beforeExit
    }

    /// Starts the app on the terminal; returns at once (the main queue keeps serving it).
    /// The process ends when the user quits.
    public func start() {
        terminal.onEvent = { [unowned self] event in
            app.handle(event)
            updateTicker()
        }
        terminal.render = { [unowned self] canvas in
            app.render(into: &canvas)
            if let trace = app.trace, trace.awaitsPresentation {
                // The backend presents right after `render` returns, in this same turn.
                DispatchQueue.main.async { MainActor.assumeIsolated { trace.framePresented() } }
            }
        }
        app.onNeedsDraw = { [unowned self] in
            terminal.setNeedsDraw()
            updateTicker()
        }
        // The terminal closed under the app, or a signal ends it: the user did not discard the
        // draft, so it is kept for the next run.
        terminal.beforeUnaskedExit = { [unowned self] in app.model.keepDraftNow() }
        app.onQuit = { [unowned self] in
            beforeExit()
            terminal.quit(status: 0, farewell: app.model.state.message)
        }
        app.handle(.resize(terminal.size))
        app.start()
        updateTicker()
        terminal.start()
    }

    private func updateTicker() {
        let wanted = app.isBusy ? Self.busyTick : Self.idleTick
        guard wanted != tickInterval else { return }
        tickInterval = wanted
        terminal.setTicker(every: wanted)
    }
}
