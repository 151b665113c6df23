import BookCatalog
import Foundation
import Testing

/// Batches (issue 61): a number on each revision a batch's saves made, kept under the rules
/// of the books; all or nothing in one transaction; a bulk edit and its undo through the store.
extension ContractCheck {
    public static let batches: [ContractCheck] = [
        ContractCheck("a batch's saves carry its number in history, and the batch names what each replaced") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try batches(try await library.remote(for: "editor"))
            let batch = try await editor.beginBatch(BatchStart())
            let (first, second) = (library.book(0), library.book(1))
            let savedFirst = try await editor.save(
                SaveRequest(
                    id: first.id, title: first.title, details: BookDetails(publisher: "Penguin"), expectedRevision: 1),
                inBatch: batch)
            let savedSecond = try await editor.save(
                SaveRequest(id: second.id, title: "Café Society II", expectedRevision: 1), inBatch: batch)
            let alone = try await editor.save(
                SaveRequest(id: second.id, title: "Café Society III", expectedRevision: 2))
            let history = try await (editor as any HistoryKeepingRemote).history(of: second.id)
            #expect(history.map(\.record) == [alone, savedSecond, second])
            #expect(history.map(\.batch) == [nil, batch, nil])
            #expect(
                try await editor.revisions(ofBatch: batch) == [
                    BatchRevision(before: first, after: savedFirst), BatchRevision(before: second, after: savedSecond),
                ])
        },
        ContractCheck(
            "only the account that began a batch saves into it; a reader begins none; another scope sees none"
        ) {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try batches(try await library.remote(for: "editor"))
            let colleague = try batches(try await library.remote(for: "editor2"))
            let reader = try batches(try await library.remote(for: "reader"))
            let outsider = try batches(try await library.remote(for: "outsider"))
            let batch = try await editor.beginBatch(BatchStart())
            let book = library.book(2)
            await expectFailure(.notAllowed) {
                _ = try await colleague.save(
                    SaveRequest(id: book.id, title: "Theirs", expectedRevision: 1), inBatch: batch)
            }
            await expectFailure(.notAllowed) { _ = try await reader.beginBatch(BatchStart()) }
            await expectFailure(.missing) { _ = try await outsider.revisions(ofBatch: batch) }
            await expectFailure(.missing) { _ = try await outsider.beginBatch(BatchStart(undoes: batch)) }
            #expect(try await colleague.revisions(ofBatch: batch) == [])
            #expect(try await editor.load(id: book.id) == book)
        },
        ContractCheck("all or nothing: one stale book saves none and makes no batch; none stale saves all in one") {
            fixture in
            let library = try await Library.make(fixture)
            let editor = try batches(try await library.remote(for: "editor"))
            let colleague = try await library.remote(for: "editor2")
            let (first, second) = (library.book(0), library.book(1))
            _ = try await colleague.save(SaveRequest(id: second.id, title: "Theirs", expectedRevision: 1))
            let stale = [
                SaveRequest(id: first.id, title: "Mine", expectedRevision: 1),
                SaveRequest(id: second.id, title: "Mine too", expectedRevision: 1),
            ]
            #expect(
                try await editor.saveAll(stale, inNewBatch: BatchStart())
                    == .refused([second.id: .conflict(expected: 1, actual: 2)]))
            #expect(try await editor.load(id: first.id) == first)

            let fresh = [
                SaveRequest(id: first.id, title: "Mine", expectedRevision: 1),
                SaveRequest(id: second.id, title: "Mine too", expectedRevision: 2),
            ]
            guard case let .committed(batch, saved) = try await editor.saveAll(fresh, inNewBatch: BatchStart()) else {
                Issue.record("a fresh all-or-nothing batch commits")
                return
            }
            #expect(saved.map(\.title) == ["Mine", "Mine too"] && saved.map(\.revision) == [2, 3])
            #expect(try await editor.revisions(ofBatch: batch).map(\.after) == saved)
            // The refused batch made no number: the committed one is the first after any begun before.
            await expectFailure(.missing) { _ = try await editor.revisions(ofBatch: BatchID(batch.number + 1)) }
        },
        ContractCheck("a bulk edit and its undo: every book back as it was, each step a batch of its own") { fixture in
            let library = try await Library.make(fixture)
            let editor = try await library.remote(for: "editor")
            let edit = BulkEdit(repository: BookRepository(remote: editor))
            let books = [library.book(0), library.book(2), library.book(4)]
            let change = try BulkChange([.set(.publisher("Penguin")), .addTags(["bulk"])])
            let report = try await edit.apply(change, to: books)
            let batch = try #require(report.batch)
            #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved", "saved"])
            for book in books {
                #expect(try await editor.load(id: book.id).details == BookDetails(publisher: "Penguin", tags: ["bulk"]))
            }
            let undo = try await edit.undo(batch)
            let undoBatch = try #require(undo.batch)
            #expect(undoBatch != batch)
            for book in books {
                let now = try await editor.load(id: book.id)
                #expect(now.details == book.details && now.revision == 3)
                #expect(try await editor.history(of: book.id).map(\.batch) == [undoBatch, batch, nil])
            }
        },
        ContractCheck("a bulk edit racing four single-book writers loses no acknowledged save") { fixture in
            let library = try await Library.make(fixture)
            let books = (0..<4).map(library.book)
            let bulkRemote = try await library.remote(for: "editor")
            var writers: [any ContractRemote] = []
            for _ in books { writers.append(try await library.remote(for: "editor2")) }
            let saves = 5
            let change = try BulkChange([.addTags(["bulk"])])
            // Each writer saves its book's title again and again, as the editor does: over the
            // book it read, read again when someone saved first. Every acknowledged save is kept.
            // The first saves come before the batch starts, so that every book the batch read
            // has moved on: each of its saves meets someone else's first.
            var first: [BookRecord] = []
            for (book, writer) in zip(books, writers) {
                first.append(
                    try await writer.save(
                        SaveRequest(id: book.id, title: "Writer 0", author: book.author, expectedRevision: 1)))
            }
            async let report = BulkEdit(repository: BookRepository(remote: bulkRemote)).apply(change, to: books)
            let acknowledged = try await withThrowingTaskGroup(of: [BookRecord].self) { group in
                for (start, writer) in zip(first, writers) {
                    group.addTask {
                        let repository = BookRepository(remote: writer)
                        let book = start
                        var (base, saved) = (start, [start])
                        while saved.count < saves {
                            let request = SaveRequest(
                                id: book.id, title: "Writer \(saved.count)", author: base.author,
                                details: base.details, expectedRevision: base.revision)
                            do {
                                let record = try await repository.save(request)
                                saved.append(record)
                                base = record
                            } catch BookFailure.conflict {
                                base = try await repository.book(id: book.id, policy: .refresh)
                            }
                        }
                        return saved
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let outcomes = try await report.outcomes
            // Writers change titles and the batch tags: nothing for the batch to conflict with.
            let batchSaves = outcomes.compactMap { outcome -> BookRecord? in
                switch outcome.outcome {
                case let .saved(record), let .merged(record, _): record
                default: nil
                }
            }
            // A book its writer kept saving first may be given up after the batch's merges
            // (`BulkEdit.mergeAttempts`): a failure, never a lost save.
            let givenUp = outcomes.filter { if case .failed(.conflict) = $0.outcome { true } else { false } }
            #expect(batchSaves.count + givenUp.count == books.count, "\(outcomes)")
            #expect(outcomes.allSatisfy { $0.outcome.name != "saved" }, "each book had moved on: \(outcomes)")
            for book in books {
                let history = try await bulkRemote.history(of: book.id)
                let mine = (acknowledged + batchSaves).filter { $0.id == book.id }
                // One revision per acknowledged save and none besides, each as acknowledged.
                #expect(history.count == 1 + mine.count)
                for record in mine { #expect(history.map(\.record).contains(record), "\(record)") }
                // The batch's revision changed its own field alone: a title it carried back over
                // a writer's newer one would be that writer's save lost.
                for (newer, older) in zip(history, history.dropFirst()) where batchSaves.contains(newer.record) {
                    #expect(newer.record.title == older.record.title, "\(older.record) → \(newer.record)")
                }
                let final = try await bulkRemote.load(id: book.id)
                let tagged = batchSaves.contains { $0.id == book.id }
                #expect(
                    final.title == "Writer \(saves - 1)" && final.details.tags == (tagged ? ["bulk"] : []), "\(final)")
            }
        },
    ]

    static func batches(_ remote: any ContractRemote) throws -> any BatchRecordingRemote & HistoryKeepingRemote {
        guard let batches = remote as? any BatchRecordingRemote & HistoryKeepingRemote else {
            throw BookFailure.unsupported
        }
        return batches
    }
}
