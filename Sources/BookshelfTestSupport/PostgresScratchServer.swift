import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for the command-line tests (the contract tests have a
/// fuller harness, in a target this one cannot import): initdb into a temporary directory,
/// listening only on a Unix socket there, stopped by `stop()` or, if the test process dies,
/// by a watchdog. Root cannot run initdb, so as root the server runs as `postgres`.
/// Every role signs in without a password except those named in `passwordRoles`.
final class PostgresScratchServer: Sendable {
    let directory: String
    let port = Int.random(in: 20_000...60_000)
    private let binaries: String
    private let asRoot = geteuid() == 0

    static let superuser = "postgres"

    /// The server binaries (`initdb`, `pg_ctl`): the newest /usr/lib/postgresql/N/bin, else
    /// beside an `initdb` on PATH.
    static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        let candidates = versions.map { "\(root)/\($0)/bin" }
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
            && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
    }()

    /// Runs when the binaries exist; with `CI` set their absence fails instead of skipping.
    static var shouldRun: Bool { binaries != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    init(passwordRoles: [String]) throws {
        binaries = try #require(Self.binaries, "PostgreSQL server binaries (initdb, pg_ctl) are required (CI is set)")
        // Short: the socket path must fit in 107 bytes.
        directory = FileManager.default.temporaryDirectory.path + "/bspc-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        if asRoot {
            let user = try #require(getpwnam("postgres"), "running as root needs a postgres user")
            #expect(chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0)
        }
        let data = directory + "/data"
        try serverCommand("initdb", ["-D", data, "-U", Self.superuser, "-E", "UTF8", "--locale=C.UTF-8", "--auth=trust", "--no-sync"])
        let access = passwordRoles.map { "local all \($0) scram-sha-256\n" }.joined() + "local all all trust\n"
        try access.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
        let stop = (asRoot ? "/usr/sbin/runuser -u postgres -- " : "") + "\(binaries)/pg_ctl -D \(data) -m immediate stop"
        try spawn(["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"],
                  wait: false)
        try serverCommand("pg_ctl", ["-D", data, "-l", directory + "/server.log", "-w", "-t", "60", "start", "-o",
                                     "-c listen_addresses='' -c unix_socket_directories='\(directory)' -p \(port) -c fsync=off"])
    }

    /// A libpq keyword string for `user` on this server's `postgres` database.
    func conninfo(user: String = PostgresScratchServer.superuser) -> String {
        "host=\(directory) port=\(port) dbname=postgres user=\(user)"
    }

    func stop() {
        try? serverCommand("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func serverCommand(_ tool: String, _ arguments: [String]) throws {
        let command = (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [binaries + "/" + tool] + arguments
        let output = directory + "/\(tool).out"
        let status = try spawn(command, output: output, wait: true)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try #require(status == 0, "\(tool) failed (\(status)): \(text)")
    }

    /// posix_spawn, not Process: the server that pg_ctl starts keeps inherited descriptors
    /// open, and Process would wait for them.
    @discardableResult
    private func spawn(_ command: [String], output: String = "/dev/null", wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let attributes = SpawnAttributes()
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes.value, argv, environ)
        try #require(spawned == 0, "cannot start \(command[0])")
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
