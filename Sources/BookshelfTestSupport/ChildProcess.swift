import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts programs for the tests and the bench with posix_spawn and waits with waitpid.
/// Not Foundation's `Process`: on Linux it learns that a child ended from a descriptor the
/// child inherits, so a server the child leaves behind (pg_ctl's postgres, the tmux server
/// forked by its first client) would keep it waiting forever; and it can miss an exit while
/// another child (a watchdog) still runs. Output goes to a file, never a pipe, for the same
/// reason.
public enum ChildProcess {
    /// How a child ended.
    public struct Termination: Equatable, Sendable {
        /// The exit status, or nil when a signal killed it.
        public let exitStatus: Int32?
        /// The signal that killed it, if one did.
        public let signal: Int32?

        /// The exit status, or 128 + N for a death by signal N (as a shell reports it).
        public var status: Int32 { exitStatus ?? 128 + (signal ?? 0) }
    }

    /// Runs `command` (`command[0]` is a path) with standard input from `input` and standard
    /// output to `output`; standard error goes to `errors`, or to `output` when nil. With
    /// `wait`, returns the exit status (128 + N for a death by signal N); without, 0 at once.
    @discardableResult
    public static func run(
        _ command: [String], input: String = "/dev/null", output: String = "/dev/null",
        errors: String? = nil, environment: [String: String]? = nil, wait: Bool = true
    ) throws -> Int32 {
        guard wait else {
            _ = try start(command, input: input, output: output, errors: errors, environment: environment)
            return 0
        }
        return try runToEnd(command, input: input, output: output, errors: errors, environment: environment).status
    }

    /// Runs `command` as `run` does and waits for it, telling an exit from a death by signal.
    public static func runToEnd(
        _ command: [String], input: String = "/dev/null", output: String = "/dev/null",
        errors: String? = nil, environment: [String: String]? = nil
    ) throws -> Termination {
        let pid = try start(command, input: input, output: output, errors: errors, environment: environment)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ChildProcessFailure("lost track of \(command[0])") }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        return status & 0x7f == 0
            ? Termination(exitStatus: (status >> 8) & 0xff, signal: nil)
            : Termination(exitStatus: nil, signal: status & 0x7f)
    }

    private static func start(
        _ command: [String], input: String, output: String, errors: String?,
        environment: [String: String]?
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        // Nothing else of the test process: its descriptors without close-on-exec (another
        // test's open file, sockets of the runtime) would live on in a server started here,
        // and a file system a test unmounts would stay busy (ChildProcessTests).
        _ = closeFrom?(&actions, 3)
        let argv = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        let attributes = SpawnAttributes()
        var pid: pid_t = 0
        let spawned =
            envp.map { posix_spawn(&pid, command[0], &actions, &attributes.value, argv, $0) }
            ?? posix_spawn(&pid, command[0], &actions, &attributes.value, argv, environ)
        guard spawned == 0 else { throw ChildProcessFailure("cannot start \(command[0]): error \(spawned)") }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its headers
    /// declare only under _GNU_SOURCE, so Swift does not import it; looked up once by name.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    /// The first executable `name` on PATH (or in `fallback` when PATH is unset).
    public static func onPath(_ name: String, fallback: String = "/usr/bin:/bin") -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? fallback
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

public struct ChildProcessFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
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
public func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
