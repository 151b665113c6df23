import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `bookshelf` binary in a real terminal: a tmux server on a private socket (never
/// the user's), driven with `send-keys` and read back with `capture-pane`. Waiting is polling
/// the pane for expected text with a generous deadline; the app is another process, so there
/// is nothing in-process to synchronise on.
final class TmuxPane {
    static let tmux: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// True when tmux tests can run; with `CI` set a missing tmux is a failure, not a skip.
    static var shouldRun: Bool { tmux != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    let socket = "bookshelf-test-\(getpid())-\(UUID().uuidString.prefix(8))"
    private let tmux: String

    /// Starts `command` (run by `sh -c`) in a detached session of `columns` x `rows`.
    init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
        tmux = try #require(Self.tmux, "tmux is required for the interactive tests (CI is set)")
        // -u: UTF-8 whatever the test's locale; -f /dev/null: no user configuration.
        try run(["-u", "-f", "/dev/null", "new-session", "-d", "-s", "app", "-x", "\(columns)", "-y", "\(rows)", command])
        try run(["set-option", "-t", "app", "status", "off"])
    }

    deinit { kill() }

    func kill() {
        _ = try? run(["kill-server"], check: false)
    }

    /// Keys by tmux name ("Enter", "C-q", "Down") or, with `literally`, text typed as is.
    func send(_ keys: String..., literally: Bool = false) throws {
        try run(["send-keys", "-t", "app"] + (literally ? ["-l"] : []) + keys)
    }

    func type(_ text: String) throws { try send(text, literally: true) }

    /// Pastes `text` as a terminal would: tmux wraps it in bracketed-paste markers when the
    /// program asked for them (and turns each LF into CR, as a terminal's paste does).
    func paste(_ text: String) throws {
        try run(["set-buffer", "--", text])
        try run(["paste-buffer", "-p", "-t", "app"])
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", "app", "-x", "\(columns)", "-y", "\(rows)"])
    }

    func capture() throws -> String {
        try run(["capture-pane", "-p", "-t", "app"])
    }

    /// Polls the pane until `condition` holds; returns the screen that satisfied it.
    @discardableResult
    func waitFor(_ what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var screen = ""
        while ContinuousClock.now < deadline {
            screen = try capture()
            if condition(screen) { return screen }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(screen)")
        throw TmuxTimeout()
    }

    @discardableResult
    func waitFor(text: String, timeout: Duration = .seconds(30)) throws -> String {
        try waitFor("\"\(text)\"", timeout: timeout) { $0.contains(text) }
    }

    struct TmuxTimeout: Error {}

    /// Runs tmux and waits for it with posix_spawn/waitpid. Not `Process`: on Linux it learns
    /// that a child ended from a descriptor the child inherits, and the tmux server forked
    /// from the first client keeps that descriptor open for as long as it lives.
    @discardableResult
    private func run(_ arguments: [String], check: Bool = true) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([tmux, "-L", socket] + arguments).map { strdup($0) } + [nil]
        // Never talk to a tmux the tests themselves run inside.
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "TMUX" }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        let attributes = SpawnAttributes()
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, &attributes.value, argv, envp)
        guard spawned == 0 else { throw TmuxFailure(arguments: arguments, status: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if check, exitStatus != 0 { throw TmuxFailure(arguments: arguments, status: exitStatus) }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    struct TmuxFailure: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        var description: String { "tmux \(arguments.joined(separator: " ")) exited with \(status)" }
    }
}

/// Spawn attributes that give the child an empty signal mask and default signal actions.
/// A test runs on a Dispatch or Swift Concurrency thread that blocks most signals, and
/// posix_spawn passes that mask on: a tmux server started with SIGTERM blocked ignores
/// `kill-server` and outlives the test, with its app still running.
final class SpawnAttributes {
    var value = posix_spawnattr_t()

    init() {
        posix_spawnattr_init(&value)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&value, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&value, &all)
        posix_spawnattr_setflags(&value, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    deinit { posix_spawnattr_destroy(&value) }
}

/// Single-quotes `text` for `sh -c`.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
