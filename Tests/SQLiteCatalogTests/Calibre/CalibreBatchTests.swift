import BookCatalog
import Foundation
@testable import SQLiteCatalog
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bulk edits, undo and history on a Calibre library in place (issues 61 and 62): the batches
/// and the saves Bookshelf made are kept in its state folder, never in `metadata.db`, and all or
/// nothing is one transaction of calibre's.
@Suite struct CalibreBatchTests {
    let directory: TemporaryDirectory
    let library: CalibreLibraryCopy
    let lockName = "bookshelf-test-\(UUID().uuidString)"
    var stateFolder: String { directory.path("state/bookshelf") }

    init() throws {
        directory = try TemporaryDirectory()
        library = try CalibreLibraryCopy(in: directory)
    }

    private func repository() throws -> BookRepository {
        BookRepository(
            remote: try CalibreLibraryStore.open(path: library.folder).remote(
                lockName: lockName, stateFolder: stateFolder)
        )
    }

    /// The fixture's Pratchett books, and each one's tags as calibredb made them.
    static let pratchett = [2, 5, 6]
    static let fixtureTags: [Int: Set<String>] = [
        2: ["humour", "fantasy"], 5: ["fantasy", "humour", "Discworld"], 6: [],
    ]

    private func tags(of book: Int) throws -> Set<String> {
        Set(
            try library.column(
                "SELECT name FROM tags JOIN books_tags_link ON tags.id = tag WHERE book = \(book)"))
    }

    private func matches(_ query: String, in repository: BookRepository) async throws -> [BookRecord] {
        try await repository.search(SearchQuery(text: query, limit: 100)).records
    }

