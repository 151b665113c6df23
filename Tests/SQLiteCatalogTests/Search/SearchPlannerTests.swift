import BookCatalog
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import TestTags
import Testing

/// Which way of answering a search answers (`SearchStrategy`, asked in order), by the state of the
/// index and the query, as the page itself says it (`SearchPage.source`, what F4 and `--trace`
/// show); whichever answers, the page is the committed books' page.
@Suite(.tags(.slow)) struct SearchPlannerTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A stored index too far behind to keep bridges the rebuild, but catching it up takes a
    /// while at scale (a second at ten million books): the first results, the empty query, come
    /// from the books table at once, in the same order, and typed queries from the bridge.
    @Test func theFirstResultsOverAStaleStoredIndexDoNotWaitForItsCatchUp() async throws {
        let path = directory.path("catalog.sqlite")
        let books = try await makeBridgingCatalog(path: path)
        // Read as committed, without a remote (whose own rebuild would store a current index).
        let current = try committedBooks(path, scope: "main")
        #expect(current.count == books.count + 1_100)

        // The rebuild is held until the searches below have been answered.
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }  // should a search throw first, the build thread is not left waiting
        let reopened = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() })
        let remote = try reopened.remote(account: "reader")
        let first = try await remote.search(SearchQuery(text: "", limit: 20))
        #expect(
            first.records
                == Array(current.sorted { SearchTerms("").sortKey($0) < SearchTerms("").sortKey($1) }.prefix(20)))
        try await expectExactSearches(remote, current)
        build.signal()
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactSearches(remote, current)
    }

    /// The state of a remote's index when a case of `whichStrategyAnswersFollowsTheIndexAndTheQuery` is searched.
    enum IndexState: String, CaseIterable, CustomStringConvertible {
        /// No stored index: it is being built (held until the end of the test).
        case building
        /// A stored index too far behind to keep (more changes than its overlay holds, fewer
        /// than a bridge may): it bridges the rebuild (held), caught up on the remote's actor.
        case bridging
        /// The same, behind by more changes than the remote reads itself (4,096): the catch-up is
        /// read away from the actor, and held until a case releases it.
        case catchingUp
        /// A stored index, current but for a few changes since, loaded before the case.
        case current

        var description: String { rawValue }
    }

    /// One case: the index's state, what the same remote was asked before (counted), the query,
    /// and what is to answer it, as the page names it (`SearchAnswerSource`).
    struct StrategyCase: CustomStringConvertible, Sendable {
        let state: IndexState
        let before: [String]
        let query: SearchQuery
        let source: SearchAnswerSource
        /// Lets the held catch-up go as the query is asked (`catchingUp`): the query waits for it.
        var releasesCatchUp = false

        init(
            _ state: IndexState, before: [String] = [], _ text: String, limit: Int = 20, offset: Int = 0,
            countLater: Bool = false,
            _ source: SearchAnswerSource, releasesCatchUp: Bool = false
        ) {
            self.state = state
            self.before = before
            query = SearchQuery(text: text, limit: limit, offset: offset, countLater: countLater)
            self.source = source
            self.releasesCatchUp = releasesCatchUp
        }

        var description: String {
            "\(state): \(before.map { "\"\($0)\", " }.joined())\"\(query.text)\" \(query.limit) \(query.offset)"
                + (query.countLater ? " count later" : "")
        }
    }

    /// Which strategy answers, by the state of the index and the query (`SearchStrategy`, asked
    /// in order). Whatever answers, the page is the committed books' page, with their exact
    /// count or, for a page before its count, a count so far that is never more than the matches.
    static let strategyCases: [StrategyCase] = [
        // The first results come from the books in title order while no index is current, at once.
        StrategyCase(.building, "", .firstResults),
        StrategyCase(.bridging, "", .firstResults),
        StrategyCase(.catchingUp, "", .firstResults),
        StrategyCase(.current, "", .firstResults),
        // ... and from the index once a search has caught it up.
        StrategyCase(.current, before: ["secret"], "", .index),
        // The index answers every word query it can, counted at once.
        StrategyCase(.current, "secret g", .index),
        StrategyCase(.current, "murak", .index),
        StrategyCase(.current, "h", limit: 3, countLater: true, .index),
        // The ISBN shortcut is no way of its own: its book comes first from whichever way answers.
        StrategyCase(.current, Self.isbnQuery, .index),
        StrategyCase(.building, Self.isbnQuery, .booksTable),
        StrategyCase(.bridging, "a", .staleIndex),
        StrategyCase(.bridging, "hist rom", limit: 5, offset: 2, .staleIndex),
        // A catch-up read away from the actor is waited for, but not by a page before its count.
        StrategyCase(.catchingUp, "tolstoy", limit: 8, countLater: true, .staleIndex, releasesCatchUp: true),
        StrategyCase(.catchingUp, "h", limit: 8, .staleIndex, releasesCatchUp: true),
        StrategyCase(.catchingUp, "ha", limit: 8, countLater: true, .titleOrder),
        StrategyCase(.catchingUp, "habitat 1", limit: 8, countLater: true, .titleOrder),
        // While the index is built: the table, read once, then an earlier scan a query narrows,
        // and the table's copy for one that narrows none.
        StrategyCase(.building, "secret", .booksTable),
        StrategyCase(.building, before: ["secret"], "secret g", .earlierScan),
        StrategyCase(.building, before: ["secret"], "secret", limit: 3, offset: 2, .earlierScan),
        StrategyCase(.building, before: ["secret"], "ro", .booksCopy),
        StrategyCase(.building, before: ["hist"], "hist r", .earlierScan),
        StrategyCase(.building, before: ["hi"], "hi-f", .earlierScan),
        StrategyCase(.building, before: ["क"], "कि", .booksCopy),
        StrategyCase(.building, before: ["कि"], "कि घ", .earlierScan),
        // A page before its count: an earlier scan's first matches, then the title order, and
        // when neither holds it, the whole answer, counted.
        StrategyCase(.building, before: ["mur"], "murak", countLater: true, .leadingMatches),
        StrategyCase(.building, "h", limit: 3, countLater: true, .titleOrder),
        StrategyCase(.building, "harbor 1", limit: 5, countLater: true, .titleOrder),
        StrategyCase(.building, "haruki", countLater: true, .booksTable),
        // A query narrowing a kept scan of few rows is answered whole from it, counted.
        StrategyCase(.building, before: ["secret"], "secret g", countLater: true, .earlierScan),
    ]

    /// The ISBN of one book of the catalogs in `building` and `current`, and a query for it as
    /// people type one (hyphenated): it matches no book's text.
    static let isbn = "9780441172719"
    static let isbnQuery = "978-0-441-17271-9"

    /// What holds one remote's index build and catch-up, and says when a catch-up began.
    private final class HeldWork: Sendable {
        let build = DispatchSemaphore(value: 0)
        let catchUp = DispatchSemaphore(value: 0)
        let catchUpBegan: AsyncStream<Void>
        private let began: AsyncStream<Void>.Continuation

        init() { (catchUpBegan, began) = AsyncStream.makeStream(of: Void.self) }

        func open(_ path: String) throws -> SQLiteBookRemote {
            // The time limit only ends a wait a broken remote would never end; the test releases it.
            try SQLiteCatalog.open(
                path: path, create: false, beforeIndexBuild: { self.build.wait() },
                beforeCatchUp: {
                    self.began.yield(); _ = self.catchUp.wait(timeout: .now() + 60)
                }
            )
            .remote(account: "reader")
        }

        func release() {
            build.signal()
            catchUp.signal()
            catchUp.signal()
        }
    }

    @Test func whichStrategyAnswersFollowsTheIndexAndTheQuery() async throws {
        var catalogs: [IndexState: String] = [:]
        var held: [HeldWork] = []
        defer { for work in held { work.release() } }
        var answered: Set<SearchAnswerSource> = []
        for testCase in Self.strategyCases {
            if catalogs[testCase.state] == nil {
                catalogs[testCase.state] = try await makeStrategyCatalog(testCase.state)
            }
            let path = catalogs[testCase.state]!
            let work = HeldWork()
            held.append(work)
            let remote = try work.open(path)
            switch testCase.state {
            case .current:
                _ = try await remote.searchIndexReport()
            case .catchingUp:
                // The first results start the catch-up (`firstResults`), which is then read away from the actor.
                _ = try await remote.search(SearchQuery(text: ""))
                for await _ in work.catchUpBegan { break }
            case .building, .bridging:
                break
            }
            for text in testCase.before { _ = try await remote.search(SearchQuery(text: text)) }
            if testCase.releasesCatchUp { work.catchUp.signal() }
            // Through `search`, as the app asks: the page says what answered it.
            let page = try await remote.search(testCase.query)

            let query = testCase.query
            let terms = SearchTerms(query.text)
            let expected = matches(of: terms, in: try committedBooks(path, scope: "main"))
            let wanted = Array(expected.dropFirst(query.offset).prefix(query.limit))
            #expect(!wanted.isEmpty, "\(testCase): the scenario gives a page")
            #expect(page.records == wanted, "\(testCase)")
            if case let .counting(seen) = page.totalCount {
                #expect(
                    query.countLater && seen >= query.offset + wanted.count && seen <= expected.count,
                    "\(testCase): \(seen)")
            } else {
                let counted = TotalCount(
                    counted: expected.count, offset: query.offset, shown: wanted.count,
                    hasMore: query.offset + wanted.count < expected.count)
                #expect(page.totalCount == counted, "\(testCase)")
            }
            #expect(page.source == testCase.source, "\(testCase): \(String(describing: page.source))")
            if let source = page.source { answered.insert(source) }
        }
        print("\(Self.strategyCases.count) cases of which strategy answers")
        // Every way but the matches in order, which needs a kept scan of more than 65,536
        // matches (`SearchTuning.wholeMatches`); `aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage`
        // has it on the books table search alone.
        #expect(
            answered == [
                .firstResults, .index, .staleIndex, .booksTable, .earlierScan, .booksCopy, .titleOrder, .leadingMatches,
            ])
    }

    /// A catalog at `path` whose stored index is too far behind to keep, but not to bridge its
    /// rebuild: more changed rows than an index keeps in its overlay (1,024 + 120 / 96), fewer
    /// than a bridge may hold. Answers the books of "main" as the index has them.
    private func makeBridgingCatalog(path: String) async throws -> [BookRecord] {
        let (catalog, books) = try makeCatalog(books: 120, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        var generator = GeneratedBooks(seed: 8)
        try catalog.insertBooks(generator.newBooks(1_100), scope: "main")
        return books
    }

    /// A catalog file whose index is in `state` for a new remote (its builds held).
    private func makeStrategyCatalog(_ state: IndexState) async throws -> String {
        let path = directory.path("strategies-\(state).sqlite")
        switch state {
        case .building, .current:
            let catalog = try SQLiteCatalog.open(path: path, create: true)
            try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
            try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
            var books = (0..<500).map { NewBook(title: "Secret garden \($0)", author: "Ann Reed") }
            books.append(NewBook(title: "Dune", author: "Frank Herbert", details: BookDetails(isbn: Self.isbn)))
            books += (0..<600).map { NewBook(title: "Zed \($0)", author: "Bo Li") }
            books += (0..<3_000).map { NewBook(title: "Book \($0)", author: "Haruki Murakami") }
            books += (0..<60).map { NewBook(title: "Harbor Lights \($0)", author: "") }
            books += [
                "History of Rivers", "Historic Roads", "A history of Rome", "Hi-Fi Sound", "Hi-Fi Again", "किताब घर",
                "कमल",
                "Rome Rising",
            ].map { NewBook(title: $0, author: "") }
            try catalog.insertBooks(books, scope: "main")
            if state == .current {
                // Stored, then a few changes: the index catches up with them at its first search.
                #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
                try catalog.insertBooks(
                    [NewBook(title: "Secret gardens again"), NewBook(title: "Murakami nights")], scope: "main")
            }
        case .bridging:
            _ = try await makeBridgingCatalog(path: path)
        case .catchingUp:
            // More changed rows than are read on the remote's actor (4,096) and than an index keeps
            // in its overlay (1,024 + 12,000 / 96), fewer than a bridge may hold (four times that).
            let (catalog, _) = try makeCatalog(books: 120, path: path)
            var generator = GeneratedBooks(seed: 5)
            try catalog.insertBooks(generator.newBooks(11_900), scope: "main")
            #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
            try catalog.insertBooks(
                generator.newBooks(4_430) + (0..<60).map { NewBook(title: "Habitat \($0)", author: "") }
                    + (0..<10).map { NewBook(title: "Quiet \($0)", author: "Leo Tolstoy") }, scope: "main")
        }
        return path
    }
}
