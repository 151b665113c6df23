import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program run to its end as the bench's whole-process measurements take it (`cli`, `bulk`):
/// timed from spawn to reaping, with the child's own peak RSS from `wait4`.
struct TimedSpawn {
    let wall: Duration
    let peakKB: Int
    /// The wait status, as `wait4` gave it.
    let status: Int32

    var exited: Bool { status & 0x7F == 0 }
    var exitCode: Int32 { (status >> 8) & 0xFF }

    /// Runs `executable` with standard input from `stdin`, standard output to `stdout` (made
    /// or emptied), and standard error discarded.
    static func run(
        _ executable: String, _ arguments: [String], stdin: String = "/dev/null", stdout: String = "/dev/null"
    ) throws -> TimedSpawn {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let clock = ContinuousClock()
        let start = clock.now
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(child, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4: \(String(cString: strerror(errno)))") }
        }
        return TimedSpawn(wall: clock.now - start, peakKB: Int(usage.ru_maxrss), status: status)
    }
}
