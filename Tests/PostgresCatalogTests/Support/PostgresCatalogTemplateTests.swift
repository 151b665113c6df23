import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// The fixture's catalogs cloned from a template (`PostgresCatalogTemplate`) must be what a
/// catalog migrated from nothing is, groups of its own included: a clone sharing its groups
/// with another would let the other's accounts into it.
@Suite(
    "PostgreSQL test catalogs cloned from a template",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"), .tags(.postgres))
struct PostgresCatalogTemplateTests {
    @Test("two cloned catalogs have groups of their own, named after their databases")
    func clonesHaveTheirOwnGroups() async throws {
        let first = try await PostgresTestCatalog.make()
        let second = try await PostgresTestCatalog.make()
        for catalog in [first, second] {
            #expect(try await catalog.group(.reader) == "bookshelf_\(catalog.database)_reader")
            #expect(try await catalog.group(.editor) == "bookshelf_\(catalog.database)_editor")
        }
        // An editor of the first is nobody in the second.
        let editor = try await first.addAccount("editor", role: .editor, scope: "main")
        let session = try await RawSQLSession(second.connector(for: editor))
        #expect(try await session.run("SELECT count(*) FROM bookshelf.books").sqlState == "42501")
    }

    @Test("a cloned catalog's schema is a migrated catalog's, its privileges and policies on its own groups")
    func aCloneIsWhatTheMigrationsMake() async throws {
        let migrated = try await PostgresTestCatalog.make(origin: .migrations)
        let cloned = try await PostgresTestCatalog.make()
        let difference = try await cloned.schemaDump().firstDifference(from: migrated.schemaDump())
        #expect(difference == nil, "cloned (first) and migrated (second): \(difference ?? "")")
    }
}
