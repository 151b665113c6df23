import BookCatalog
import CatalogSimulation
import Foundation
import Synchronization
import Testing

/// A bulk edit and its undo on the in-memory store, from scenarios worked by hand: what each
/// book's outcome must be follows from what the store held when the batch read it and what
/// others committed before the batch saved it.
@Suite struct BulkEditTests {
    /// A catalog of `count` books ("Book 1"…, no details) seen by one editor, and a second
    /// editor of the same scope who saves in between.
    struct Fixture {
        let catalog: MemoryCatalog
        let editor = Account(name: "editor", role: .editor, scope: "main")
        let other = Account(name: "other", role: .editor, scope: "main")
        let books: [BookRecord]

        init(count: Int = 3, details: (Int) -> BookDetails = { _ in .empty }) {
            let catalog = MemoryCatalog()
            catalog.addAccount(editor)
            catalog.addAccount(other)
            books = (1...count).map { catalog.addBook(title: "Book \($0)", details: details($0), scope: "main") }
            self.catalog = catalog
        }

        var edit: BulkEdit {
            BulkEdit(repository: BookRepository(remote: MemoryBookRemote(catalog: catalog, account: editor)))
        }

        /// The other editor's save of book `id` as it stands, with `change` made.
        @discardableResult
        func otherSaves(_ id: Int, _ change: (BookRecord) -> (title: String, details: BookDetails)) async throws
            -> BookRecord
        {
            let remote = MemoryBookRemote(catalog: catalog, account: other)
            let now = try await remote.load(id: id)
            let (title, details) = change(now)
            return try await remote.save(
                SaveRequest(id: id, title: title, author: now.author, details: details, expectedRevision: now.revision))
        }

        func current(_ id: Int) async throws -> BookRecord {
            try await MemoryBookRemote(catalog: catalog, account: editor).load(id: id)
        }

        func history(_ id: Int) async throws -> [BookRevision] {
            try await MemoryBookRemote(catalog: catalog, account: editor).history(of: id)
        }
    }

    static func publisher(_ name: String) -> BookDetails { BookDetails(publisher: name) }

    @Test func eachBookSavedOrUnchangedAndEachRevisionInTheBatch() async throws {
        let fixture = Fixture { $0 == 2 ? Self.publisher("Penguin") : .empty }
        let change = try BulkChange([.set(.publisher("Penguin"))])
        let report = try await fixture.edit.apply(change, to: fixture.books)

        // Books 1 and 3 had no publisher: saved as revision 2. Book 2 had it already.
        #expect(report.batch == BatchID(1))
        #expect(report.outcomes.map(\.outcome.name) == ["saved", "unchanged", "saved"])
        #expect(report.outcomes.map(\.outcome.revision) == [2, 1, 2])
        for id in [1, 3] {
            #expect(try await fixture.current(id).details.publisher == "Penguin")
            #expect(try await fixture.history(id).first?.batch == BatchID(1))
        }
        #expect(try await fixture.history(2).map(\.batch) == [nil])
    }

