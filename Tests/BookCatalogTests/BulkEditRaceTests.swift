import BookCatalog
import CatalogSimulation
import Testing

/// A bulk edit racing four single-book writers over the same four books, on the stepped store:
/// for each book, either the writer's save or the batch's commits first, in all 16 orders. No
/// acknowledged save may be lost: every one is a revision the store committed, and what each
/// changed is in the final book.
@Suite struct BulkEditRaceTests {
    static let books = (1...4).map { BookRecord(id: $0, title: "Book \($0)", revision: 1, author: "Ada") }

    /// A writer as the editor saves: its own field (the title) over the book it read, read again
    /// and saved again when someone saved first.
    static func write(_ book: BookRecord, through repository: BookRepository) async throws -> BookRecord {
        var base = book
        while true {
            do {
                return try await repository.save(
                    SaveRequest(
                        id: book.id, title: "Writer \(book.id)", author: base.author, details: base.details,
                        expectedRevision: base.revision))
            } catch BookFailure.conflict {
                base = try await repository.book(id: book.id, policy: .refresh)
            }
        }
    }

    /// The number of the parked call `matching`, waiting for arrivals until there is one.
    static func parked(_ stepped: SteppedRemote, _ matching: @escaping (SteppedRemote.Call) -> Bool) async -> Int {
        var arrived = await stepped.arrivalCount()
        while true {
            if let found = await stepped.parkedCalls.first(where: { matching($0.call) }) { return found.number }
            arrived += 1
            await stepped.waitForArrivals(arrived)
        }
    }

    static func isSave(_ call: SteppedRemote.Call, of id: Int, title: String? = nil, bulk: Bool) -> Bool {
        guard case let .save(request) = call, request.id == id else { return false }
        let tagged = request.details?.tags.contains("bulk") ?? false
        return tagged == bulk && (title == nil || request.title == title)
    }

    static func isLoad(_ call: SteppedRemote.Call, of id: Int) -> Bool { call == .load(id) }

    @Test func noAcknowledgedSaveIsLostInAnyOrder() async throws {
        var cases = 0
        for writersFirst in 0..<(1 << Self.books.count) {
            let stepped = SteppedRemote(books: Self.books, account: "someone")
            let edit = BulkEdit(repository: BookRepository(remote: stepped.keepingRecords))
            let change = try BulkChange([.addTags(["bulk"])])
            let writers = Self.books.map { book in
                Task { try await Self.write(book, through: BookRepository(remote: stepped)) }
            }
            await stepped.waitForArrivals(Self.books.count, of: .save)
            let bulk = Task { try await edit.apply(change, to: Self.books) }

            for book in Self.books {
                let id = book.id
                let batchSave = await Self.parked(stepped) { Self.isSave($0, of: id, title: book.title, bulk: true) }
                let writerSave = await Self.parked(stepped) { Self.isSave($0, of: id, bulk: false) }
                if writersFirst & (1 << (id - 1)) != 0 {
                    // The writer commits revision 2; the batch conflicts, reads it, merges, saves 3.
                    await stepped.release(writerSave, .deliver)
                    await stepped.release(batchSave, .deliver)
                    await stepped.release(await Self.parked(stepped) { Self.isLoad($0, of: id) }, .deliver)
                    let merged = await Self.parked(stepped) {
                        Self.isSave($0, of: id, title: "Writer \(id)", bulk: true)
                    }
                    await stepped.release(merged, .deliver)
                } else {
                    // The batch commits revision 2; the writer conflicts, reads it, saves 3.
                    await stepped.release(batchSave, .deliver)
                    await stepped.release(writerSave, .deliver)
                    await stepped.release(await Self.parked(stepped) { Self.isLoad($0, of: id) }, .deliver)
                    let again = await Self.parked(stepped) {
                        Self.isSave($0, of: id, title: "Writer \(id)", bulk: true)
                    }
                    await stepped.release(again, .deliver)
                }
            }
            let report = try await bulk.value
            var acknowledged = try await writers.asyncMap { try await $0.value }
            #expect(report.batch == BatchID(1))
            for (book, outcome) in zip(Self.books, report.outcomes) {
                let writerFirst = writersFirst & (1 << (book.id - 1)) != 0
                switch outcome.outcome {
                case let .merged(record, theirs) where writerFirst:
                    #expect(theirs == 2 && record.revision == 3)
                    acknowledged.append(record)
                case let .saved(record) where !writerFirst:
                    #expect(record.revision == 2)
                    acknowledged.append(record)
                default:
                    Issue.record("book \(book.id), writer first: \(writerFirst): \(outcome.outcome)")
                }
            }
            for record in acknowledged {
                #expect(await stepped.committedRevisions(of: record.id).contains(record), "acknowledged \(record)")
            }
            for book in Self.books {
                let final = try #require(await stepped.books[book.id])
                #expect(final.title == "Writer \(book.id)" && final.details.tags == ["bulk"] && final.revision == 3)
                let history = await stepped.recordedRevisions(of: book.id)
                let batchRevision = report.outcomes[book.id - 1].outcome.revision
                #expect(history.map(\.batch) == history.map { $0.revision == batchRevision ? BatchID(1) : nil })
            }
            cases += 1
        }
        #expect(cases == 16)
    }

    @Test func aBatchStoppedWhileABookIsInFlightStopsAtTheNextBook() async throws {
        let stepped = SteppedRemote(books: Self.books, account: "someone")
        let edit = BulkEdit(repository: BookRepository(remote: stepped.keepingRecords))
        let stop = BatchStop()
        let change = try BulkChange([.addTags(["bulk"])])
        let bulk = Task { try await edit.apply(change, to: Self.books, stop: stop) }
        await stepped.release(await Self.parked(stepped) { Self.isSave($0, of: 1, bulk: true) }, .deliver)
        let second = await Self.parked(stepped) { Self.isSave($0, of: 2, bulk: true) }
        // The session ends with the second book's save sent: it commits, and nothing after it is sent.
        stop.stop()
        await stepped.release(second, .deliver)
        let report = try await bulk.value

        #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved"])
        #expect(report.notTaken == [3, 4])
        #expect(await stepped.arrivalCount(of: .save) == 2)
        for id in [1, 2] { #expect(await stepped.recordedRevisions(of: id).last?.batch == BatchID(1)) }
        #expect(await stepped.books[3]?.revision == 1)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
