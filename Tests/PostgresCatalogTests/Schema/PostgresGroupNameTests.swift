import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// Each catalog's own group roles (schema version 8, issue 43 item 3): roles belong to the
/// whole server, so their names must not collide across databases nor pass 63 bytes.
@Suite(
    "PostgreSQL catalog group names",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresGroupNameTests {
    @Test("a catalog's groups are named after its database, or after its OID when the name does not fit or is taken")
    func groupNames() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let server = try await PostgresSetup.connect(cluster.connector(database: "postgres"))
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let plain = "books_" + suffix
        // 46 bytes is the most that fits beside "bookshelf_" and "_reader" in 63.
        let longest = String(repeating: "l", count: 38) + suffix
        let tooLong = String(repeating: "t", count: 39) + suffix
        let odd = "Bücher-" + suffix
        let taken = "taken_" + suffix
        for name in [plain, longest, tooLong, odd, taken] {
            _ = try await server.execute("CREATE DATABASE \"\(name)\"")
        }
        // A leftover of a dropped database of that name, which may still have members.
        _ = try await server.execute("CREATE ROLE bookshelf_\(taken)_editor")

        func groups(of database: String) async throws -> [[String?]] {
            let setup = try await PostgresSetup.connect(cluster.connector(database: database))
            try await setup.migrate()
            return try await setup.execute("SELECT role, name FROM bookshelf.groups ORDER BY role")
        }
        func oid(of database: String) async throws -> String {
            try #require(
                try await server.execute("SELECT oid::text FROM pg_database WHERE datname = $1", [database]).first?[0]
                    ?? nil)
        }
        func named(_ stem: String) -> [[String?]] {
            [["editor", "bookshelf_\(stem)_editor"], ["reader", "bookshelf_\(stem)_reader"]]
        }
        #expect(try await groups(of: plain) == named(plain))
        #expect(try await groups(of: longest) == named(longest))
        #expect("bookshelf_\(longest)_reader".utf8.count == 63)
        #expect(try await groups(of: tooLong) == named("db" + oid(of: tooLong)))
        #expect(try await groups(of: odd) == named("db" + oid(of: odd)))
        #expect(try await groups(of: taken) == named("db" + oid(of: taken)))
        #expect(
            try await server.execute(
                "SELECT count(*) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE g.rolname = $1",
                ["bookshelf_\(taken)_editor"]) == [["0"]])

        // Accounts work as anywhere else in the oddly named catalog.
        let setup = try await PostgresSetup.connect(cluster.connector(database: odd))
        let account = Account(name: "odd_" + suffix, role: .editor, scope: "main")
        try await setup.addAccount(account)
        try await setup.importBooks([NewBook(title: "Dune")], scope: "main")
        let remote = try await PostgresRemote.connect(cluster.connector(database: odd, user: account.name))
        let dune = try #require(try await remote.search(SearchQuery(text: "dune")).records.first)
        #expect(
            try await remote.save(id: dune.id, title: "Dune Messiah", expectedRevision: dune.revision).revision == dune
                .revision + 1)
    }
}
