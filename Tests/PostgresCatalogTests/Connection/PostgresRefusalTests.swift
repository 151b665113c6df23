import BookCatalog
import BookshelfTestSupport
@testable import PostgresCatalog
import TestTags
import Testing

/// Servers that answer but will not take a session: each is said in the app's words, with
/// the setting to look at, never as libpq's raw text.
@Suite(
    "PostgreSQL: a server that refuses the session says why",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresRefusalTests {
    @Test("past max_connections, both the reserved slots and a full server say the server is full and name the setting")
    func fullServer() async throws {
        // Three slots, one kept for superusers: two superuser sessions leave only the reserved one.
        let server = try PostgresScratchServer(
            settings: ["fsync=off", "max_connections=3", "superuser_reserved_connections=1"])
        defer { server.destroy() }
        try server.superuserSQL("CREATE ROLE crowd LOGIN")
        let superuser = PostgresConnector(server.conninfo(), connectTimeoutSeconds: 5)
        var held = [try await RawSQLSession(superuser), try await RawSQLSession(superuser)]
        // "remaining connection slots are reserved…" for an ordinary role.
        try await Self.expectFull(PostgresConnector(server.conninfo(user: "crowd"), connectTimeoutSeconds: 5))
        held.append(try await RawSQLSession(superuser))
        // "sorry, too many clients already" once every slot is taken.
        try await Self.expectFull(superuser)
        #expect(held.count == 3)
    }

    @Test("an account whose sessions are read-only is told that saves cannot be made there")
    func readOnlySessions() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        _ = try await catalog.setup.execute("ALTER ROLE \(editor.name) SET default_transaction_read_only = on")
        do {
            _ = try await catalog.remote(for: editor)
            Issue.record("signed in for saves in read-only sessions")
        } catch let BookFailure.storeRefused(reason) {
            #expect(reason.contains("default_transaction_read_only") && reason.contains("saves cannot be made"))
            #expect(!reason.contains("session is read-only"), "libpq's raw words: \(reason)")
        }
    }

    private static func expectFull(_ connector: PostgresConnector) async throws {
        do {
            _ = try await PostgresRemote.connect(connector)
            Issue.record("connected past max_connections")
        } catch let BookFailure.storeRefused(reason) {
            #expect(reason.contains("server is full") && reason.contains("max_connections"), "\(reason)")
            #expect(!reason.contains("too many clients") && !reason.contains("remaining connection slots"), "\(reason)")
        }
    }
}
