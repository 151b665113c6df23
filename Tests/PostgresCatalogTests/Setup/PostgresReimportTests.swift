import BookCatalog
import CatalogContract
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// A PostgreSQL catalog cloned from the test template, imported into as its owner, edited by
/// an account's own login role.
struct PostgresReimportStore: ReimportScenarioStore {
    let catalog: PostgresTestCatalog
    let editor: Account
    static let scope = "main"

    static func make() async throws -> PostgresReimportStore {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: scope)
        return PostgresReimportStore(catalog: catalog, editor: editor)
    }

    func reimport(_ books: [SourcedBook], plan: ReimportPlan) async throws -> ReimportReport {
        try await catalog.setup.reimport(books, scope: Self.scope, plan: plan)
    }

    func books() async throws -> [BookRecord] {
        try await catalog.setup.execute(
            "SELECT \(PostgresStatements.recordColumns()) FROM bookshelf.books WHERE scope = $1 ORDER BY id",
            [Self.scope]
        ).map(PostgresRemote.record)
    }

    func edit(_ book: BookRecord, to values: NewBook) async throws {
        let remote = try await catalog.remote(for: editor)
        _ = try await remote.save(
            SaveRequest(
                id: book.id, title: values.title, author: values.author, details: values.details,
                expectedRevision: book.revision))
    }

    func add(_ book: NewBook) async throws -> BookRecord {
        guard let added = try await catalog.addBooks([book], scope: Self.scope).first else {
            throw BookFailure.invalidResponse
        }
        return added
    }
}

/// The same scenarios on PostgreSQL (fewer: each is a database of its own).
@Suite(.tags(.postgres, .slow)) struct PostgresReimportScenarioTests {
    @Test(arguments: 0..<20)
    func everyFieldOfEveryBookFollowsTheThreeWayRule(_ seed: Int) async throws {
        try await ReimportScenario.run(seed: UInt64(seed) &* 7919 &+ 1, on: try await PostgresReimportStore.make())
    }
}
