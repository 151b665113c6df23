import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PgBouncer in front of a scratch server, for the tests: it listens only on a Unix socket in
/// a directory of its own, on a random port, pools in the mode asked for, and lets in (without
/// a password, as the server's own socket does) the roles it is told of. `stop()` ends it, and
/// a watchdog does if the test process dies first. As root it runs as `postgres`: PgBouncer
/// refuses to run as root.
public final class PgBouncerProcess: Sendable {
    public let directory: String
    public let port: Int
    private let asRoot: Bool

    /// Debian's `pgbouncer` puts it in /usr/sbin, which a user's PATH may not name.
    public static let binary: String? =
        ChildProcess.onPath("pgbouncer")
        ?? ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Tests that need PgBouncer run when it is installed, and must fail (not skip) without it
    /// when `CI` is set.
    public static var shouldRun: Bool { binary != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    /// Starts PgBouncer for `database` of `server`, letting in `users`. `poolMode`: PgBouncer's
    /// `pool_mode` (`transaction` hands a server connection to a client for one transaction at a
    /// time); `poolSize`: its `default_pool_size`, server connections per database and role.
    public init(
        inFrontOf front: PostgresScratchServer, database: String, users: [String], poolMode: String = "transaction",
        poolSize: Int = 2
    ) throws {
        guard let binary = Self.binary else {
            throw ChildProcessFailure("pgbouncer not found (Debian package pgbouncer); it is required when CI is set")
        }
        asRoot = geteuid() == 0
        directory = FileManager.default.temporaryDirectory.path + "/bspgb-" + UUID().uuidString.prefix(8).lowercased()
        port = Int.random(in: 20_000...60_000)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let configuration = """
            [databases]
            \(database) = host=\(front.directory) port=\(front.port) dbname=\(database)

            [pgbouncer]
            listen_addr =
            listen_port = \(port)
            unix_socket_dir = \(directory)
            auth_type = trust
            auth_file = \(directory)/userlist.txt
            pool_mode = \(poolMode)
            default_pool_size = \(poolSize)
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid

            """
        try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: false, encoding: .utf8)
        // With auth_type = trust a role must still be listed; the password is not asked.
        try users.map { "\"\($0)\" \"\"\n" }.joined().write(
            toFile: directory + "/userlist.txt", atomically: false, encoding: .utf8)
        if asRoot {
            guard let user = getpwnam("postgres") else {
                throw ChildProcessFailure("running as root needs a postgres user to run pgbouncer")
            }
            for path in [directory, directory + "/pgbouncer.ini", directory + "/userlist.txt"] {
                guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                    throw ChildProcessFailure("cannot give \(path) to postgres")
                }
            }
        }
        let command =
            (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [
                binary, "-d", directory + "/pgbouncer.ini",
            ]
        let status = try ChildProcess.run(command, output: directory + "/start.out")
        guard status == 0 else {
            let text = (try? String(contentsOfFile: directory + "/start.out", encoding: .utf8)) ?? ""
            throw ChildProcessFailure("pgbouncer failed (\(status)): \(text)")
        }
        let socket = directory + "/.s.PGSQL.\(port)"
        try Await.until("pgbouncer to listen on \(socket)") { FileManager.default.fileExists(atPath: socket) }
        if let pid = pid {
            let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill -INT \(pid) 2>/dev/null"
            _ = try? ChildProcess.run(["/bin/sh", "-c", script], wait: false)
        }
    }

    /// A libpq keyword string for `user` on `database`, through PgBouncer.
    public func conninfo(database: String, user: String) -> String {
        "host=\(directory) port=\(port) dbname=\(database) user=\(user)"
    }

    private var pid: Int32? {
        (try? String(contentsOfFile: directory + "/pgbouncer.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Stops PgBouncer (SIGINT: at once, clients disconnected) and removes its directory.
    public func stop() {
        if let pid, kill(pid, SIGINT) == 0 {
            try? Await.until("pgbouncer \(pid) to end", timeout: .seconds(10)) { Await.hasEnded(pid) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
