import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The real `bookshelf` binary in a real terminal: a tmux server on a private socket (never
/// the user's), driven with `send-keys` and read back with `capture-pane`. Waiting is polling
/// the pane for expected text with a generous deadline; the app is another process, so there
/// is nothing in-process to synchronise on.
public final class TmuxPane {
    public static let tmux: String? = ChildProcess.onPath("tmux")

    /// True when tmux tests can run; with `CI` set a missing tmux is a failure, not a skip.
    public static var shouldRun: Bool { tmux != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    public let socket = "bookshelf-test-\(getpid())-\(UUID().uuidString.prefix(8))"
    private let tmux: String

    /// Starts `command` (run by `sh -c`) in a detached session of `columns` x `rows`.
    public init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
        guard let tmux = Self.tmux else {
            throw ChildProcessFailure("tmux is required for the interactive tests (CI is set)")
        }
        self.tmux = tmux
        // -u: UTF-8 whatever the test's locale; -f /dev/null: no user configuration.
        try run([
            "-u", "-f", "/dev/null", "new-session", "-d", "-s", "app", "-x", "\(columns)", "-y", "\(rows)", command,
        ])
        try run(["set-option", "-t", "app", "status", "off"])
    }

    deinit { kill() }

    public func kill() {
        _ = try? run(["kill-server"], check: false)
    }

    /// Keys by tmux name ("Enter", "C-q", "Down") or, with `literally`, text typed as is.
    public func send(_ keys: String..., literally: Bool = false) throws {
        try run(["send-keys", "-t", "app"] + (literally ? ["-l"] : []) + keys)
    }

    public func type(_ text: String) throws { try send(text, literally: true) }

    /// Pastes `text` as a terminal would: tmux wraps it in bracketed-paste markers when the
    /// program asked for them (and turns each LF into CR, as a terminal's paste does).
    public func paste(_ text: String) throws {
        try run(["set-buffer", "--", text])
        try run(["paste-buffer", "-p", "-t", "app"])
    }

    public func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", "app", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// A tmux format of the pane, e.g. `#{alternate_on}` or `#{mouse_any_flag}`.
    public func format(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "app", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The screen, or only its `rows` (from 0): a pane of thousands of rows is read a few at a time.
    public func capture(rows: ClosedRange<Int>? = nil) throws -> String {
        try run(
            ["capture-pane", "-p", "-t", "app"]
                + (rows.map { ["-S", "\($0.lowerBound)", "-E", "\($0.upperBound)"] } ?? []))
    }

    /// Polls the pane (or its `rows`) until `condition` holds on a settled screen; returns that
    /// screen. When the timeout (stretched under a sanitizer) passes, the error shows the last
    /// screen.
    ///
    /// Settled means the same in two captures one poll apart. tmux reads the app's frame in
    /// chunks, so a capture can come while the terminal holds half of it: the row a test waited
    /// for already drawn, a row it then asserts on not yet (the ten-run series caught one so).
    /// The app's spinner moves at most every busy tick, longer than a poll, so a busy screen
    /// settles too. A screen with a running clock (the demo's) never does: its tests pass
    /// `settled: false` and name in `condition` every row they then read.
    @discardableResult
    public func waitFor(
        _ what: String, rows: ClosedRange<Int>? = nil, timeout: Duration = .seconds(30), settled: Bool = true,
        _ condition: (String) -> Bool
    ) throws -> String {
        var previous: String?
        return try Await.until(what, timeout: timeout, every: .milliseconds(50), probe: { try capture(rows: rows) }) {
            screen in
            defer { previous = screen }
            return (!settled || screen == previous) && condition(screen)
        }
    }

    @discardableResult
    public func waitFor(text: String, timeout: Duration = .seconds(30), settled: Bool = true) throws -> String {
        try waitFor("\"\(text)\"", timeout: timeout, settled: settled) { $0.contains(text) }
    }

    /// Runs tmux on this pane's private socket (never a tmux the tests themselves run inside)
    /// and answers what it printed.
    @discardableResult
    private func run(_ arguments: [String], check: Bool = true) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
        defer { unlink(outputPath) }
        // Nor the user's own XDG folders: the app a test starts keeps its catalog, its kept
        // drafts and a library's search index under the HOME the test gives it, never where
        // the user keeps theirs.
        let environment = ProcessInfo.processInfo.environment.filter {
            !["TMUX", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"].contains($0.key)
        }
        let status = try ChildProcess.run(
            [tmux, "-L", socket] + arguments, output: outputPath, errors: "/dev/null",
            environment: environment)
        if check, status != 0 { throw TmuxFailure(arguments: arguments, status: status) }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    public struct TmuxFailure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        public var description: String { "tmux \(arguments.joined(separator: " ")) exited with \(status)" }
    }
}
