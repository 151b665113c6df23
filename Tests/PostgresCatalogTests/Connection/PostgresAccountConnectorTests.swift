import BookCatalog
import Foundation
import PostgresCatalog
import Testing

/// `PostgresAccountConnector`, which the app's account switcher talks to: in the serialized
/// remote suite, because it signs in as the one role of the cluster that needs a password.
extension PostgresRemoteTests {
    @Test("the connector lists this database's accounts, learns which need a password, and hands out sessions")
    func accountConnectorSessions() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let reader = try await catalog.addAccount("reader", role: .reader, scope: "main")
        let guarded = Account(name: PostgresTestCluster.passwordRole, role: .editor, scope: "main")
        try await catalog.setup.addAccount(guarded, password: "correct horse")
        _ = try await catalog.addBooks([NewBook(title: "Dune"), NewBook(title: "Emma")], scope: "main")
        _ = try await catalog.addBooks([NewBook(title: "Elsewhere")], scope: "other")
        // A role of the cluster that this database has no account for (another catalog's).
        let stranger = try await PostgresTestCatalog.make(on: catalog.cluster)
        _ = try await stranger.addAccount("stranger", role: .editor, scope: "main")

        let opened = try await catalog.remote(for: editor)
        let connector = PostgresAccountConnector(connector: catalog.connector(for: editor), opened: opened)
        #expect(!connector.requiresPassword(for: guarded.name), "unknown until the accounts are listed")

        let names = try await connector.accountNames()
        #expect(
            names == [editor.name, reader.name, guarded.name].sorted(),
            "this database's accounts only, the stranger's role left out")
        #expect(connector.requiresPassword(for: guarded.name))
        #expect(!connector.requiresPassword(for: editor.name))
        #expect(!connector.requiresPassword(for: reader.name))
        // The switcher shows each account's role, as this catalog's groups say (its scope is the
        // account's own to read); the stranger's role belongs to another catalog.
        #expect(
            try await connector.accountRoles() == [editor.name: .editor, reader.name: .reader, guarded.name: .editor])

        // The session opened before the screen is the first one handed out, once.
        let first = try await connector.connect(account: editor.name, password: nil)
        #expect(first as? PostgresRemote === opened)
        let second = try await connector.connect(account: editor.name, password: nil)
        #expect(second as? PostgresRemote !== opened)
        #expect(await connector.bookCount(account: editor.name) == 2, "the newest session counts its scope's books")
        #expect(await connector.bookCount(account: reader.name) == nil, "no session of that account yet")

        let asReader = try #require(try await connector.connect(account: reader.name, password: nil) as? PostgresRemote)
        #expect(asReader.account == reader)
        #expect(await connector.bookCount(account: reader.name) == 2)
        #expect(await connector.bookCount(account: editor.name) == nil, "the newest session is the reader's now")
    }

    @Test("the connector asks for a password the server wants, and signs in with the right one only")
    func accountConnectorPasswords() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let guarded = Account(name: PostgresTestCluster.passwordRole, role: .editor, scope: "main")
        try await catalog.setup.addAccount(guarded, password: "correct horse")
        let connector = PostgresAccountConnector(
            connector: catalog.connector(for: editor),
            opened: try await catalog.remote(for: editor))

        // Without listing first: the refused connect is what teaches it. Refused for want of
        // a password, or for a wrong one, is `notAllowed`, as `reauthenticate` says it, so the
        // switcher asks (again) instead of showing libpq's message (issue 43, item 9).
        #expect(!connector.requiresPassword(for: guarded.name))
        await #expect(throws: BookFailure.notAllowed, "signed in without the password") {
            _ = try await connector.connect(account: guarded.name, password: nil)
        }
        #expect(connector.requiresPassword(for: guarded.name))
        await #expect(throws: BookFailure.notAllowed, "signed in with a wrong password") {
            _ = try await connector.connect(account: guarded.name, password: "wrong")
        }
        let remote = try #require(
            try await connector.connect(account: guarded.name, password: "correct horse") as? PostgresRemote)
        #expect(remote.account == guarded)
    }

    @Test("libpq's multi-line messages become one line")
    func oneLineMessages() {
        #expect(
            PostgresAccountConnector.oneLine(
                "connection to server failed: FATAL:  password\n\tauthentication failed\n\n")
                == "connection to server failed: FATAL: password; authentication failed")
    }
}
