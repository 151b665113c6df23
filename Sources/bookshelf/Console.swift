import CommandLineOptions

#if canImport(Glibc)
    import Glibc
#endif

/// Where a command's output goes. Results go to standard output (buffered, for pipes and
/// large result lists); notes, counts and errors go to standard error (and progress, through
/// `ProgressDisplay`), so `bookshelf search x | cut -f2` sees only results.
///
/// Neither stream is trusted to be there: a closed or full standard output is said once on
/// standard error (`bookshelf export: cannot write standard output: No space left on device`)
/// and makes the command fail; a closed or full standard error has nowhere to be told, so it
/// is ignored and never changes the status. A reader that went away (`| head`) is quiet.
final class Console {
    private var pending: [UInt8] = []
    /// Who speaks in the one line about a failed standard output: "bookshelf search".
    var speaker = "bookshelf"
    /// True once standard output could not be written: the command must then fail.
    private(set) var outputFailed = false
    /// Standard output was closed when the program started (`>&-`); its descriptor now holds
    /// /dev/null, which must not pass for a place the results went.
    private let standardOutputWasClosed: Bool

    init(standardOutputWasClosed: Bool = false) {
        self.standardOutputWasClosed = standardOutputWasClosed
    }

    /// Adds a line to standard output.
    func line(_ text: String) {
        line(bytes: text.utf8)
    }

    /// Adds a line of these exact bytes, valid UTF-8 or not (`export` of what a store holds).
    func line(bytes: some Collection<UInt8>) {
        guard !outputFailed else { return }
        pending.append(contentsOf: bytes)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !pending.isEmpty else { return }
        let text = pending
        pending = []
        guard !outputFailed,
            let reason = standardOutputWasClosed ? EBADF : StandardStream.write(text, to: STDOUT_FILENO)
        else { return }
        outputFailed = true
        // A reader that stopped reading wants no more, and no complaint (SIGPIPE, when it is
        // not ignored, has already ended the process quietly).
        guard reason != EPIPE else { return }
        StandardStream.writeError("\(speaker): cannot write standard output: \(StandardStream.describe(reason))\n")
    }

    /// Writes a line to standard error at once (after any results before it).
    func note(_ text: String) {
        flush()
        StandardStream.writeError(text + "\n")
    }
}
