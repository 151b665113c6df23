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
    ]

    static func batches(_ remote: any ContractRemote) throws -> any BatchRecordingRemote & HistoryKeepingRemote {
        guard let batches = remote as? any BatchRecordingRemote & HistoryKeepingRemote else {
            throw BookFailure.unsupported
        }
        return batches
    }
}
