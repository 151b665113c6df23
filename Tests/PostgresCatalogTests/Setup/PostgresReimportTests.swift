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

    func history(of id: Int) async throws -> [BookRevision] {
        try await catalog.remote(for: editor).history(of: id)
    }

    func deletion(of id: Int) async throws -> BookDeletion? {
        try await catalog.remote(for: editor).deletion(of: id)
    }
}

/// The same scenarios on PostgreSQL (fewer: each is a database of its own).
@Suite(.tags(.postgres, .slow)) struct PostgresReimportScenarioTests {
    @Test(arguments: 0..<20)
    func everyFieldOfEveryBookFollowsTheThreeWayRule(_ seed: Int) async throws {
        try await ReimportScenario.run(seed: UInt64(seed) &* 7919 &+ 1, on: try await PostgresReimportStore.make())
    }
}

/// `--remove-missing` on PostgreSQL: the book's row goes, its deletion is recorded and its
/// history stays, both readable by the accounts of its scope only (row-level security).
@Suite(.tags(.postgres)) struct PostgresRemoveMissingTests {
    static func goodreads(_ id: String, _ title: String) -> SourcedBook {
        SourcedBook(NewBook(title: title, author: "A"), origin: BookOrigin(source: .goodreads, id: id))
    }

    @Test func aBookGoneFromTheSourceIsDeletedWithItsHistoryKeptInItsScope() async throws {
        let store = try await PostgresReimportStore.make()
        let other = try await store.catalog.addAccount("other", role: .editor, scope: "elsewhere")
        let plan = ReimportPlan(source: .goodreads)
        _ = try await store.reimport([Self.goodreads("1", "Dune"), Self.goodreads("2", "Emma")], plan: plan)
        let emma = try #require(try await store.books().first { $0.title == "Emma" })
        try await store.edit(emma, to: NewBook(title: "Emma", author: "Jane Austen"))

        let kept = try await store.reimport([Self.goodreads("1", "Dune")], plan: plan)
        #expect(kept.goneCount == 1 && !kept.goneDeleted)
        #expect(try await store.books().map(\.title) == ["Dune", "Emma"])

        var removing = plan
        removing.removeMissing = true
        removing.dryRun = true
        let dryRun = try await store.reimport([Self.goodreads("1", "Dune")], plan: removing)
        #expect(dryRun.goneDeleted && dryRun.gone.map(\.id) == [emma.id])
        #expect(try await store.books().map(\.title) == ["Dune", "Emma"], "a dry run deletes nothing")

        removing.dryRun = false
        let removed = try await store.reimport([Self.goodreads("1", "Dune")], plan: removing)
        #expect(removed.summary().hasSuffix("gone from the source 1 (deleted)"))
        #expect(try await store.books().map(\.title) == ["Dune"])
        let history = try await store.history(of: emma.id)
        #expect(history.map(\.record.revision) == [2, 1] && history.first?.record.author == "Jane Austen")
        let deletion = try #require(try await store.deletion(of: emma.id))
        #expect(deletion.source == .goodreads && deletion.revision == 2)

        let elsewhere = try await store.catalog.remote(for: other)
        #expect(try await elsewhere.deletion(of: emma.id) == nil, "another scope reads no deletion of this one's")
        await #expect(throws: BookFailure.missing) { try await elsewhere.history(of: emma.id) }
        let again = try await store.reimport(
            [Self.goodreads("1", "Dune"), Self.goodreads("2", "Emma")], plan: removing)
        #expect(again.added == 1 && again.goneCount == 0, "back in the export: a new book")
    }
}
