import BookCatalog
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// An all-or-nothing bulk save on PostgreSQL (`BatchRecordingRemote.saveAll`, issue 61): one
/// transaction for the whole batch. What only a PostgreSQL server shows: a refusal that aborts
/// the transaction, and a connection lost before or after its COMMIT was sent. The scenarios
/// every store shares are `ContractCheck`'s batch checks.
@Suite(
    "PostgreSQL all-or-nothing bulk saves",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresAllOrNothingTests {
    typealias Fixture = PostgresBulkFixture

    @Test("an all-or-nothing batch runs one save statement parsed once, planned for a few books and not for each")
    func theBatchParsesItsStatementOnce() async throws {
        let counted = try await PostgresCountedStatements()
        defer { counted.destroy() }
        let catalog = counted.catalog
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks((1...30).map { NewBook(title: "Book \($0)") }, scope: "main")
        let repository = BookRepository(remote: try await catalog.remote(for: editor))
        try await counted.reset()

        let outcome = try await repository.saveAll(
            books.map {
                SaveRequest(id: $0.id, title: $0.title, details: BookDetails(tags: ["bulk"]), expectedRevision: 1)
            }, inNewBatch: BatchStart())

        guard case let .committed(_, saved) = outcome else {
            Issue.record("not committed: \(outcome)")
            return
        }
        #expect(saved.map(\.details.tags) == Array(repeating: ["bulk"], count: 30))
        let saves = try await counted.saves()
        #expect(saves.calls == 30)
        #expect(saves.plans <= 8, "planned \(saves.plans) times for \(saves.calls) saves")
    }

    @Test("a save the server refuses inside the transaction is named by its own refusal, and nothing is saved")
    func aRefusalInsideTheTransaction() async throws {
        let fixture = try await Fixture(count: 3)
        let books = fixture.books
        // This catalog does not let its editors write notes (a policy of its own): a save that
        // would is refused by the server (insufficient privilege) and aborts the transaction.
        let editors = try await fixture.catalog.group(.editor)
        _ = try await fixture.catalog.setup.execute(
            """
            CREATE POLICY no_notes_by_editors ON bookshelf.books AS RESTRICTIVE FOR UPDATE TO \(editors)
            USING (true) WITH CHECK (notes = '')
            """)
        let remote = try await fixture.catalog.remote(for: fixture.editor)
        let repository = BookRepository(remote: remote)
        // Only the second book's save writes notes; the first is written before it is refused.
        let requests = [
            SaveRequest(id: books[0].id, title: "New 1", expectedRevision: 1),
            SaveRequest(
                id: books[1].id, title: "New 2", details: BookDetails(notes: "Signed"), expectedRevision: 1),
            SaveRequest(id: books[2].id, title: "New 3", expectedRevision: 1),
        ]

        let refused = try await repository.saveAll(requests, inNewBatch: BatchStart())

        #expect(refused == .refused([books[1].id: .notAllowed]))
        for book in books { #expect(try await remote.load(id: book.id) == book) }
        #expect(try await fixture.batchCount() == "0")

        // A repeated operation id (a unique violation in the record of saves) aborts it too: the
        // third book is at the revision the request expects, so the refusal is not a conflict.
        let repeated = UUID.timeOrdered()
        let twice = [
            SaveRequest(id: books[0].id, title: "New 1", expectedRevision: 1, operation: repeated),
            SaveRequest(id: books[2].id, title: "New 3", expectedRevision: 1, operation: repeated),
        ]

        let refusedAgain = try await repository.saveAll(twice, inNewBatch: BatchStart())

        #expect(refusedAgain == .refused([books[2].id: .notAllowed]))
        for book in books { #expect(try await remote.load(id: book.id) == book) }
        #expect(try await remote.committedRevision(of: repeated) == nil)
        #expect(try await fixture.batchCount() == "0")

        // The same refusal through the bulk editor: the report lists the refused book with its
        // reason, the others not taken, and no batch.
        let report = try await BulkEdit(repository: repository).applyAllOrNothing(
            try BulkChange([.set(.notes("Signed"))]), to: [books[0], books[1]])

        #expect(report.batch == nil)
        #expect(report.outcomes.map(\.id) == [books[0].id])
        #expect(report.outcomes.first?.outcome == .failed(.notAllowed))
        #expect(report.notTaken == [books[1].id])
        for book in books { #expect(try await remote.load(id: book.id) == book) }

        // A batch nothing refuses commits whole, and its session knows the transaction as its
        // own: its change check finds no news.
        let titles = try BulkChange([.addTags(["bulk"])])
        let committed = try await BulkEdit(repository: repository).applyAllOrNothing(titles, to: books)

        #expect(committed.batch != nil)
        #expect(committed.outcomes.map(\.outcome.name) == ["saved", "saved", "saved"])
        #expect(try await fixture.batchCount() == "1")
        #expect(try await remote.checkForChanges() == nil)
    }

    @Test(
        "a connection cut during the batch saves none of it; cut during its commit, the outcome is unknown until the store is asked"
    )
    func aCutConnection() async throws {
        let fixture = try await Fixture(count: 4)
        let books = fixture.books
        let setup = fixture.catalog.setup
        // The server ends the saving session's own connection when the third book is written:
        // first during its statement, then during the commit (a deferred trigger runs in COMMIT).
        let (remote, repository) = try await fixture.editorCut(whileWriting: books[2])
        let change = try BulkChange([.addTags(["bulk"])])

        await #expect {
            _ = try await BulkEdit(repository: repository).applyAllOrNothing(change, to: books)
        } throws: { error in
            if case .storeUnavailable = error as? BookFailure { true } else { false }
        }
        for book in books { #expect(try await remote.load(id: book.id) == book) }
        #expect(try await fixture.batchCount() == "0")

        try await ConnectionCut.duringCommit(of: books[2].id, setup)
        let requests = books.map { SaveRequest(id: $0.id, title: "New \($0.id)", expectedRevision: 1) }

        await #expect(throws: BookFailure.outcomeUnknown) {
            _ = try await repository.saveAll(requests, inNewBatch: BatchStart())
        }
        // The bulk editor finds out from the store, through the first book's operation id, that
        // the transaction did not commit (the trigger that ended the connection ran in COMMIT),
        // and says so of every book.
        let report = try await BulkEdit(repository: repository).applyAllOrNothing(change, to: books)
        let lost = BookFailure.storeUnavailable(
            "the connection was lost before the batch committed; nothing of it was saved")
        #expect(report.batch == nil)
        #expect(report.outcomes == books.map { BookOutcome(id: $0.id, outcome: .failed(lost)) })
        // The same by every operation id. The repository kept no record from before the batch
        // as current: its next read asks the store.
        for request in requests { #expect(try await remote.committedRevision(of: request.operation) == nil) }
        for book in books {
            #expect(try await remote.load(id: book.id) == book)
            #expect(try await repository.book(id: book.id, policy: .cached) == book)
        }
        #expect(try await fixture.batchCount() == "0")
    }
}

extension PostgresBulkFixture {
    /// How many batches the catalog holds (an all-or-nothing batch that saved nothing makes none).
    func batchCount() async throws -> String? {
        try await catalog.setup.execute("SELECT count(*) FROM bookshelf.batches").first?[0]
    }
}
