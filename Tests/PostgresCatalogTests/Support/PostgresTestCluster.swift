import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import Testing

/// The tests' PostgreSQL cluster: a `PostgresScratchServer` (BookshelfTestSupport) with
/// settings for speed and many connections, one role that must give a password, and
/// connectors for the adapter.
final class PostgresTestCluster: Sendable {
    let server: PostgresScratchServer
    /// The catalog template of the shared cluster; nil for a private one, whose few catalogs
    /// are migrated each (a template would cost a migration of its own).
    fileprivate let template: PostgresCatalogTemplate?

    /// The login role every test database is administered with.
    static let superuser = PostgresScratchServer.superuser
    /// The only role that must give a password (every other role is trusted on the socket).
    static let passwordRole = "pwtest_editor"

    /// Tests that need a server run when the binaries exist, and must fail (not skip)
    /// without them when `CI` is set.
    static var shouldRun: Bool { PostgresScratchServer.shouldRun }

    /// The cluster shared by every PostgreSQL suite in this run, started on first use.
    static func shared() async throws -> PostgresTestCluster {
        try await SharedCluster.instance.cluster()
    }

    /// A private cluster (for a test that stops and restarts its server, or needs `settings`
    /// of its own, such as a library loaded at start). Call `destroy()`.
    static func start(settings: [String] = []) throws -> PostgresTestCluster {
        try start(withTemplate: false, settings: settings)
    }

    fileprivate static func start(withTemplate: Bool, settings: [String] = []) throws -> PostgresTestCluster {
        PostgresTestCluster(
            server: try PostgresScratchServer(
                passwordRoles: [passwordRole],
                settings: ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300"]
                    + settings),
            withTemplate: withTemplate)
    }

    /// A private cluster with a hot standby streaming from its server (`standby`), for the
    /// replica tests. Call `destroy()`.
    /// `primarySettings`: more settings of the primary's alone.
    static func startWithStandby(primarySettings: [String] = []) throws -> PostgresTestCluster {
        // full_page_writes stays on: a base backup of a server without it cannot be trusted.
        let server = try PostgresScratchServer(
            passwordRoles: [passwordRole],
            settings: ["fsync=off", "synchronous_commit=off", "max_connections=300"] + primarySettings)
        do {
            let standby = try PostgresScratchServer(standbyOf: server, settings: ["fsync=off", "max_connections=300"])
            return PostgresTestCluster(server: server, standby: standby)
        } catch {
            server.destroy()
            throw error
        }
    }

    /// The hot standby of `startWithStandby()`; nil for a cluster of one server.
    let standby: PostgresScratchServer?

    private init(server: PostgresScratchServer, standby: PostgresScratchServer? = nil, withTemplate: Bool = false) {
        self.server = server
        self.standby = standby
        template = withTemplate ? PostgresCatalogTemplate() : nil
    }

    var directory: String { server.directory }
    var port: Int { server.port }

    func startServer() throws { try server.startServer() }

    /// Fast shutdown: clients are disconnected, as when a server goes away for real.
    func stopServer() throws { try server.stopServer() }

    /// Immediate shutdown (`pg_ctl stop -m immediate`), as in a crash.
    func stopServerImmediately() throws { try server.stopServerImmediately() }

    func destroy() {
        standby?.destroy()
        server.destroy()
    }

    /// One connection string naming both servers, the standby first: libpq must find the
    /// primary for writes by asking, not by the order of the hosts.
    func multiHostConnector(
        database: String, user: String, reads: PostgresReads, standbyWait: Duration = .milliseconds(250)
    ) throws -> PostgresConnector {
        guard let standby else { throw ClusterFailure("this cluster has no standby") }
        return PostgresConnector(
            "host=\(standby.directory),\(server.directory) port=\(standby.port),\(server.port) dbname=\(database) user=\(user)",
            connectTimeoutSeconds: 5, reads: reads, standbyWait: standbyWait)
    }

    /// The standby alone, as the superuser: for looking at what it holds and who is on it.
    func standbyConnector(database: String) throws -> PostgresConnector {
        guard let standby else { throw ClusterFailure("this cluster has no standby") }
        return PostgresConnector(
            standby.conninfo(database: database), connectTimeoutSeconds: 5, applicationName: "bookshelf-tests")
    }

    /// Makes the standby apply each commit `delay` after the primary made it
    /// (`recovery_min_apply_delay`, changed by a reload); `.zero` undoes it.
    func delayStandby(by delay: Duration) async throws {
        let standby = try await RawSQLSession(standbyConnector(database: "postgres"), purpose: .standbyReads)
        // ALTER SYSTEM takes no parameters; the value is a number this code wrote.
        _ = try await standby.rows("ALTER SYSTEM SET recovery_min_apply_delay = \(delay.milliseconds)")
        _ = try await standby.rows("SELECT pg_reload_conf()")
    }

    /// Waits until the standby has replayed everything the primary has written so far: for
    /// a test's set-up, never for what a test checks. Polls every 20 ms, up to 20 s.
    func waitForStandbyReplay() async throws {
        let primary = try await RawSQLSession(connector(database: "postgres"))
        let standby = try await RawSQLSession(standbyConnector(database: "postgres"), purpose: .standbyReads)
        guard let target = try await primary.rows("SELECT pg_current_wal_insert_lsn()::text").first?[0] else {
            throw ClusterFailure("no WAL position on the primary")
        }
        try await Await.until("the standby to replay \(target)") {
            try await standby.rows("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", [target]).first?[0]
        } _: {
            $0 == "t"
        }
    }

