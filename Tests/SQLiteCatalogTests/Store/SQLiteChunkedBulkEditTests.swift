import BookCatalog
import Foundation
import SQLiteCatalog
import Testing

/// A bulk edit on SQLite saves its books in chunks, one transaction each (`ChunkSavingRemote`),
/// and keeps every book's own compare-and-set and outcome inside a chunk: scenarios worked by
/// hand, as `BulkEditTests` does them on the in-memory store.
@Suite struct SQLiteChunkedBulkEditTests {
    struct Fixture {
        let directory: TemporaryDirectory
        let catalog: SQLiteCatalog
        let books: [BookRecord]

        /// `count` books ("Book 1"…, revision 1, no details), an editor and another editor of
        /// the same scope, and the books as the editor read them.
        init(count: Int) async throws {
            directory = try TemporaryDirectory()
            catalog = try SQLiteCatalog.open(path: directory.path("bulk.sqlite"), create: true)
            try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
            try catalog.addAccount(Account(name: "other", role: .editor, scope: "main"))
            try catalog.insertBooks((1...count).map { NewBook(title: "Book \($0)") }, scope: "main")
            let editor = try catalog.remote(account: "editor")
            var books: [BookRecord] = []
            for id in 1...count { books.append(try await editor.load(id: id)) }
            self.books = books
        }

        func edit() throws -> BulkEdit {
            BulkEdit(repository: BookRepository(remote: try catalog.remote(account: "editor")))
        }

        /// The other editor's save of book `id` as it stands now, on a connection of its own.
        func otherSaves(_ id: Int, _ change: (BookRecord) -> (title: String, details: BookDetails)) async throws {
            let other = try catalog.remote(account: "other")
            let now = try await other.load(id: id)
            let (title, details) = change(now)
            _ = try await other.save(
                SaveRequest(id: id, title: title, author: now.author, details: details, expectedRevision: now.revision))
        }

        func current(_ id: Int) async throws -> BookRecord { try await catalog.remote(account: "editor").load(id: id) }

        func batchOfNewestRevision(_ id: Int) async throws -> BatchID? {
            try await catalog.remote(account: "editor").history(of: id).first?.batch
        }
    }

    /// An undo reads the books of a chunk before it saves them, all in one read
    /// (`ChunkSavingRemote.load(ids:)`): each as stored now, in the order asked, a book this
    /// account does not see left out; the repository answers each, or why it has none, and
    /// admits them as single loads.
    @Test func aChunksBooksAreReadAtOnceEachAsStoredNow() async throws {
        let fixture = try await Fixture(count: 4)
        try fixture.catalog.insertBooks([NewBook(title: "Elsewhere")], scope: "other")
        try await fixture.otherSaves(3) { ("Their title", $0.details) }
        let remote = try fixture.catalog.remote(account: "editor")
        let read = try await remote.load(ids: [4, 5, 99, 3, 1])
        #expect(read.map(\.id) == [4, 3, 1])
        #expect(read[0] == fixture.books[3] && read[1].title == "Their title" && read[1].revision == 2)

        let repository = BookRepository(remote: remote)
        let found = try await repository.books(ids: [3, 5, 2])
        #expect(found[3].map { try? $0.get() }?.map(\.title) == "Their title")
        #expect(found[2] == .success(fixture.books[1]))
        #expect(found[5] == .failure(.missing))
        #expect(await repository.cachedBook(id: 3)?.revision == 2)
    }

