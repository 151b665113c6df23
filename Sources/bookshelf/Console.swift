import Foundation

/// Where a command's output goes. Results go to standard output (buffered, for pipes and
/// large result lists); notes, counts and errors go to standard error (and progress, through
/// `ProgressDisplay`), so `bookshelf search x | cut -f2` sees only results.
final class Console {
    private var pending = ""

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
}