    func connector(
        database: String, user: String = PostgresTestCluster.superuser,
        statementTimeout: Duration = .seconds(30)
    ) -> PostgresConnector {
        PostgresConnector(
            server.conninfo(database: database, user: user),
            connectTimeoutSeconds: 5, statementTimeout: statementTimeout,
            applicationName: "bookshelf-tests")
    }
}

/// Starts the shared cluster once, however many suites ask at the same time.
private actor SharedCluster {
    static let instance = SharedCluster()
    private var started: Task<PostgresTestCluster, any Error>?

    func cluster() async throws -> PostgresTestCluster {
        if let started { return try await started.value }
        let task = Task.detached { try PostgresTestCluster.start(withTemplate: true) }
        started = task
        return try await task.value
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

    /// How a catalog of the latest version is made: cloned from the shared cluster's template
    /// (`PostgresCatalogTemplate`), or by running every migration, for a test of what the
    /// migrations themselves make.
    enum Origin {
        case template
        case migrations
    }

    /// `schemaVersion`: an older schema, for tests of migrations (always migrated).
    static func make(
        on cluster: PostgresTestCluster? = nil,
        schemaVersion: Int = PostgresSchema.latestVersion,
        origin: Origin = .template
    ) async throws -> PostgresTestCatalog {
        let cluster = if let cluster { cluster } else { try await PostgresTestCluster.shared() }
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let database = "catalog_" + suffix
        let setup: PostgresSetup
        if let template = cluster.template, origin == .template, schemaVersion == PostgresSchema.latestVersion {
            setup = try await template.clone(into: database, on: cluster)
        } else {
            let admin = try await PostgresSetup.connect(cluster.connector(database: "postgres"))
            _ = try await admin.execute("CREATE DATABASE " + database)
            setup = try await PostgresSetup.connect(cluster.connector(database: database))
            try await setup.migrate(upTo: schemaVersion)
        }
        return PostgresTestCatalog(cluster: cluster, database: database, setup: setup, prefix: "u" + suffix + "_")
    }

    /// The catalog's schema as pg_dump writes it, comparable with another catalog's.
    func schemaDump() async throws -> PostgresSchemaDump {
        let reader = try await group(.reader)
        let editor = try await group(.editor)
        return PostgresSchemaDump(
            pgDump: try cluster.server.schemaDump(database: database, schema: "bookshelf"), groups: (reader, editor))
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

    /// This catalog's group role for `role` (schema version 8: each catalog has its own).
    func group(_ role: AccountRole) async throws -> String {
        let rows = try await setup.execute("SELECT name FROM bookshelf.groups WHERE role = $1", [role.rawValue])
        guard let name = rows.first?[0] else { throw ClusterFailure("no \(role.rawValue) group") }
        return name
    }

    func remote(for account: Account) async throws -> PostgresRemote {
        try await PostgresRemote.connect(connector(for: account))
    }

    /// Every book `remote` finds for `text`, paged by cursor with pages of 1, 49 and then 250
    /// books, and whether the first page's total was counted (exact) rather than estimated.
    static func pagedIDs(_ remote: PostgresRemote, text: String) async throws -> (ids: [Int], counted: Bool) {
        var paged: [Int] = []
        var counted = false
        var cursor: SearchCursor?
        for limit in [1, 49] + Array(repeating: 250, count: 30) {
            let page = try await remote.search(
                SearchQuery(text: text, limit: limit, offset: paged.count, after: cursor))
            if paged.isEmpty, case .exact = page.totalCount { counted = true }
            guard !page.records.isEmpty else { break }
            paged += page.records.map(\.id)
            cursor = page.next
        }
        return (paged, counted)
    }

    /// Adds books to a scope and returns them as stored, in the order given.
    func addBooks(_ books: [NewBook], scope: String) async throws -> [BookRecord] {
        let before = try await setup.execute("SELECT coalesce(max(id), 0) FROM bookshelf.books")
        let floor = before.first?[0] ?? "0"
        try await setup.importBooks(books, scope: scope)
        // A catalog made as an older version left it has no details: they read as none.
        let version = try await setup.execute("SELECT max(version) FROM bookshelf.schema_version")
        let columns =
            (version.first?[0].flatMap { Int($0) } ?? 0) >= PostgresSchema.detailsVersion
            ? PostgresStatements.recordColumns() : "id, title, revision, author, NULL, NULL, '', '', NULL, '[]', ''"
        let rows = try await setup.execute(
            "SELECT \(columns) FROM bookshelf.books WHERE scope = $1 AND id > $2 ORDER BY id", [scope, floor])
        return try rows.map(PostgresRemote.record)
    }

    /// Puts a record in place exactly as given (chosen id and revision).
    func put(_ record: BookRecord, scope: String) async throws {
        let index = BookIndexText(title: record.title, author: record.author)
        _ = try await setup.execute(
            """
            INSERT INTO bookshelf.books (id, scope, title, author, revision, title_sort, title_words, author_words)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """,
            [
                String(record.id), scope, record.title, record.author, String(record.revision),
                index.titleSort, index.titleWords, index.authorWords,
            ])
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

    /// `purpose`: `.standbyReads` to stay on a standby (a session for writes needs the primary).
    init(
        _ connector: PostgresConnector, password: String? = nil, purpose: PostgresConnectionPurpose = .writes
    ) async throws {
        let worker = self.worker
        box = try await worker.perform { Box(try PostgresConnection(connector, password: password, purpose: purpose)) }
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
