import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// What the SQLite connector tells the account switcher.
@Suite struct SQLiteConnectorTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func theConnectorTellsEachAccountsRoleAndScope() async throws {
        let catalog = try SQLiteCatalog.open(path: directory.path("catalog.sqlite"), create: true)
        let accounts = [
            Account(name: "alice", role: .editor, scope: "main"), Account(name: "dave", role: .reader, scope: "main"),
            Account(name: "carol", role: .editor, scope: "north"),
        ]
        for account in accounts { try catalog.addAccount(account) }
        let connector = SQLiteConnector(catalog: catalog)
        #expect(try await connector.accountNames() == ["alice", "carol", "dave"])
        #expect(try await connector.accountRoles() == ["alice": .editor, "carol": .editor, "dave": .reader])
        #expect(try await connector.accountScopes() == ["alice": "main", "carol": "north", "dave": "main"])
    }
}
