import CommandLineOptions
import Foundation
import TerminalSafeText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress of long work with a known total, on standard error.
///
/// On a terminal: one line redrawn in place with `\r` (bar, count, percent, rate, time left),
/// at most ten times a second, so that a fast loop does not spend its time writing. Otherwise
/// (a log, a pipe): a plain line each time another tenth of the work is done, never redrawn.
///
/// Updates may come from another thread than the one that made it (a PostgreSQL worker), but
/// never two at once; the lock keeps that true if a caller ever changes.
final class ProgressDisplay: @unchecked Sendable {
    enum Form: Equatable {
        /// A terminal `columns` wide.
        case terminal(columns: Int)
        /// Plain lines for a log.
        case plain
    }

    private let label: String
    private let total: Int
    private let form: Form
    private let write: (String) -> Void
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private let lock = NSLock()
    private var lastDrawn: ContinuousClock.Instant?
    private var drawnDone = -1
    /// Plain form: the tenths already written.
    private var tenthsWritten = 0
    private var finished = false

    static let redrawInterval = Duration.milliseconds(100)

    init(label: String, total: Int, form: Form, write: @escaping (String) -> Void) {
        self.label = label
        self.total = max(0, total)
        self.form = form
        self.write = write
        started = clock.now
    }

    /// The form standard error calls for: a terminal's width when it is one, else plain lines.
    static func standardError(label: String, total: Int) -> ProgressDisplay {
        let form: Form = isatty(STDERR_FILENO) == 1 ? .terminal(columns: terminalColumns() ?? 80) : .plain
        return ProgressDisplay(label: label, total: total, form: form) {
            StandardStream.writeError($0)
        }
    }

    /// `done` items of `total` are done. Counts never go back; a smaller one is ignored.
    func update(_ done: Int) {
        lock.withLock {
            guard !finished, done > drawnDone else { return }
            switch form {
            case let .terminal(columns):
                let now = clock.now
                if done < total, let lastDrawn, now - lastDrawn < Self.redrawInterval { return }
                lastDrawn = now
                drawnDone = done
                write(
                    "\r\u{1B}[K"
                        + Self.terminalLine(
                            label: label, done: done, total: total, elapsed: now - started, columns: columns))
            case .plain:
                let tenths = total == 0 ? 10 : min(10, done * 10 / total)
                guard tenths > tenthsWritten || done == total else { return }
                tenthsWritten = tenths
                drawnDone = done
                write(Self.plainLine(label: label, done: done, total: total, elapsed: clock.now - started) + "\n")
            }
        }
    }

    /// Writes a message on a line of its own while the work goes on: on a terminal the bar's
    /// line is cleared first, and the bar is drawn again below it at the next update.
    func note(_ line: String) {
        lock.withLock {
            switch form {
            case .terminal:
                write("\r\u{1B}[K" + line + "\n")
                lastDrawn = nil
                drawnDone = -1
            case .plain: write(line + "\n")
            }
        }
    }

    /// Ends the display: a terminal line is left showing where the work stopped, and the next
    /// message starts on a line of its own.
    func finish() {
        lock.withLock {
            guard !finished else { return }
            finished = true
            if case .terminal = form, drawnDone >= 0 { write("\n") }
        }
    }

    // MARK: Text

    static func terminalLine(label: String, done: Int, total: Int, elapsed: Duration, columns: Int) -> String {
        let rate = Self.rate(done: done, elapsed: elapsed)
        var facts = "\(NumberText.grouped(done)) of \(NumberText.grouped(total))  \(percent(done, total))%"
        if let rate {
            facts += "  \(NumberText.grouped(Int(rate)))/s"
            if done < total { facts += "  " + timeText(Double(total - done) / rate) + " left" }
        }
        if done >= total { facts += "  " + timeText(elapsed.seconds) }
        // A line as wide as the terminal would wrap, and `\r` would then redraw only its end.
        let fixed = label.count + 2 + facts.count
        let barWidth = min(40, columns - 1 - fixed - 3)
        guard barWidth >= 10 else { return String("\(label): \(facts)".prefix(max(1, columns - 1))) }
        let filled = total == 0 ? barWidth : barWidth * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        return "\(label) [\(bar)] \(facts)"
    }

    static func plainLine(label: String, done: Int, total: Int, elapsed: Duration) -> String {
        var line = "\(label): \(NumberText.grouped(done)) of \(NumberText.grouped(total)) (\(percent(done, total))%)"
        if let rate = rate(done: done, elapsed: elapsed) {
            line += ", \(NumberText.grouped(Int(rate)))/s"
        }
        line += ", " + timeText(elapsed.seconds)
        return line
    }

    static func percent(_ done: Int, _ total: Int) -> Int {
        total == 0 ? 100 : min(100, done * 100 / total)
    }

    private static func rate(done: Int, elapsed: Duration) -> Double? {
        let seconds = elapsed.seconds
        return seconds >= 0.05 && done > 0 ? Double(done) / seconds : nil
    }

    /// "8 s", "3 min 05 s", "1 h 02 min".
    static func timeText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3_600 { return "\(whole / 60) min \(String(format: "%02d", whole % 60)) s" }
        return "\(whole / 3_600) h \(String(format: "%02d", whole / 60 % 60)) min"
    }

    private static func terminalColumns() -> Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
