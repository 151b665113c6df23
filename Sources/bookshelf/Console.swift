import Foundation
import TerminalUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command's output goes. Results go to standard output (buffered, for pipes and
/// large result lists); notes, counts, progress and errors go to standard error, so
/// `bookshelf search x | cut -f2` sees only results.
final class Console {
    private var pending = ""
    let errorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Adds a line to standard output.
    func line(_ text: String) {
        pending += text
        pending += "\n"
        if pending.utf8.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !pending.isEmpty else { return }
        FileHandle.standardOutput.write(Data(pending.utf8))
        pending = ""
    }

    /// Writes a line to standard error at once (after any results before it).
    func note(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A progress line for long work, shown only when standard error is a terminal.
    func progress(_ label: String) -> ProgressLine? {
        errorIsTerminal ? ProgressLine(label: label) : nil
    }
}

/// One line on a terminal, rewritten in place ("Adding books: 150,000 of 1,000,000").
final class ProgressLine {
    private let label: String
    private var lastShown = 0
    private var shownAnything = false
    static let step = 50_000

    init(label: String) { self.label = label }

    func update(_ done: Int, of total: Int? = nil) {
        let finished = total == done && shownAnything
        guard done != lastShown, done - lastShown >= Self.step || finished else { return }
        lastShown = done
        shownAnything = true
        let of = total.map { " of \(NumberText.grouped($0))" } ?? ""
        write("\r\u{1B}[K\(label): \(NumberText.grouped(done))\(of)")
    }

    /// Erases the line so the next message starts on a clean one.
    func finish() {
        if shownAnything { write("\r\u{1B}[K") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
