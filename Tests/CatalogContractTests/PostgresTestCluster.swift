import BookCatalog
import Foundation
@testable import PostgresCatalog
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests: initdb into a temporary directory, a server
/// listening only on a Unix socket in that directory (no TCP), torn down when the test
/// process exits (and by a watchdog if it dies). Root cannot run initdb, so as root every
/// server command runs as the `postgres` user through runuser.
final class PostgresTestCluster: Sendable {
    let directory: String
    let port: Int
    private let binaries: String
    private let runAsPostgres: Bool

    /// The login role every test database is administered with.
    static let superuser = "postgres"
    /// The only role that must give a password (every other role is trusted on the socket).
    static let passwordRole = "pwtest_editor"

    /// Tests that need a server run when the binaries exist, and must fail (not skip)
    /// without them when `CI` is set.
    static var shouldRun: Bool {
        PostgresBinaries.locate() != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    /// The cluster shared by every PostgreSQL suite in this run, started on first use.
    static func shared() async throws -> PostgresTestCluster {
        try await SharedCluster.instance.cluster()
    }

    /// A private cluster (for a test that stops and restarts its server). Call `destroy()`.
    static func start() throws -> PostgresTestCluster {
        guard let binaries = PostgresBinaries.locate() else {
            throw ClusterFailure("PostgreSQL server binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin)")
        }
        let cluster = try PostgresTestCluster(binaries: binaries)
        try cluster.initialise()
        try cluster.startServer()
        return cluster
    }

    private init(binaries: String) throws {
        self.binaries = binaries
        runAsPostgres = geteuid() == 0
        let base = FileManager.default.temporaryDirectory.path
        // Short: the socket path (directory + "/.s.PGSQL.<port>") must fit in 107 bytes.
        directory = base + "/bspg-" + UUID().uuidString.prefix(8).lowercased()
        port = Int.random(in: 20_000...60_000)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        if runAsPostgres {
            guard let user = getpwnam("postgres") else { throw ClusterFailure("running as root but no postgres user") }
            guard chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw ClusterFailure("cannot hand \(directory) to the postgres user")
            }
        }
        Self.registry.withLock { $0.append(self) }
    }

    private var dataDirectory: String { directory + "/data" }

    private func initialise() throws {
        try runServerCommand("initdb", ["-D", dataDirectory, "-U", Self.superuser, "-E", "UTF8",
                                        "--locale=C.UTF-8", "--auth=trust", "--no-sync"])
        let access = """
            local all \(Self.passwordRole) scram-sha-256
            local all all trust
            """
        try access.write(toFile: dataDirectory + "/pg_hba.conf", atomically: false, encoding: .utf8)
        startWatchdog()
    }

    func startServer() throws {
        let options = "-c listen_addresses='' -c unix_socket_directories='\(directory)' -p \(port) -c fsync=off "
            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        try runServerCommand("pg_ctl", ["-D", dataDirectory, "-o", options, "-l", directory + "/server.log",
                                        "-w", "-t", "60", "start"])
    }

    /// Fast shutdown: clients are disconnected, as when a server goes away for real.
    func stopServer() throws {
        try runServerCommand("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    func destroy() {
        try? runServerCommand("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "-t", "30", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    func connector(database: String, user: String = PostgresTestCluster.superuser,
                   statementTimeout: Duration = .seconds(30)) -> PostgresConnector {
        PostgresConnector("host=\(directory) port=\(port) dbname=\(database) user=\(user)",
                          connectTimeoutSeconds: 5, statementTimeout: statementTimeout,
                          applicationName: "bookshelf-tests")
    }

    // MARK: Processes

    private func runServerCommand(_ tool: String, _ arguments: [String]) throws {
        let command = runAsPostgres
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", binaries + "/" + tool] + arguments
            : [binaries + "/" + tool] + arguments
        // A file, not a pipe: the server started by pg_ctl would hold a pipe open forever.
        let outputPath = directory + "/\(tool).out"
        let status = try ChildProcess.run(command, output: outputPath, wait: true)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw ClusterFailure("\(tool) failed (\(status)): \(text)")
        }
    }

    /// Stops the server and removes the directory if this test process dies without
    /// running its exit handler.
    private func startWatchdog() {
        let stop = (runAsPostgres ? "/usr/sbin/runuser -u postgres -- " : "")
            + "\(binaries)/pg_ctl -D \(dataDirectory) -m immediate stop"
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"
        _ = try? ChildProcess.run(["/bin/sh", "-c", script], output: "/dev/null", wait: false)
    }

    // MARK: Teardown at exit

    private static let registry: Mutex<[PostgresTestCluster]> = {
        atexit { PostgresTestCluster.destroyAll() }
        return Mutex([])
    }()

    private static func destroyAll() {
        let clusters = registry.withLock { all in defer { all.removeAll() }; return all }
        clusters.forEach { $0.destroy() }
    }
}

/// Starts the shared cluster once, however many suites ask at the same time.
private actor SharedCluster {
    static let instance = SharedCluster()
    private var started: Task<PostgresTestCluster, any Error>?

    func cluster() async throws -> PostgresTestCluster {
        if let started { return try await started.value }
        let task = Task.detached { try PostgresTestCluster.start() }
        started = task
        return try await task.value
    }
}

enum PostgresBinaries {
    /// The directory holding initdb and pg_ctl: `pg_config --bindir`, else the newest
    /// /usr/lib/postgresql/<version>/bin.
    static func locate() -> String? {
        if let reported = pgConfigBindir(), hasServer(reported) { return reported }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted(by: >).map { "\(root)/\($0)/bin" }.first(where: hasServer)
    }

