import BookCatalog
import CatalogContract
import Foundation
import SQLiteCatalog
import Testing

/// A SQLite catalog in a temporary directory, with one editor.
struct SQLiteReimportStore: ReimportScenarioStore {
    let directory: TemporaryDirectory
    let catalog: SQLiteCatalog
    static let scope = "main"

    init() throws {
        directory = try TemporaryDirectory()
        catalog = try SQLiteCatalog.open(path: directory.path("catalog.sqlite"), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: Self.scope))
    }

    func reimport(_ books: [SourcedBook], plan: ReimportPlan) async throws -> ReimportReport {
        try catalog.reimport(books, scope: Self.scope, plan: plan)
    }

    func books() async throws -> [BookRecord] {
        let remote = try catalog.remote(account: "editor")
        let ids = try await remote.search(SearchQuery(text: "", limit: 10_000)).records.map(\.id)
        var records: [BookRecord] = []
        for id in ids.sorted() { records.append(try await remote.load(id: id)) }
        return records
    }

    func edit(_ book: BookRecord, to values: NewBook) async throws {
        let remote = try catalog.remote(account: "editor")
        _ = try await remote.save(
            SaveRequest(
                id: book.id, title: values.title, author: values.author, details: values.details,
                expectedRevision: book.revision))
    }

    func add(_ book: NewBook) async throws -> BookRecord { try catalog.addBook(book, scope: Self.scope) }

    func history(of id: Int) async throws -> [BookRevision] {
        try await catalog.remote(account: "editor").history(of: id)
    }

    func deletion(of id: Int) async throws -> BookDeletion? {
        try await catalog.remote(account: "editor").deletion(of: id)
    }
}

/// Issue 60's correctness target on SQLite: import, local edits, source edits and re-import in
/// many seeded combinations, every field of every book checked against the scenario.
@Suite struct SQLiteReimportScenarioTests {
    @Test(arguments: 0..<60)
    func everyFieldOfEveryBookFollowsTheThreeWayRule(_ seed: Int) async throws {
        try await ReimportScenario.run(seed: UInt64(seed) &* 7919 &+ 1, on: try SQLiteReimportStore())
    }
}

/// The re-import's edges on SQLite: all or nothing, a repeated id, a plain file by ISBN.
@Suite struct SQLiteReimportTests {
    static func book(_ title: String, isbn: String? = nil, year: Int? = nil) -> NewBook {
        NewBook(title: title, author: "A", details: BookDetails(isbn: isbn, year: year))
    }

    static func goodreads(_ id: String, _ book: NewBook) -> SourcedBook {
        SourcedBook(book, origin: BookOrigin(source: .goodreads, id: id))
    }

    static let plan = ReimportPlan(source: .goodreads)

