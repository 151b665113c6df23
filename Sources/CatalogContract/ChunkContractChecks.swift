import BookCatalog
import Foundation
import Testing

/// A store that saves a batch in chunks (`ChunkSavingRemote`, issue 61) keeps every book's own
/// compare-and-set and outcome inside a chunk, asks the stop where it says it does, and reads a
/// chunk's books in one call: the same checks for each such store (not for one without chunks).
extension ContractCheck {
    public static let chunks: [ContractCheck] = [
        ContractCheck("a chunk's books are read at once, each as stored now, in the order asked; unseen ones left out")
        {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try chunks(try await library.remote(for: "editor"))
            let colleague = try await library.remote(for: "editor2")
            let (first, changed, fifth) = (library.book(0), library.book(2), library.book(4))
            let theirs = try await colleague.save(
                SaveRequest(id: changed.id, title: "Their title", expectedRevision: 1))
            let absent = library.catalog.books.map(\.id).max()! + 1

            let read = try await editor.load(ids: [fifth.id, library.secret.id, absent, changed.id, first.id])

            #expect(read == [fifth, theirs, first])
            let repository = BookRepository(remote: editor)
            let found = try await repository.books(ids: [changed.id, library.secret.id, first.id])
            #expect(found[changed.id] == .success(theirs) && found[first.id] == .success(first))
            #expect(found[library.secret.id] == .failure(.missing))
            #expect(await repository.cachedBook(id: changed.id) == theirs)
        },
        ContractCheck("a conflict inside a chunk is that book's alone; the others commit in the batch, merged or saved")
        {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try chunks(try await library.remote(for: "editor"))
            let colleague = try await library.remote(for: "editor2")
            let books = (0..<5).map(library.book)
            let edit = BulkEdit(repository: BookRepository(remote: editor))
            #expect(edit.repository.savesChunks)
            // After the batch read revision 1 of each, a colleague saved the third's title
            // (another field: merged) and the fourth's publisher (the same field: a conflict).
            _ = try await colleague.save(
                SaveRequest(id: books[2].id, title: "Their title", author: books[2].author, expectedRevision: 1))
            _ = try await colleague.save(
                SaveRequest(
                    id: books[3].id, title: books[3].title, author: books[3].author,
                    details: BookDetails(publisher: "Their press"), expectedRevision: 1))

            let report = try await edit.apply(try BulkChange([.set(.publisher("Penguin"))]), to: books)

            #expect(report.outcomes.map(\.id) == books.map(\.id))
            #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved", "merged", "conflict", "saved"])
            // The third was at 2 (theirs) when merged; the others went from 1 to 2.
            #expect(report.outcomes.map(\.outcome.revision) == [2, 2, 3, 2, 2])
            let batch = try #require(report.batch)
            for index in [0, 1, 2, 4] {
                #expect(try await editor.load(id: books[index].id).details.publisher == "Penguin")
                #expect(try await editor.history(of: books[index].id).first?.batch == batch)
            }
            #expect(try await editor.load(id: books[2].id).title == "Their title")
            #expect(try await editor.load(id: books[3].id).details.publisher == "Their press")
            #expect(try await editor.history(of: books[3].id).first?.batch == nil)

            let undo = try await edit.undo(batch)
            #expect(undo.outcomes.map(\.id) == [0, 1, 2, 4].map { books[$0].id })
            #expect(undo.outcomes.allSatisfy { $0.outcome.name == "saved" })
            for index in [0, 1, 2, 4] { #expect(try await editor.load(id: books[index].id).details.publisher == "") }
            #expect(try await editor.load(id: books[2].id).title == "Their title")
        },
        ContractCheck(
            "a chunk asks the stop where its store says: the books taken before it commit in the batch, no others"
        ) {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try chunks(try await library.remote(for: "editor"))
            let books = (0..<6).map(library.book)
            let batch = try await editor.beginBatch(BatchStart())
            let requests = books.map { SaveRequest(id: $0.id, title: "New \($0.id)", expectedRevision: 1) }
            // How many noes each stop gives before its yes, and how many books are then taken.
            let stops: [(answers: Int, taken: Int)] =
                switch editor.chunkStopping {
                // Asked before each book: no for the first three.
                case .beforeEachBook: [(3, 3)]
                // Asked before the statement and before its commit: a yes at the commit rolls
                // the chunk back; two noes take it whole.
                case .wholeChunk: [(0, 0), (1, 0), (2, 6)]
                }
            for (answers, taken) in stops {
                let results = try await editor.save(requests, inBatch: batch, until: BatchStop(stoppingAfter: answers))

                #expect(try results.map { try $0.get().title } == books.prefix(taken).map { "New \($0.id)" })
                for book in books.prefix(taken) { #expect(try await editor.history(of: book.id).first?.batch == batch) }
                for book in books.dropFirst(taken) { #expect(try await editor.load(id: book.id) == book) }
                #expect(try await editor.revisions(ofBatch: batch).count == taken)
            }
        },
        ContractCheck("a batch stopped inside a chunk keeps what it committed, and its undo reverts that") { fixture in
            let library = try await Library.make(fixture)
            let editor = try chunks(try await library.remote(for: "editor"))
            let books = (0..<6).map(library.book)
            let repository = BookRepository(remote: editor)
            // Three books taken. Before each book: asked once before the chunk, then before
            // each of its books. A chunk that is one statement: in chunks of three, asked before
            // the first chunk, its statement and its commit, then before the second chunk and
            // its statement (no each time), and before its commit (yes).
            let (edit, stop) =
                switch editor.chunkStopping {
                case .beforeEachBook: (BulkEdit(repository: repository), BatchStop(stoppingAfter: 4))
                case .wholeChunk: (BulkEdit(repository: repository, booksPerChunk: 3), BatchStop(stoppingAfter: 5))
                }

            let report = try await edit.apply(try BulkChange([.set(.series("Run"))]), to: books, stop: stop)

            #expect(report.outcomes.map(\.id) == books.prefix(3).map(\.id))
            #expect(report.outcomes.allSatisfy { $0.outcome.name == "saved" })
            #expect(report.notTaken == books.dropFirst(3).map(\.id))
            let batch = try #require(report.batch)
            for book in books.prefix(3) { #expect(try await editor.history(of: book.id).first?.batch == batch) }
            for book in books.dropFirst(3) { #expect(try await editor.load(id: book.id) == book) }

            let undo = try await edit.undo(batch)
            #expect(undo.outcomes.map(\.id) == books.prefix(3).map(\.id))
            for book in books.prefix(3) { #expect(try await editor.load(id: book.id).details.series == "") }
        },
        ContractCheck("a chunk saved into another account's batch, or by a reader, saves none of its books") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try chunks(try await library.remote(for: "editor"))
            let books = (0..<3).map(library.book)
            let batch = try await editor.beginBatch(BatchStart())
            let requests = books.map { SaveRequest(id: $0.id, title: "Theirs \($0.id)", expectedRevision: 1) }
            for account in ["editor2", "reader"] {
                let other = try chunks(try await library.remote(for: account))

                let results = try await other.save(requests, inBatch: batch, until: BatchStop())

                #expect(results.map { $0.failureValue } == books.map { _ in .notAllowed }, "\(account)")
            }
            for book in books { #expect(try await editor.load(id: book.id) == book) }
            #expect(try await editor.revisions(ofBatch: batch) == [])
        },
    ]

    static func chunks(_ remote: any ContractRemote) throws -> any ContractRemote & ChunkSavingRemote {
        guard let chunks = remote as? any ContractRemote & ChunkSavingRemote else {
            Issue.record("\(type(of: remote)) does not save a batch in chunks (ChunkSavingRemote)")
            throw BookFailure.unsupported
        }
        return chunks
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