    private static func hasServer(_ directory: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: directory + "/initdb")
            && FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
    }

    private static func pgConfigBindir() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pg_config", "--bindir"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// posix_spawn and waitpid, because Foundation's Process can miss a child's exit when
/// another child is still running (the watchdog).
enum ChildProcess {
    static func run(_ command: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw ClusterFailure("cannot start \(command[0]): error \(spawned)") }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw ClusterFailure("lost track of \(command[0])") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

struct ClusterFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One test's own database on a cluster, set up by `PostgresSetup`, with helpers to add
/// uniquely named accounts (roles belong to the whole cluster) and books.
struct PostgresTestCatalog: Sendable {
    let cluster: PostgresTestCluster
    let database: String
    let setup: PostgresSetup
    private let prefix: String

    /// `schemaVersion`: an older schema, for tests of migrations.
    static func make(on cluster: PostgresTestCluster? = nil,
                     schemaVersion: Int = PostgresSchema.latestVersion) async throws -> PostgresTestCatalog {
        let cluster = if let cluster { cluster } else { try await PostgresTestCluster.shared() }
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let database = "catalog_" + suffix
        let admin = try await PostgresSetup.connect(cluster.connector(database: "postgres"))
        _ = try await admin.execute("CREATE DATABASE " + database)
        let setup = try await PostgresSetup.connect(cluster.connector(database: database))
        try await setup.migrate(upTo: schemaVersion)
        return PostgresTestCatalog(cluster: cluster, database: database, setup: setup, prefix: "u" + suffix + "_")
    }

    func connector(for account: Account, statementTimeout: Duration = .seconds(30)) -> PostgresConnector {
        cluster.connector(database: database, user: account.name, statementTimeout: statementTimeout)
    }

    var adminConnector: PostgresConnector { cluster.connector(database: database) }

    @discardableResult
    func addAccount(_ name: String, role: AccountRole, scope: String) async throws -> Account {
        let account = Account(name: prefix + name, role: role, scope: scope)
        try await setup.addAccount(account)
        return account
    }

    func remote(for account: Account) async throws -> PostgresRemote {
        try await PostgresRemote.connect(connector(for: account))
    }

    /// Adds books to a scope and returns them as stored, in the order given.
    func addBooks(_ books: [NewBook], scope: String) async throws -> [BookRecord] {
        let before = try await setup.execute("SELECT coalesce(max(id), 0) FROM bookshelf.books")
        let floor = before.first?[0] ?? "0"
        try await setup.importBooks(books, scope: scope)
        let rows = try await setup.execute(
            "SELECT id, title, revision, author FROM bookshelf.books WHERE scope = $1 AND id > $2 ORDER BY id",
            [scope, floor])
        return try rows.map(PostgresRemote.record)
    }

    /// Puts a record in place exactly as given (chosen id and revision).
    func put(_ record: BookRecord, scope: String) async throws {
        let index = BookIndexText(title: record.title, author: record.author)
        _ = try await setup.execute("""
            INSERT INTO bookshelf.books (id, scope, title, author, revision, title_sort, title_words, author_words)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """, [String(record.id), scope, record.title, record.author, String(record.revision),
                  index.titleSort, index.titleWords, index.authorWords])
        _ = try await setup.execute(
            "SELECT setval(pg_get_serial_sequence('bookshelf.books', 'id'), (SELECT max(id) FROM bookshelf.books))")
    }
}

/// A raw libpq connection for tests that act like a person typing SQL (as some role),
/// running on its own worker.
final class RawSQLSession: Sendable {
    private let worker = PostgresWorker(label: "bookshelf.tests.raw")
    private let box: Box

    private final class Box: @unchecked Sendable {
        let connection: PostgresConnection
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    init(_ connector: PostgresConnector, password: String? = nil) async throws {
        let worker = self.worker
        box = try await worker.perform { Box(try PostgresConnection(connector, password: password)) }
    }

    /// The statement's rows, or its failure (server errors carry their SQLSTATE).
    func run(_ sql: String, _ parameters: [String?] = []) async throws -> Result<[[String?]], PostgresCallFailure> {
        let box = self.box
        return try await worker.perform { box.connection.execute(sql, parameters).map(\.rows) }
    }

    func rows(_ sql: String, _ parameters: [String?] = []) async throws -> [[String?]] {
        try await run(sql, parameters).get()
    }

    /// The notifications received so far (LISTEN), delivered with the answers to statements.
    func notifications() async throws -> [PostgresNotification] {
        let box = self.box
        return try await worker.perform { box.connection.takeNotifications() }
    }
}

extension Result where Failure == PostgresCallFailure {
    /// The SQLSTATE of a server error, or nil.
    var sqlState: String? {
        if case let .failure(.server(error)) = self { return error.sqlState }
        return nil
    }
}
