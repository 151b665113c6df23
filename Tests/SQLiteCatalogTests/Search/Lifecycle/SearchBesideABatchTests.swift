import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// Searches typed beside another program's bulk edit (issue 61): once the index has answered
/// caught up, changes committed faster than a search catches up with them do not hold a search
/// back. It answers from the index as it stands (`indexBehind`): the matches, their order and
/// the total as of the index's marker, each book's row as committed now; a book removed since
/// is answered from the books instead. Once the catch-up or the replacement is done, every
/// search answers the latest committed books again.
@Suite(.tags(.slow)) struct SearchBesideABatchTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Books the catalog holds, in scope "main": an index of them keeps 1,024 + 5,000 / 96
    /// changed books in its overlay.
    static let books = 5_000

    /// The tag the batch adds; a word no generated book holds.
    static let tag = "zephyrine"

    /// More changed books than the overlay holds, fewer than a search reads in its own read
    /// (4,096): the search finds out itself that the index is outgrown.
    @Test func anOutgrownIndexAnswersAsItStoodUntilItsReplacementIsReady() async throws {
        let setUp = try await makeCaughtUpRemote("outgrown")
        defer { setUp.held.release() }
        let (remote, before) = (setUp.remote, setUp.before)
        try await tagBooks(before.prefix(2_000), path: setUp.path)
        let now = try committedBooks(setUp.path, scope: "main")

        for (text, limit, offset) in [(Self.tag, 10, 0), ("a", 20, 0), ("a", 10, 30), ("history of", 15, 0)] {
            let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
            expectAsItStood(page, text, limit: limit, offset: offset, before: before, now: now)
        }
        // A book the index still lists, removed since (as an import removes one: its row moved
        // to the empty scope, recorded as deleted): that page comes from the books, and the
        // index is not taken for damaged.
        let listed = matches(of: SearchTerms("a"), in: before)[0]
        try withRawConnection(setUp.path) { connection in
            try execute(
                connection,
                """
                BEGIN IMMEDIATE;
                INSERT INTO deleted_books(book_id, scope, revision, deleted_at, source, change_seq)
                SELECT id, scope, revision, 0, 'csv', (SELECT max(change_seq) FROM books) + 1 FROM books WHERE id = \(listed.id);
                UPDATE books SET scope = '', change_seq = (SELECT change_seq FROM deleted_books WHERE book_id = \(listed.id))
                WHERE id = \(listed.id);
                COMMIT;
                """)
        }
        let afterRemoval = try committedBooks(setUp.path, scope: "main")
        let page = try await remote.search(SearchQuery(text: "a", limit: 20))
        #expect(page.records == Array(matches(of: SearchTerms("a"), in: afterRemoval).prefix(20)))
        #expect(page.source != .indexBehind && page.source != .index, "\(String(describing: page.source))")
        #expect(await Self.stage(remote) == "ready")
        // Another connection's commits: news, whatever the index.
        #expect(try await remote.checkForChanges() != nil)
        #expect(try await remote.checkForChanges() == nil)

        setUp.held.releaseBuild()
        await remote.finishIndexPreparation()
        // The searches answered behind are to be asked again, once, now that the index can
        // answer caught up.
        #expect(try await remote.checkForChanges() == .unspecified)
        #expect(try await remote.checkForChanges() == nil)
        try await expectCaughtUp(remote, path: setUp.path)
    }

    /// More changed books than a search reads in its own read: the catch-up is read away from the
    /// actor (held here), and a search does not wait for it.
    @Test func aCatchUpAwayFromTheActorIsNotWaitedForOnceTheIndexHasKeptUp() async throws {
        let setUp = try await makeCaughtUpRemote("catching-up")
        defer { setUp.held.release() }
        let (remote, before) = (setUp.remote, setUp.before)
        try await tagBooks(before.prefix(4_400), path: setUp.path)
        let now = try committedBooks(setUp.path, scope: "main")

        for (text, limit, offset) in [(Self.tag, 10, 0), ("a", 20, 0), ("history of", 15, 0), ("h", 8, 0)] {
            let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
            expectAsItStood(page, text, limit: limit, offset: offset, before: before, now: now)
        }
        let page = try await remote.search(SearchQuery(text: "h", limit: 8, countLater: true))
        expectAsItStood(page, "h", limit: 8, offset: 0, before: before, now: now)

        setUp.held.release()
        if let catchingUp = await runningCatchUp(of: remote) { await catchingUp.value }
        await remote.finishIndexPreparation()
        try await expectCaughtUp(remote, path: setUp.path)
    }

    // MARK: Helpers

    /// A remote over a catalog of `books` whose index has answered a search caught up, its
    /// catch-ups and builds held from then on; the books as they were then.
    private func makeCaughtUpRemote(_ name: String) async throws -> (
        remote: SQLiteBookRemote, before: [BookRecord], path: String, held: HeldWork
    ) {
        let path = directory.path("\(name).sqlite")
        _ = try makeCatalog(books: Self.books * 10 / 9 + 1, path: path)
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let held = HeldWork()
        let remote = try SQLiteCatalog.open(
            path: path, create: false, beforeIndexBuild: held.holdBuild, beforeCatchUp: held.holdCatchUp
        )
        .remote(account: "reader")
        _ = try await remote.searchIndexReport()
        let before = try committedBooks(path, scope: "main")
        #expect(before.count >= Self.books)
        let first = try await remote.search(SearchQuery(text: "a", limit: 10))
        #expect(first.source == .index && first.records == Array(matches(of: SearchTerms("a"), in: before).prefix(10)))
        return (remote, before, path, held)
    }

    /// Adds the tag to `books` as another program's bulk edit does, in chunks of its own.
    private func tagBooks(_ books: ArraySlice<BookRecord>, path: String) async throws {
        let editor = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        let report = try await BulkEdit(repository: BookRepository(remote: editor))
            .apply(try BulkChange([.addTags([Self.tag])]), to: Array(books))
        #expect(report.counts.saved == books.count)
    }

    /// The page as the catalog stood before the batch (`before`): its books, order and total,
    /// each book's row as committed now (`now`), answered by the index behind.
    private func expectAsItStood(
        _ page: SearchPage, _ text: String, limit: Int, offset: Int, before: [BookRecord], now: [BookRecord],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = matches(of: SearchTerms(text), in: before)
        let rows = Dictionary(uniqueKeysWithValues: now.map { ($0.id, $0) })
        let wanted = expected.dropFirst(offset).prefix(limit).map { rows[$0.id]! }
        #expect(page.records == wanted, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
        if case let .counting(seen) = page.totalCount {
            #expect(seen >= offset + wanted.count && seen <= expected.count, "\(text)", sourceLocation: sourceLocation)
        } else {
            #expect(page.total == min(expected.count, 10_001), "\(text)", sourceLocation: sourceLocation)
        }
        #expect(
            page.source == .indexBehind, "\(text): \(String(describing: page.source))", sourceLocation: sourceLocation)
    }

    /// Every search answers the books as committed now, from the index caught up.
    private func expectCaughtUp(_ remote: SQLiteBookRemote, path: String) async throws {
        let now = try committedBooks(path, scope: "main")
        for text in [Self.tag, "a", "history of"] {
            let page = try await remote.search(SearchQuery(text: text, limit: 20))
            let expected = matches(of: SearchTerms(text), in: now)
            #expect(page.records == Array(expected.prefix(20)) && page.total == min(expected.count, 10_001), "\(text)")
            #expect(page.source == .index, "\(text): \(String(describing: page.source))")
        }
        #expect(matches(of: SearchTerms(Self.tag), in: now).count > 0)
    }

    private static func stage(_ remote: isolated SQLiteBookRemote) -> String {
        switch remote.lifecycle.stage {
        case .unprepared: "unprepared"
        case .preparing: "preparing"
        case .bridging: "bridging"
        case .ready: "ready"
        case .distrusted: "distrusted"
        }
    }

    /// Holds a remote's index builds and catch-ups until the test releases them.
    final class HeldWork: Sendable {
        private let build = DispatchSemaphore(value: 0)
        private let catchUp = DispatchSemaphore(value: 0)

        /// The time limits only end a wait a broken remote would never end; the test releases them.
        var holdBuild: @Sendable () -> Void { { [self] in _ = build.wait(timeout: .now() + 60) } }
        var holdCatchUp: @Sendable () -> Void { { [self] in _ = catchUp.wait(timeout: .now() + 20) } }

        func releaseBuild() {
            for _ in 0..<4 { build.signal() }
        }

        func release() {
            releaseBuild()
            for _ in 0..<4 { catchUp.signal() }
        }
    }
}
