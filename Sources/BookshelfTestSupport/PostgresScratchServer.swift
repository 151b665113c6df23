import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for the tests and the bench: initdb into a temporary
/// directory, a server listening only on a Unix socket there (no TCP), torn down by
/// `destroy()`, at the latest when the process exits, and by a watchdog if the process dies.
/// Root cannot run initdb, so as root every server command runs as `postgres` through runuser.
/// Every role signs in without a password except those named in `passwordRoles`. A server
/// can also be made as a hot standby of another (`init(standbyOf:)`; a delayed standby with
/// `recovery_min_apply_delay` among its settings).
public final class PostgresScratchServer: Sendable {
    public let directory: String
    public let port: Int
    private let binaries: String
    private let asRoot: Bool
    private let settings: [String]

    /// The login role every scratch database is administered with.
    public static let superuser = "postgres"

    /// The directory holding initdb and pg_ctl: `pg_config --bindir`, else the newest
    /// /usr/lib/postgresql/<version>/bin, else beside an `initdb` on PATH.
    public static let binaries: String? = {
        if let reported = pgConfigBindir(), hasServer(reported) { return reported }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(
            by: >)
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (versions.map { "\(root)/\($0)/bin" } + path).first(where: hasServer)
    }()

    /// Tests that need a server run when the binaries exist, and must fail (not skip)
    /// without them when `CI` is set.
    public static var shouldRun: Bool { binaries != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    /// Makes and starts a server. `settings` are extra `-c name=value` server settings.
    public convenience init(passwordRoles: [String] = [], settings: [String] = ["fsync=off"]) throws {
        try self.init(passwordRoles: passwordRoles, settings: settings, starting: true)
    }

    /// Makes and starts a hot standby of `primary`: a base backup (`pg_basebackup -R -X stream
    /// -c fast`) into a directory of its own, streaming from the primary's socket. `settings`
    /// are its own (`recovery_min_apply_delay=3s` makes it a delayed standby).
    public convenience init(standbyOf primary: PostgresScratchServer, settings: [String] = ["fsync=off"]) throws {
        try self.init(passwordRoles: [], settings: settings, starting: true, copying: primary)
    }

    private init(
        passwordRoles: [String], settings: [String], starting: Bool, copying primary: PostgresScratchServer? = nil
    ) throws {
        guard let binaries = Self.binaries else {
            throw ChildProcessFailure(
                "PostgreSQL server binaries (initdb, pg_ctl) not found: pg_config --bindir, /usr/lib/postgresql/*/bin, PATH"
            )
        }
        self.binaries = binaries
        self.settings = settings
        asRoot = geteuid() == 0
        // Short: the socket path (directory + "/.s.PGSQL.<port>") must fit in 107 bytes.
        directory = FileManager.default.temporaryDirectory.path + "/bspg-" + UUID().uuidString.prefix(8).lowercased()
        port = Int.random(in: 20_000...60_000)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        if asRoot {
            guard let user = getpwnam("postgres"), chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0
            else {
                throw ChildProcessFailure("running as root needs a postgres user to own \(directory)")
            }
        }
        Self.registry.withLock { $0.append(self) }
        if let primary {
            // The backup brings the primary's pg_hba.conf, and -R its primary_conninfo.
            try serverCommand(
                "pg_basebackup",
                [
                    "-D", dataDirectory, "-h", primary.directory, "-p", String(primary.port),
                    "-U", Self.superuser, "-R", "-X", "stream", "-c", "fast", "--no-sync",
                ])
        } else {
            try serverCommand(
                "initdb",
                [
                    "-D", dataDirectory, "-U", Self.superuser, "-E", "UTF8", "--locale=C.UTF-8",
                    "--auth=trust", "--no-sync",
                ])
            // Replication connections (a standby's base backup and stream) need their own line.
            let access =
                passwordRoles.map { "local all \($0) scram-sha-256\n" }.joined()
                + "local all all trust\nlocal replication all trust\n"
            try access.write(toFile: dataDirectory + "/pg_hba.conf", atomically: false, encoding: .utf8)
        }
        startWatchdog()
        if starting { try startServer() }
    }

    private var dataDirectory: String { directory + "/data" }

    /// A libpq keyword string for `user` on `database`.
    public func conninfo(database: String = "postgres", user: String = PostgresScratchServer.superuser) -> String {
        "host=\(directory) port=\(port) dbname=\(database) user=\(user)"
    }

    public func startServer() throws {
        let options =
            (["listen_addresses=''", "unix_socket_directories='\(directory)'"] + settings)
            .map { "-c \($0)" }.joined(separator: " ") + " -p \(port)"
        try serverCommand(
            "pg_ctl",
            [
                "-D", dataDirectory, "-o", options, "-l", directory + "/server.log",
                "-w", "-t", "60", "start",
            ])
    }

    /// Fast shutdown: clients are disconnected, as when a server goes away for real.
    public func stopServer() throws {
        try serverCommand("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Immediate shutdown, as in a crash: no transaction finishes, and the next start recovers.
    public func stopServerImmediately() throws {
        try serverCommand("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "-t", "60", "stop"])
    }

    /// Makes this stopped server a standby of `primary` as it is, without `pg_rewind`: the files
    /// `pg_basebackup -R` writes (`standby.signal`, `primary_conninfo`), then starts it. An old
    /// primary rejoined like this after a failover keeps what it wrote after the standby was cut
    /// off: it replays on its old timeline and cannot follow the promoted server's.
    public func rejoinWithoutRewind(asStandbyOf primary: PostgresScratchServer) throws {
        try writeServerFile(
            "postgresql.auto.conf",
            appending: "primary_conninfo = 'host=\(primary.directory) port=\(primary.port) user=\(Self.superuser)'\n")
        try writeServerFile("standby.signal", appending: "")
        try startServer()
    }

    /// The rejoin docs/failover.md gives, on this stopped old primary: `CHECKPOINT` on the
    /// promoted `primary` (so that its control file names its new timeline), `pg_rewind -R` from
    /// it (this server needs `wal_log_hints` or data checksums), then start as its standby.
    public func rewindAndRejoin(asStandbyOf primary: PostgresScratchServer) throws {
        try primary.superuserSQL("CHECKPOINT")
        try serverCommand(
            "pg_rewind",
            [
                "-D", dataDirectory, "-R", "--no-sync",
                "--source-server=" + primary.conninfo(),
            ])
        try startServer()
    }

    /// Appends `text` to a file of the data directory, owned as the server's own files are.
    private func writeServerFile(_ name: String, appending text: String) throws {
        let path = dataDirectory + "/" + name
        let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        try (old + text).write(toFile: path, atomically: false, encoding: .utf8)
        if asRoot {
            guard let user = getpwnam("postgres"), chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw ChildProcessFailure("running as root needs a postgres user to own \(path)")
            }
        }
    }

    /// Stops the server at once and removes its directory.
    public func destroy() {
        try? serverCommand("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The same as `destroy()`.
    public func stop() { destroy() }

    /// Runs `statement` as the superuser (psql, beside the server's own tools).
    public func superuserSQL(_ statement: String) throws {
        try serverCommand(
            "psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", String(port),
                "-U", Self.superuser, "-d", "postgres", "-c", statement,
            ])
    }

    /// What pg_dump writes for `schema` of `database`: its objects' definitions and grants, no
    /// rows and no owners (the owner is whoever ran setup).
    public func schemaDump(database: String, schema: String) throws -> String {
        let file = directory + "/schema-\(UUID().uuidString).sql"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try serverCommand(
            "pg_dump",
            [
                "-h", directory, "-p", String(port), "-U", Self.superuser, "-d", database, "--schema-only",
                "--schema=" + schema, "--no-owner", "--no-tablespaces", "-f", file,
            ])
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// Waits until some session in `pg_stat_activity` meets `condition` (SQL over its columns,
    /// such as `wait_event_type = 'Lock'`), asking every 50 ms; throws after `timeout`.
    public func waitForActivity(where condition: String, timeout: Duration = .seconds(20)) throws {
        let probe = """
            DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE \(condition))
            THEN RAISE 'not yet'; END IF; END $$
            """
        try Await.until("a session in pg_stat_activity with \(condition)", timeout: timeout, every: .milliseconds(50)) {
            (try? superuserSQL(probe)) != nil
        }
    }

    /// Starts `statement` as the superuser without waiting for it (psql in the background):
    /// for a transaction that holds a lock until the server stops.
    public func superuserSQLInBackground(_ statement: String, database: String = "postgres") throws {
        let command =
            (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [binaries + "/psql"]
            + ["-X", "-q", "-h", directory, "-p", String(port), "-U", Self.superuser, "-d", database, "-c", statement]
        _ = try ChildProcess.run(command, output: directory + "/psql-background.out", wait: false)
    }

    private func serverCommand(_ tool: String, _ arguments: [String]) throws {
        let command =
            (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [binaries + "/" + tool] + arguments
        // A file, not a pipe: the server started by pg_ctl would hold a pipe open forever.
        let output = directory + "/\(tool).out"
        let status = try ChildProcess.run(command, output: output)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw ChildProcessFailure("\(tool) failed (\(status)): \(text)")
        }
    }

    /// Stops the server and removes the directory if this process dies without running its
    /// exit handler.
    private func startWatchdog() {
        let stop =
            (asRoot ? "/usr/sbin/runuser -u postgres -- " : "")
            + "\(binaries)/pg_ctl -D \(dataDirectory) -m immediate stop"
        let script =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"
        _ = try? ChildProcess.run(["/bin/sh", "-c", script], wait: false)
    }

    private static func hasServer(_ directory: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: directory + "/initdb")
            && FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
    }

    private static func pgConfigBindir() -> String? {
        guard let pgConfig = ChildProcess.onPath("pg_config") else { return nil }
        let output = FileManager.default.temporaryDirectory.path + "/pg_config-\(UUID().uuidString)"
        defer { unlink(output) }
        guard (try? ChildProcess.run([pgConfig, "--bindir"], output: output, errors: "/dev/null")) == 0 else {
            return nil
        }
        return (try? String(contentsOfFile: output, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Teardown at exit

    private static let registry: Locked<[PostgresScratchServer]> = {
        atexit { PostgresScratchServer.destroyAll() }
        return Locked([])
    }()

    private static func destroyAll() {
        let servers = registry.withLock { all in
            defer { all.removeAll() }; return all
        }
        servers.forEach { $0.destroy() }
    }
}