    @Test func aWithdrawnReimportChangesNothing() async throws {
        let store = try SQLiteReimportStore()
        _ = try await store.reimport([Self.goodreads("1", Self.book("Dune"))], plan: Self.plan)
        let before = try await store.books()
        #expect(throws: SQLiteCatalogError.importWithdrawn) {
            try store.catalog.reimport(
                [Self.goodreads("1", Self.book("Dune Messiah")), Self.goodreads("2", Self.book("Emma"))],
                scope: SQLiteReimportStore.scope, plan: Self.plan, commitIf: { false })
        }
        #expect(try await store.books() == before)
        // Nor was the provenance touched: the same source again is unchanged, not in conflict.
        let again = try await store.reimport([Self.goodreads("1", Self.book("Dune"))], plan: Self.plan)
        #expect(again.unchanged == 1 && again.updated == 0 && again.added == 0)
    }

    @Test func twoRowsWithOneIdAreRefusedAndNothingChanges() async throws {
        let store = try SQLiteReimportStore()
        _ = try await store.reimport([Self.goodreads("1", Self.book("Dune"))], plan: Self.plan)
        let before = try await store.books()
        #expect(throws: SQLiteCatalogError.self) {
            try store.catalog.reimport(
                [Self.goodreads("1", Self.book("Dune")), Self.goodreads("1", Self.book("Dune"))],
                scope: SQLiteReimportStore.scope, plan: Self.plan)
        }
        #expect(try await store.books() == before)
    }

    @Test func aSecondImportUpdatesAndListsConflictsAndBooksGone() async throws {
        let store = try SQLiteReimportStore()
        let first = try await store.reimport(
            [
                Self.goodreads("1", Self.book("Dune", year: 1965)), Self.goodreads("2", Self.book("Emma", year: 1815)),
                Self.goodreads("3", Self.book("Kim", year: 1901)),
            ], plan: Self.plan)
        #expect(first.added == 3)
        let emma = try #require(try await store.books().first { $0.title == "Emma" })
        try await store.edit(emma, to: Self.book("Emma", year: 1816))
        let second = try await store.reimport(
            [Self.goodreads("1", Self.book("Dune", year: 1966)), Self.goodreads("2", Self.book("Emma", year: 1817))],
            plan: Self.plan)
        #expect(second.summary() == "added 0, updated 1 (1 field), unchanged 1, conflicts 1, gone from the source 1")
        #expect(second.conflicts.map(\.field) == [.year] && second.conflicts.map(\.title) == ["Emma"])
        #expect(second.gone.map(\.title) == ["Kim"])
        let years = try await store.books().map(\.details.year)
        #expect(years == [1966, 1816, 1901], "Dune's year from the source, Emma's kept, Kim kept")
    }

    @Test func booksGoneFromTheSourceAreDeletedOnlyWithRemoveMissingAndKeepTheirHistory() async throws {
        let store = try SQLiteReimportStore()
        _ = try await store.reimport(
            [Self.goodreads("1", Self.book("Dune")), Self.goodreads("2", Self.book("Emma"))], plan: Self.plan)
        let emma = try #require(try await store.books().first { $0.title == "Emma" })
        try await store.edit(emma, to: Self.book("Emma", year: 1815))
        let open = try store.catalog.remote(account: "editor")
        #expect(try await open.search(SearchQuery(text: "emma", limit: 10)).records.map(\.id) == [emma.id])
        let onlyDune = [Self.goodreads("1", Self.book("Dune"))]

        let kept = try await store.reimport(onlyDune, plan: Self.plan)
        #expect(kept.goneCount == 1 && !kept.goneDeleted && kept.gone.map(\.title) == ["Emma"])
        #expect(try await store.books().map(\.title) == ["Dune", "Emma"], "without --remove-missing: kept")

        var removing = Self.plan
        removing.removeMissing = true
        removing.dryRun = true
        let dryRun = try await store.reimport(onlyDune, plan: removing)
        #expect(
            dryRun.summary()
                == "added 0, updated 0 (0 fields), unchanged 1, conflicts 0, gone from the source 1 (deleted)")
        #expect(try await store.books().map(\.title) == ["Dune", "Emma"], "a dry run deletes nothing")
        #expect(try await store.deletion(of: emma.id) == nil)

        _ = try await open.checkForChanges()
        // A stored index from before the deletion, which a new program loads and catches up.
        _ = try await store.catalog.prepareSearchIndex(scope: SQLiteReimportStore.scope)
        removing.dryRun = false
        let removed = try await store.reimport(onlyDune, plan: removing)
        #expect(removed.goneDeleted && removed.gone.map(\.id) == [emma.id])
        #expect(try await store.books().map(\.title) == ["Dune"])
        #expect(try await open.checkForChanges() != nil, "an open program is told")
        await #expect(throws: BookFailure.missing) { try await open.load(id: emma.id) }
        let found = try await open.search(SearchQuery(text: "emma", limit: 10))
        #expect(found.records.isEmpty, "the open program's search index drops it")
        let loaded = try store.catalog.remote(account: "editor")
        let foundByLoaded = try await loaded.search(SearchQuery(text: "emma", limit: 10))
        #expect(foundByLoaded.records.isEmpty, "the stored index, caught up, drops it")
        // Its history stays, and ends with the revision it had: the local edit's, revision 2.
        let history = try await store.history(of: emma.id)
        #expect(history.map(\.record.revision) == [2, 1] && history.first?.record.details.year == 1815)
        let deletion = try #require(try await store.deletion(of: emma.id))
        #expect(deletion.source == .goodreads && deletion.revision == 2)

        // Gone now for this source too: once more, nothing is gone and nothing more deleted.
        let again = try await store.reimport(onlyDune, plan: removing)
        #expect(again.goneCount == 0 && again.unchanged == 1)
        // Were it in the export again, it is a new book.
        let back = try await store.reimport(
            onlyDune + [Self.goodreads("2", Self.book("Emma"))], plan: Self.plan)
        #expect(back.added == 1)
        #expect(try await store.books().map(\.title) == ["Dune", "Emma"])
        #expect(try await store.books().last?.id != emma.id, "a deleted book's id is never given again")
    }

    @Test func aPlainFileAddsUnlessMatchedByISBN() async throws {
        let store = try SQLiteReimportStore()
        let isbn = "9780441172719"
        let plain = ReimportPlan(source: nil)
        _ = try await store.reimport([SourcedBook(Self.book("Dune", isbn: isbn, year: 1965))], plan: plain)
        let added = try await store.reimport([SourcedBook(Self.book("Dune", isbn: isbn, year: 1965))], plan: plain)
        let count = try await store.books().count
        #expect(added.added == 1 && count == 2, "without --match, as before: added")

        let byISBN = ReimportPlan(source: nil, matchByISBN: true)
        // No earlier import by ISBN: the year differs and nothing says whose change it is.
        let first = try await store.reimport([SourcedBook(Self.book("Dune", isbn: isbn, year: 1966))], plan: byISBN)
        #expect(first.conflictCount == 1 && first.updated == 0 && first.added == 0)
        let kept = try await store.books().map(\.details.year)
        #expect(kept == [1965, 1965])
        // Now it has a base: a change of the file's alone is saved; the year the file still
        // says as it did is yours to keep.
        let second = try await store.reimport(
            [SourcedBook(Self.book("Dune (1965)", isbn: isbn, year: 1966))], plan: byISBN)
        #expect(second.updated == 1 && second.updatedFields == 1 && second.conflictCount == 0)
        let books = try await store.books()
        #expect(books.map(\.title) == ["Dune (1965)", "Dune"] && books.map(\.details.year) == [1965, 1965])
    }
}