    @Test func someoneElsesOtherFieldIsMergedAndTheSameFieldIsAConflict() async throws {
        let fixture = Fixture()
        // The batch read revision 1 of each; then the other editor saved book 1's title and
        // book 2's publisher.
        try await fixture.otherSaves(1) { ("Their title", $0.details) }
        let theirs = try await fixture.otherSaves(2) { ($0.title, Self.publisher("Their press")) }

        let report = try await fixture.edit.apply(try BulkChange([.set(.publisher("Penguin"))]), to: fixture.books)

        #expect(report.outcomes[0].outcome == .merged(try await fixture.current(1), theirs: 2))
        #expect(try await fixture.current(1).title == "Their title")
        #expect(try await fixture.current(1).details.publisher == "Penguin")
        #expect(try await fixture.current(1).revision == 3)
        #expect(report.outcomes[1].outcome == .conflict(fields: [.publisher], theirs: theirs))
        #expect(try await fixture.current(2) == theirs)
        #expect(report.outcomes[2].outcome.name == "saved")
        #expect(
            report.counts
                == {
                    var c = OutcomeCounts(); c.saved = 1; c.merged = 1; c.conflicts = 1; return c
                }())
    }

    @Test func tagsAddedAndRemovedAsSetsAndABookPastTheRuleFails() async throws {
        let full = (1...BookValidation.maximumTagCount).map { "t\($0)" }
        let fixture = Fixture {
            switch $0 {
            case 1: BookDetails(tags: ["Old", "keep"])
            case 2: BookDetails(tags: try! BookValidation.tags(full))
            default: .empty
            }
        }
        let change = try BulkChange([.addTags(["new"]), .removeTags(["old"])])
        let report = try await fixture.edit.apply(change, to: fixture.books)

        #expect(try await fixture.current(1).details.tags == ["keep", "new"])
        guard case .failed(.invalidField(.tags, _)) = report.outcomes[1].outcome else {
            Issue.record("a 51st tag breaks the rule: \(report.outcomes[1])")
            return
        }
        #expect(try await fixture.current(2).revision == 1)
        #expect(try await fixture.current(3).details.tags == ["new"])
    }

    @Test func replacingTextChangesOnlyTheBooksThatHaveIt() async throws {
        let fixture = Fixture { BookDetails(publisher: $0 == 3 ? "Pengiun Books" : "Other") }
        let change = try BulkChange([.replace(.publisher, text: "Pengiun", replacement: "Penguin")])
        let report = try await fixture.edit.apply(change, to: fixture.books)
        #expect(report.outcomes.map(\.outcome.name) == ["unchanged", "unchanged", "saved"])
        #expect(try await fixture.current(3).details.publisher == "Penguin Books")
    }

    @Test func undoRevertsTheBatchAsANewBatchThatCanBeUndone() async throws {
        let fixture = Fixture { BookDetails(series: "S\($0)") }
        let edit = fixture.edit
        let batch = try await edit.apply(try BulkChange([.set(.series("Run"))]), to: fixture.books)
        let undo = try await edit.undo(try #require(batch.batch))

        #expect(undo.batch == BatchID(2))
        #expect(undo.outcomes.map(\.outcome.name) == ["saved", "saved", "saved"])
        for book in fixture.books {
            let now = try await fixture.current(book.id)
            #expect(now.details == book.details)
            #expect(now.revision == 3)
            #expect(try await fixture.history(book.id).first?.batch == BatchID(2))
        }
        let redo = try await edit.undo(BatchID(2))
        #expect(redo.batch == BatchID(3))
        for book in fixture.books { #expect(try await fixture.current(book.id).details.series == "Run") }
    }

    @Test func undoRevertsOnlyTheBatchsFieldsAndLeavesALaterChangeOfTheSameField() async throws {
        let fixture = Fixture { BookDetails(publisher: "P\($0)", tags: ["a"]) }
        let edit = fixture.edit
        let change = try BulkChange([.set(.publisher("Penguin")), .addTags(["bulk"])])
        let batch = try #require(try await edit.apply(change, to: fixture.books).batch)
        // After the batch: book 1's title changes, book 2's publisher changes, book 3 gets a tag.
        try await fixture.otherSaves(1) { ("Later title", $0.details) }
        let later = try await fixture.otherSaves(2) {
            ($0.title, BookDetails(publisher: "Later press", tags: $0.details.tags))
        }
        try await fixture.otherSaves(3) {
            ($0.title, BookDetails(publisher: $0.details.publisher, tags: $0.details.tags + ["later"]))
        }

        let undo = try await edit.undo(batch)

        let one = try await fixture.current(1)
        #expect(one.title == "Later title")
        #expect(one.details == BookDetails(publisher: "P1", tags: ["a"]))
        #expect(undo.outcomes[1].outcome == .conflict(fields: [.publisher], theirs: later))
        #expect(try await fixture.current(2) == later)
        #expect(try await fixture.current(3).details == BookDetails(publisher: "P3", tags: ["a", "later"]))
        #expect(undo.outcomes.map(\.outcome.name) == ["saved", "conflict", "saved"])
    }

    @Test func allOrNothingSavesNothingWhenOneBookConflicts() async throws {
        let fixture = Fixture()
        let theirs = try await fixture.otherSaves(2) { ($0.title, Self.publisher("Their press")) }
        try await fixture.otherSaves(3) { ("Their title", $0.details) }
        let change = try BulkChange([.set(.publisher("Penguin"))])

        let report = try await fixture.edit.applyAllOrNothing(change, to: fixture.books)

        #expect(report.batch == nil)
        #expect(report.outcomes == [BookOutcome(id: 2, outcome: .conflict(fields: [.publisher], theirs: theirs))])
        #expect(report.notTaken == [1, 3])
        #expect(try await fixture.current(1).revision == 1)
        #expect(try await fixture.current(3).details.publisher == "")
    }

    @Test func allOrNothingMergesOtherFieldsAndSavesEveryBookInOneBatch() async throws {
        let fixture = Fixture()
        try await fixture.otherSaves(3) { ("Their title", $0.details) }
        let report = try await fixture.edit.applyAllOrNothing(try BulkChange([.set(.year(1999))]), to: fixture.books)

        #expect(report.batch == BatchID(1))
        #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved", "merged"])
        for id in 1...3 {
            #expect(try await fixture.current(id).details.year == 1999)
            #expect(try await fixture.history(id).first?.batch == BatchID(1))
        }
        #expect(try await fixture.current(3).title == "Their title")
    }

    /// An all-or-nothing batch whose answer is lost (a connection cut during its COMMIT) is
    /// found out from the store rather than left unknown: all of it committed, in a batch that can
    /// be undone, or none of it did, and each book failed saying so.
    @Test(arguments: [MemoryBookRemote.AnswerLoss.afterCommit, .beforeCommit])
    func allOrNothingWhoseAnswerIsLostIsFoundOut(loss: MemoryBookRemote.AnswerLoss) async throws {
        let fixture = Fixture()
        let remote = MemoryBookRemote(catalog: fixture.catalog, account: fixture.editor)
        await remote.loseNextAllOrNothingAnswer(loss)
        let edit = BulkEdit(repository: BookRepository(remote: remote))

        let report = try await edit.applyAllOrNothing(try BulkChange([.set(.series("Run"))]), to: fixture.books)

        switch loss {
        case .afterCommit:
            #expect(report.batch == BatchID(1))
            var saved: [BookOutcome] = []
            for book in fixture.books {
                let now = try await fixture.current(book.id)
                #expect(now.revision == 2 && now.details.series == "Run")
                #expect(try await fixture.history(book.id).first?.batch == BatchID(1))
                saved.append(BookOutcome(id: book.id, outcome: .saved(now)))
            }
            #expect(report.outcomes == saved)
            let undo = try await edit.undo(BatchID(1))
            #expect(undo.outcomes.map(\.outcome.name) == ["saved", "saved", "saved"])
            for book in fixture.books { #expect(try await fixture.current(book.id).details.series == "") }
        case .beforeCommit:
            #expect(report.batch == nil)
            let lost = BookFailure.storeUnavailable(
                "the connection was lost before the batch committed; nothing of it was saved")
            #expect(report.outcomes == fixture.books.map { BookOutcome(id: $0.id, outcome: .failed(lost)) })
            for book in fixture.books { #expect(try await fixture.current(book.id) == book) }
        }
    }

    @Test func aStoppedBatchKeepsWhatItCommittedInItsBatch() async throws {
        let fixture = Fixture(count: 4)
        let stop = BatchStop()
        let edit = fixture.edit
        // The session ends while the second book is being saved: it stops before the third.
        let report = try await edit.apply(try BulkChange([.set(.series("Run"))]), to: fixture.books, stop: stop) {
            if $0.id == 2 { stop.stop() }
        }
        #expect(report.outcomes.map(\.id) == [1, 2])
        #expect(report.notTaken == [3, 4])
        #expect(try await fixture.current(3).revision == 1)
        let undo = try await edit.undo(try #require(report.batch))
        #expect(undo.outcomes.map(\.id) == [1, 2])
        #expect(try await fixture.current(2).details.series == "")
    }

    /// A search ranks the books it marks; a batch saves them in the order of their ids, the
    /// order a store keeps its rows and their history in, and reports them in the order marked.
    @Test func aBatchSavesItsBooksInTheOrderOfTheirIdsWhateverOrderTheyCameIn() async throws {
        let fixture = Fixture(count: 4)
        let ranked = [3, 1, 4, 2].map { fixture.books[$0 - 1] }
        let heard = Mutex<[Int]>([])
        let report = try await fixture.edit.apply(try BulkChange([.set(.series("Run"))]), to: ranked) { outcome in
            heard.withLock { $0.append(outcome.id) }
        }
        #expect(heard.withLock { $0 } == [1, 2, 3, 4])
        #expect(report.outcomes.map(\.id) == [3, 1, 4, 2])
        #expect(report.outcomes.map(\.outcome.name) == ["saved", "saved", "saved", "saved"])

        let another = Fixture(count: 4)
        let all = try await another.edit.applyAllOrNothing(
            try BulkChange([.set(.series("Run"))]), to: [3, 1, 4, 2].map { another.books[$0 - 1] })
        #expect(all.outcomes.map(\.id) == [3, 1, 4, 2])
        #expect(all.outcomes.map(\.outcome.name) == ["saved", "saved", "saved", "saved"])
    }

    @Test func aReaderBeginsNoBatch() async throws {
        let fixture = Fixture()
        let reader = Account(name: "reader", role: .reader, scope: "main")
        fixture.catalog.addAccount(reader)
        let edit = BulkEdit(
            repository: BookRepository(remote: MemoryBookRemote(catalog: fixture.catalog, account: reader)))
        await #expect(throws: BookFailure.notAllowed) {
            _ = try await edit.apply(try BulkChange([.set(.series("Run"))]), to: fixture.books)
        }
    }

    @Test func anotherScopesBatchCannotBeUndone() async throws {
        let fixture = Fixture()
        let batch = try #require(
            try await fixture.edit.apply(try BulkChange([.set(.series("Run"))]), to: fixture.books).batch)
        let stranger = Account(name: "stranger", role: .editor, scope: "elsewhere")
        fixture.catalog.addAccount(stranger)
        let edit = BulkEdit(
            repository: BookRepository(remote: MemoryBookRemote(catalog: fixture.catalog, account: stranger)))
        await #expect(throws: BookFailure.missing) { _ = try await edit.undo(batch) }
    }

    @Test func aChangeNamingOneFieldTwiceOrNothingIsRefused() {
        #expect(throws: BulkChangeProblem.nothingToChange) { try BulkChange([]) }
        #expect(throws: BulkChangeProblem.fieldTwice(.tags)) { try BulkChange([.set(.tags(["a"])), .addTags(["b"])]) }
        #expect(throws: BulkChangeProblem.tagAddedAndRemoved("a")) {
            try BulkChange([.addTags(["A"]), .removeTags(["a"])])
        }
    }

    @Test func aDryRunSaysWhatWouldHappenAndSavesNothing() async throws {
        let fixture = Fixture { $0 == 1 ? Self.publisher("Penguin") : .empty }
        let outcomes = BulkEdit.preview(try BulkChange([.set(.publisher("Penguin"))]), of: fixture.books)
        #expect(outcomes.map(\.outcome.name) == ["unchanged", "saved", "saved"])
        #expect(try await fixture.current(2).revision == 1)
    }
}
