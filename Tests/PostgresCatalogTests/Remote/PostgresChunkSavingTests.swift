import BookCatalog
import BookshelfTestSupport
import Foundation
@testable import PostgresCatalog
import TestTags
import Testing

/// A bulk edit on PostgreSQL saves its books in chunks, one transaction each
/// (`ChunkSavingRemote`, issue 61); what only a PostgreSQL server shows. The scenarios every
/// chunk-saving store shares are `ContractCheck.chunks`.
@Suite(
    "PostgreSQL chunked bulk saves",
    .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresChunkSavingTests {
    typealias Fixture = PostgresBulkFixture

    @Test("a chunk is one transaction: every book of it written by the same one, not news to its own session")
    func aChunkIsOneTransaction() async throws {
        let fixture = try await Fixture(count: 5)
        let imported = try await fixture.writers()
        let remote = try await fixture.catalog.remote(for: fixture.editor)
        let repository = BookRepository(remote: remote)

        let report = try await BulkEdit(repository: repository).apply(
            try BulkChange([.addTags(["bulk"])]), to: fixture.books)

        #expect(report.outcomes.map(\.outcome.name) == Array(repeating: "saved", count: 5))
        let writers = try await fixture.writers()
        #expect(Set(writers).count == 1 && writers != imported, "\(writers)")
        // The session named the chunk's transaction as its own: its change check finds no news.
        let notice = try await remote.checkForChanges()
        #expect(notice == nil)
    }

    @Test("a chunk's books are saved by one statement; a book changed behind its back is merged and saved alone")
    func aChunkIsOneStatement() async throws {
        let counted = try await PostgresCountedStatements()
        defer { counted.destroy() }
        let catalog = counted.catalog
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        let books = try await catalog.addBooks((1...40).map { NewBook(title: "Book \($0)") }, scope: "main")
        let remote = try await catalog.remote(for: editor)
        let repository = BookRepository(remote: remote)
        // A book changed behind the edit's back: the chunk asks why it was not saved, and the
        // edit then merges it and saves it alone.
        _ = try await catalog.setup.execute(
            "UPDATE bookshelf.books SET notes = 'changed', revision = revision + 1 WHERE id = $1",
            [String(books[20].id)])
        try await counted.reset()

        let report = try await BulkEdit(repository: repository).apply(
            try BulkChange([.addTags(["bulk"])]), to: books)

        let outcomes = report.outcomes.map(\.outcome.name)
        #expect(outcomes == Array(repeating: "saved", count: 20) + ["merged"] + Array(repeating: "saved", count: 19))
        #expect(try await counted.saves(startingWith: "WITH wanted AS (").calls == 1)
        #expect(try await counted.saves().calls == 1, "the merged book's own save")
        for (index, book) in books.enumerated() {
            let stored = try await remote.load(id: book.id)
            #expect(stored.details.tags == ["bulk"] && stored.revision == (index == 20 ? 3 : 2))
        }
        #expect(try await remote.load(id: books[20].id).details.notes == "changed")
    }

    @Test("text that JSON escapes reaches the catalog through a chunk's statement as it was typed")
    func awkwardTextGoesThroughAChunk() async throws {
        let fixture = try await Fixture(count: 3)
        let remote = try await fixture.catalog.remote(for: fixture.editor)
        let repository = BookRepository(remote: remote)
        let author = #"Quote " and back\slash \u0041 😀 e\#u{301} 日本 /"#
        let notes = "line one\nline \"two\" \\ tab-free\n\u{2603}"
        let tags = [#"say "hi""#, #"C:\path"#, "naïve"]

        let report = try await BulkEdit(repository: repository).apply(
            try BulkChange([.set(.author(author)), .set(.notes(notes)), .addTags(tags)]), to: fixture.books)

        #expect(report.outcomes.map(\.outcome.name) == Array(repeating: "saved", count: 3))
        for book in fixture.books {
            let stored = try await remote.load(id: book.id)
            #expect(stored.author == author && stored.details.notes == notes)
            #expect(Set(stored.details.tags) == Set(tags))
        }
    }

    @Test("a stop while a chunk's statement waits cancels it: the chunks before stay in the batch, none of it is saved")
    func aStopCancelsTheChunkInFlight() async throws {
        let fixture = try await Fixture(count: 6)
        try await Self.stopCancelsTheSecondChunk(
            of: fixture.books, savedBy: try await fixture.catalog.remote(for: fixture.editor),
            account: fixture.editor.name, onTheServer: fixture.catalog.adminConnector)
    }

    /// Six `books` edited in chunks of three by `remote`, signed in as `account`: another
    /// transaction, opened through `server` (a superuser's connection to the server itself),
    /// holds the fifth book's row, so the second chunk's statement waits for it until the stop
    /// cancels it. The first chunk stays in the batch, none of the second is saved, and the
    /// session's connection is usable after: the undo reverts the batch.
    static func stopCancelsTheSecondChunk(
        of books: [BookRecord], savedBy remote: PostgresRemote, account: String, onTheServer server: PostgresConnector
    ) async throws {
        try #require(books.count == 6)
        let holder = try await RawSQLSession(server)
        let watcher = try await RawSQLSession(server)
        _ = try await holder.rows("BEGIN")
        _ = try await holder.rows("SELECT id FROM bookshelf.books WHERE id = $1 FOR UPDATE", [String(books[4].id)])
        let stop = BatchStop()
        let edit = BulkEdit(repository: BookRepository(remote: remote), booksPerChunk: 3)
        let running = Task { try await edit.apply(try BulkChange([.addTags(["bulk"])]), to: books, stop: stop) }
        let waiting = "SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'"
        try await Await.until("the second chunk to wait on the row lock", every: .milliseconds(10)) {
            try await watcher.rows(waiting, [account])
        } _: {
            !$0.isEmpty
        }

        stop.stop()

        // The statement stops waiting while the lock is still held: the stop cancelled it.
        var cancelled = true
        do {
            try await Await.until("the chunk's statement to give up its wait", timeout: .seconds(10)) {
                try await watcher.rows(waiting, [account])
            } _: {
                $0.isEmpty
            }
        } catch {
            cancelled = false
        }
        _ = try await holder.rows("ROLLBACK")
        #expect(cancelled, "the statement waited for the lock after the stop")
        let report = try await running.value
        #expect(report.outcomes.map(\.id) == books.prefix(3).map(\.id))
        #expect(report.outcomes.allSatisfy { $0.outcome.name == "saved" })
        #expect(report.notTaken == books.dropFirst(3).map(\.id))
        let batch = try #require(report.batch)
        #expect(try await remote.revisions(ofBatch: batch).map(\.after.id) == books.prefix(3).map(\.id))
        for book in books.dropFirst(3) { #expect(try await remote.load(id: book.id) == book) }
        let undo = try await edit.undo(batch)
        #expect(undo.outcomes.map(\.outcome.name) == ["saved", "saved", "saved"])
        for book in books.prefix(3) { #expect(try await remote.load(id: book.id).details.tags == []) }
    }

    @Test("a value the catalog refuses fails that book alone; the chunk is saved again one book at a time")
    func aRefusedValueFailsThatBookAlone() async throws {
        let fixture = try await Fixture(count: 6)
        let books = fixture.books
        // The catalog's rule is stricter than this build's: the third book may have no publisher.
        _ = try await fixture.catalog.setup.execute(
            """
            ALTER TABLE bookshelf.books DROP CONSTRAINT books_publisher_valid,
                ADD CONSTRAINT books_publisher_valid CHECK (publisher = '' OR id <> \(books[2].id)) NOT VALID
            """)
        let remote = try await fixture.catalog.remote(for: fixture.editor)
        let repository = BookRepository(remote: remote)
        let batch = try await repository.beginBatch(BatchStart())
        let requests = books.map {
            SaveRequest(id: $0.id, title: $0.title, details: BookDetails(publisher: "Penguin"), expectedRevision: 1)
        }
        let refusal = BookFailure.invalidField(.publisher, reason: "the catalog refused the value")

        // Asked before the chunk's statement and after it (the third book's value refused it);
        // then before each book saved alone: no for the first four, yes for the fifth.
        let results = try await repository.save(requests, inBatch: batch, until: BatchStop(stoppingAfter: 6))

        try #require(results.count == 4)
        #expect(results.dropFirst(2).first == .failure(refusal))
        for index in [0, 1, 3] {
            #expect(try results[index].get().details.publisher == "Penguin")
            #expect(try await remote.history(of: books[index].id).first?.batch == batch)
        }
        for index in [2, 4, 5] { #expect(try await remote.load(id: books[index].id) == books[index]) }

        let report = try await BulkEdit(repository: repository).apply(
            try BulkChange([.set(.publisher("Penguin"))]), to: [books[2], books[4], books[5]])

        #expect(report.outcomes.map(\.outcome.name) == ["failed", "saved", "saved"])
        #expect(report.outcomes.first?.outcome == .failed(refusal))
        #expect(try await remote.load(id: books[5].id).details.publisher == "Penguin")
    }

    @Test("a connection cut during a chunk commits none of it; cut during its commit, the outcome is unknown")
    func aCutConnection() async throws {
        let fixture = try await Fixture(count: 4)
        let books = fixture.books
        let setup = fixture.catalog.setup
        // The server ends the saving session's own connection when the third book is written:
        // first during its statement, then during the commit (a deferred trigger runs in COMMIT).
        let (remote, repository) = try await fixture.editorCut(whileWriting: books[2])
        let batch = try await repository.beginBatch(BatchStart())
        let requests = books.map { SaveRequest(id: $0.id, title: "New \($0.id)", expectedRevision: 1) }

        await #expect {
            _ = try await repository.save(requests, inBatch: batch, until: BatchStop())
        } throws: { error in
            if case .storeUnavailable = error as? BookFailure { true } else { false }
        }
        for book in books { #expect(try await remote.load(id: book.id) == book) }

        try await ConnectionCut.duringCommit(of: books[2].id, setup)
        await #expect(throws: BookFailure.outcomeUnknown) {
            _ = try await repository.save(requests, inBatch: batch, until: BatchStop())
        }
        // Settled through the operation ids: the commit did not happen.
        for request in requests { #expect(try await remote.committedRevision(of: request.operation) == nil) }
        for book in books { #expect(try await remote.load(id: book.id) == book) }
    }
}

extension PostgresBulkFixture {
    /// The transaction that last wrote each book, as the server recorded it, by id.
    func writers() async throws -> [String?] {
        try await catalog.setup.execute("SELECT changed_in::text FROM bookshelf.books ORDER BY id").map { $0[0] }
    }
}