    @Test func aConflictInsideAChunkIsThatBooksAloneAndTheOthersCommitInTheBatch() async throws {
        let fixture = try await Fixture(count: 5)
        let edit = try fixture.edit()
        #expect(edit.repository.savesChunks)
        // After the batch read revision 1 of each, the other editor saved book 3's title (another
        // field: merged) and book 4's publisher (the same field: a conflict).
        try await fixture.otherSaves(3) { ("Their title", $0.details) }
        try await fixture.otherSaves(4) { ($0.title, BookDetails(publisher: "Their press")) }

        let report = try await edit.apply(try BulkChange([.set(.publisher("Penguin"))]), to: fixture.books)

        #expect(report.outcomes.map(\.id) == [1, 2, 3, 4, 5])
        #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved", "merged", "conflict", "saved"])
        // Book 3 was at 2 (theirs) when merged; 1, 2 and 5 went from 1 to 2.
        #expect(report.outcomes.map(\.outcome.revision) == [2, 2, 3, 2, 2])
        let batch = try #require(report.batch)
        for id in [1, 2, 3, 5] {
            #expect(try await fixture.current(id).details.publisher == "Penguin")
            #expect(try await fixture.batchOfNewestRevision(id) == batch)
        }
        #expect(try await fixture.current(3).title == "Their title")
        #expect(try await fixture.current(4).details.publisher == "Their press")
        #expect(try await fixture.batchOfNewestRevision(4) == nil)

        let undo = try await edit.undo(batch)
        #expect(undo.outcomes.map(\.id) == [1, 2, 3, 5])
        #expect(undo.outcomes.allSatisfy { $0.outcome.name == "saved" })
        for id in [1, 2, 3, 5] { #expect(try await fixture.current(id).details.publisher == "") }
        #expect(try await fixture.current(3).title == "Their title")
    }

    @Test func aChunkAsksTheStopBeforeEachBookAndCommitsTheBooksBefore() async throws {
        let fixture = try await Fixture(count: 6)
        let remote = try fixture.catalog.remote(account: "editor")
        let batch = try await remote.beginBatch(BatchStart())
        let requests = fixture.books.map { SaveRequest(id: $0.id, title: "New \($0.id)", expectedRevision: 1) }

        // Asked before each book: no for the first three, then yes.
        let results = try await remote.save(requests, inBatch: batch, until: BatchStop(stoppingAfter: 3))

        #expect(try results.map { try $0.get().title } == ["New 1", "New 2", "New 3"])
        for id in 1...3 { #expect(try await fixture.batchOfNewestRevision(id) == batch) }
        for id in 4...6 { #expect(try await fixture.current(id).revision == 1) }
    }

    @Test func aBatchStoppedInTheMiddleOfAChunkKeepsAndCanUndoWhatItCommitted() async throws {
        let fixture = try await Fixture(count: 6)
        let edit = try fixture.edit()
        // Asked once before the chunk, then before each of its books: books 1 to 3 are taken.
        let stop = BatchStop(stoppingAfter: 4)

        let report = try await edit.apply(try BulkChange([.set(.series("Run"))]), to: fixture.books, stop: stop)

        #expect(report.outcomes.map(\.id) == [1, 2, 3])
        #expect(report.outcomes.allSatisfy { $0.outcome.name == "saved" })
        #expect(report.notTaken == [4, 5, 6])
        let batch = try #require(report.batch)
        for id in 1...3 { #expect(try await fixture.batchOfNewestRevision(id) == batch) }
        for id in 4...6 { #expect(try await fixture.current(id).revision == 1) }

        let undo = try await edit.undo(batch)
        #expect(undo.outcomes.map(\.id) == [1, 2, 3])
        for id in 1...3 { #expect(try await fixture.current(id).details.series == "") }
    }

    @Test func undoNamesABookWhoseRevisionBeforeTheBatchIsNotInTheHistory() async throws {
        let fixture = try await Fixture(count: 3)
        // Another program moved book 2 on to revision 2 straight in the file: no history row.
        try withRawConnection(fixture.directory.path("bulk.sqlite")) {
            try execute($0, "UPDATE books SET revision = 2 WHERE id = 2")
        }
        let edit = try fixture.edit()
        let books = [fixture.books[0], try await fixture.current(2), fixture.books[2]]
        let batch = try #require(
            try await edit.apply(try BulkChange([.set(.publisher("Penguin"))]), to: books).batch)

        let undo = try await edit.undo(batch)

        #expect(undo.outcomes.map(\.id) == [1, 2, 3])
        #expect(undo.outcomes.map(\.outcome.name) == ["saved", "failed", "saved"])
        #expect(undo.outcomes[1].outcome == .failed(.unrecordedBeforeBatch))
        #expect(try await fixture.current(1).details.publisher == "")
        #expect(try await fixture.current(2).details.publisher == "Penguin")
        #expect(try await fixture.current(3).details.publisher == "")
    }
}
