@testable import bookshelf
import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// `--account` has one default, said the same way wherever it is described (the main help,
/// each command's help, and so docs/cli.md and the man page), and every command keeps it.
@Suite struct AccountDefaultTests {
    @Test func everyAccountOptionSaysTheSameDefault() {
        // `setup --account NAME` names the account to add or update: it acts as nobody.
        let acting = Bookshelf.commands.filter { $0.name != "setup" }
        let described = Bookshelf.reference.options + acting.flatMap(\.allOptions).map(\.spec)
        let accountHelps = Set(described.filter { $0.name == "account" }.map(\.help))
        #expect(accountHelps.count == 1, "\(accountHelps.sorted())")
        #expect(
            accountHelps.first?.contains("the first editor by name") == true
                && accountHelps.first?.contains("PostgreSQL, the connection's user") == true,
            "\(accountHelps.sorted())")
    }

    /// aaron, a reader of another scope, sorts before alice, the first editor: the app and the
    /// commands (which all choose with `CatalogOpener.account`) act as alice, as their help says.
    @Test func theAppAndTheCommandsChooseTheSameAccount() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let catalog = try SQLiteCatalog.open(
            path: directory.appendingPathComponent("catalog.sqlite").path, create: true)
        for account in [
            Account(name: "aaron", role: .reader, scope: "north"), Account(name: "alice", role: .editor, scope: "main"),
            Account(name: "bob", role: .editor, scope: "main"),
        ] {
            try catalog.addAccount(account)
        }
        #expect(try CatalogOpener.account(named: nil, in: catalog).name == "alice")
        #expect(try CatalogOpener.account(named: "aaron", in: catalog).name == "aaron", "a named account is that one")

        // Only readers: the first of them.
        let readers = try SQLiteCatalog.open(
            path: directory.appendingPathComponent("readers.sqlite").path, create: true)
        for name in ["zoe", "yann"] { try readers.addAccount(Account(name: name, role: .reader, scope: "main")) }
        #expect(try CatalogOpener.account(named: nil, in: readers).name == "yann")
    }
}