    @Test func aBulkEditIsABatchKeptBesideTheLibraryAndItsUndoRevertsIt() async throws {
        let repository = try repository()
        let books = try await matches("pratchett", in: repository)
        #expect(books.map(\.id).sorted() == Self.pratchett)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: library.folder).sorted()

        let edit = BulkEdit(repository: repository)
        let report = try await edit.apply(try BulkChange([.addTags(["signed"])]), to: books)
        #expect(report.counts.saved == 3)
        let batch = try #require(report.batch)
        for id in Self.pratchett { #expect(try tags(of: id) == Self.fixtureTags[id]!.union(["signed"])) }

        // Kept in the state folder, 0600, named by the library's uuid; nothing new in the library.
        let uuid = try #require(try library.column("SELECT uuid FROM library_id").first)
        let log = "\(stateFolder)/calibre/\(uuid).sqlite"
        var status = stat()
        #expect(stat(log, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.folder).sorted() == filesBefore)
        #expect(try library.column("SELECT count(*) FROM sqlite_master WHERE name IN ('batches', 'saves')") == ["0"])

        let made = try await repository.revisions(ofBatch: batch)
        #expect(made.map(\.after.id).sorted() == Self.pratchett)

        let undo = try await edit.undo(batch)
        #expect(undo.counts.saved == 3)
        let undoBatch = try #require(undo.batch)
        #expect(undoBatch != batch)
        for id in Self.pratchett { #expect(try tags(of: id) == Self.fixtureTags[id]!) }

        // History: the undo's revision, the batch's, and the book as calibre had it, newest first.
        let history = try await repository.history(id: 2)
        #expect(history.map(\.batch) == [undoBatch, batch, nil])
        #expect(history.map { $0.account == nil } == [false, false, true])
        #expect(Set(history[0].record.details.tags) == Self.fixtureTags[2]!)
        #expect(Set(history[1].record.details.tags) == Self.fixtureTags[2]!.union(["signed"]))
        #expect(history[2].record.title == "Good Omens")
    }

    @Test func allOrNothingWritesNoneWhenOneBookConflictsAndAllWhenItMerges() async throws {
        let repository = try repository()
        let books = try await matches("pratchett", in: repository)
        let change = try BulkChange([.set(.publisher("Victor Gollancz"))])
        let publishers =
            "SELECT coalesce(max(name), '') FROM books_publishers_link JOIN publishers ON publishers.id = publisher WHERE book = "
        // calibre changes book 5's publisher since the read: the same field, a conflict.
        try library.execute(
            "INSERT INTO publishers(name) VALUES ('Transworld Test'); "
                + "DELETE FROM books_publishers_link WHERE book = 5; "
                + "INSERT INTO books_publishers_link(book, publisher) SELECT 5, id FROM publishers WHERE name = 'Transworld Test'; "
                + "UPDATE books SET last_modified = '2026-12-06 14:02:00.000001+00:00' WHERE id = 5")
        let before2 = try library.column(publishers + "2"), before6 = try library.column(publishers + "6")

        let edit = BulkEdit(repository: repository)
        let refused = try await edit.applyAllOrNothing(change, to: books)
        #expect(refused.batch == nil)
        #expect(refused.counts.conflicts == 1)
        #expect(try library.column(publishers + "2") == before2)
        #expect(try library.column(publishers + "6") == before6)
        #expect(try library.column(publishers + "5") == ["Transworld Test"])
        await #expect(throws: BookFailure.missing) { try await repository.revisions(ofBatch: BatchID(1)) }

        // calibre changes another field of book 5 instead: merged, and every book saved in one batch.
        let fresh = try await matches("pratchett", in: repository)
        try library.execute(
            "UPDATE books SET title = 'Guards! Guards! (calibre)', last_modified = '2026-12-06 14:03:00.000001+00:00' WHERE id = 5"
        )
        let committed = try await edit.applyAllOrNothing(change, to: fresh)
        let batch = try #require(committed.batch)
        #expect(committed.counts.saved == 2)
        #expect(committed.counts.merged == 1)
        for id in Self.pratchett { #expect(try library.column(publishers + "\(id)") == ["Victor Gollancz"]) }
        #expect(try library.column("SELECT title FROM books WHERE id = 5") == ["Guards! Guards! (calibre)"])
        #expect(try await repository.revisions(ofBatch: batch).map(\.after.id).sorted() == Self.pratchett)
    }

    @Test func aSaveOfOneBookIsInItsHistoryWithWhatItReplaced() async throws {
        let repository = try repository()
        let base = try await repository.book(id: 1, policy: .refresh)
        let saved = try await repository.save(
            SaveRequest(id: 1, title: "The Two Towers", expectedRevision: base.revision))
        // calibre changes the book after.
        try library.execute(
            "UPDATE books SET title = 'The Two Towers (calibre)', last_modified = '2027-01-01 00:00:00.000001+00:00' WHERE id = 1"
        )
        let history = try await repository.history(id: 1)
        #expect(
            history.map(\.record.title) == ["The Two Towers (calibre)", "The Two Towers", "The Fellowship of the Ring"])
        #expect(history.map(\.revision) == [1_798_761_600_000_001, saved.revision, base.revision])
        #expect(history.map { $0.account == nil } == [true, false, true])
    }

    @Test func aPendingSaveCountsWhenTheBookReachedItsRevisionAndIsDroppedWhenItDidNot() throws {
        let log = try #require(
            try CalibreSaveLog.open(stateFolder: stateFolder, libraryID: "0b8ce4d4-5e7e-4d6c-9e3c-1f2a3b4c5d6e"))
        let before = BookRecord(id: 1, title: "A", revision: 10, author: "X")
        let save = { (revision: Int) in
            CalibreSaveLog.Save(
                before: before, after: BookRecord(id: 1, title: "B", revision: revision, author: "X"), operation: UUID()
            )
        }
        _ = try log.recordPending([save(20)], account: "owner", batch: nil)
        _ = try log.recordPending([save(30)], account: "owner", batch: nil)
        #expect(try log.saves(of: 1).isEmpty)
        #expect(try log.pendingBooks() == [1])
        // calibre has the book at 25: the save of 20 committed (and was changed since), 30 never did.
        try log.settle(book: 1, current: BookRecord(id: 1, title: "C", revision: 25, author: "X"))
        #expect(try log.saves(of: 1).map(\.after.revision) == [20])
        #expect(try log.pendingBooks().isEmpty)
    }

    @Test func aLibraryUUIDThatCannotNameAFileKeepsNoLog() throws {
        #expect(try CalibreSaveLog.open(stateFolder: stateFolder, libraryID: "../../etc/passwd") == nil)
        #expect(try CalibreSaveLog.open(stateFolder: stateFolder, libraryID: "") == nil)
    }
}
