import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
import Synchronization
import Testing

/// The search index snapshot stored in the catalog: who stores it, who loads it, and that a
/// loaded snapshot answers exactly like a fresh build even when it is stale or damaged.
@Suite struct SQLiteSearchIndexTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let queries = [
        "", "a", "al", "alp", "h", "hi", "his", "rom", "東", "東京", "cafe", "zo", "2", "al ro", "ro al",
        "b g", "history of", "e", "l'e", "hi-fi", "zzz",
    ]

    @Test func aBuiltIndexIsStoredAndTheNextRemoteLoadsIt() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let first = try catalog.remote(account: "editor")
        let (built, stored) = try await first.searchIndexReport()
        #expect(built.origin == .built && built.books == books.count && stored)
        try await expectExactSearches(first, books)

        let second = try catalog.remote(account: "reader")
        let (loaded, _) = try await second.searchIndexReport()
        #expect(loaded.origin == .loadedSnapshot && loaded.books == books.count && loaded.bytes == built.bytes)
        // Both read the index in place from the file (the builder reads back what it stored).
        #expect(built.mapped && loaded.mapped)
        try await expectExactSearches(second, books)
    }

    @Test func aStaleSnapshotIsLoadedAndCaughtUpWithLaterChanges() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let first = try catalog.remote(account: "editor")
        #expect(try await first.searchIndexReport().snapshotStored)
        // Changes after the snapshot: edits (some twice), new books, and a book in another scope.
        var current = books
        var generator = GeneratedBooks(seed: 11)
        for step in 0..<30 {
            let index = (step * 37) % 20  // revisits some books
            let seed = generator.book()
            current[index] = try await first.save(
                SaveRequest(
                    id: current[index].id, title: seed.title, author: seed.author,
                    expectedRevision: current[index].revision))
        }
        for _ in 0..<25 {
            let seed = generator.book()
            current.append(try catalog.addBook(NewBook(title: seed.title, author: seed.author), scope: "main"))
        }
        try catalog.addBook(NewBook(title: "Alpha elsewhere"), scope: "other")

        let second = try catalog.remote(account: "reader")
        #expect(try await second.searchIndexReport().report.origin == .loadedSnapshot)
        try await expectExactSearches(second, current)
    }

    /// Keys that type out the rest of a rare word compile to the same words of the index, whose
    /// matches are kept from one key to the next; a change between two keys (a matching book
    /// renamed away, another added) is in the next key's answer all the same.
    @Test func aWordTypedOutAcrossAChangeIsAnsweredAsTheBooksAreNow() async throws {
        let path = directory.path("typed-out.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.insertBooks(
            (0..<300).map { NewBook(title: "Book \($0)", author: "Author \($0 % 7)") }
                + (0..<6).map { NewBook(title: "Murakami days \($0)") }, scope: "main")
        let editor = try catalog.remote(account: "editor")
        #expect(try await editor.searchIndexReport().report.books == 306)
        func expectCommitted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let terms = SearchTerms(text)
            let expected = try committedBooks(path, scope: "main").filter(terms.matches).sorted {
                terms.sortKey($0) < terms.sortKey($1)
            }
            let page = try await editor.search(SearchQuery(text: text, limit: 50))
            #expect(page.records == expected && page.total == expected.count, "\(text)", sourceLocation: sourceLocation)
        }
        try await expectCommitted("murak")
        let renamed = try #require(try committedBooks(path, scope: "main").first { $0.title == "Murakami days 3" })
        _ = try await editor.save(id: renamed.id, title: "Quiet days", expectedRevision: renamed.revision)
        try catalog.addBook(NewBook(title: "Murakami nights"), scope: "main")
        try await expectCommitted("muraka")
        try await expectCommitted("murakam")
    }

    @Test func aSnapshotTooFarBehindIsRebuiltAndStoredAgain() async throws {
        let (catalog, books) = try makeCatalog(books: 50)
        let first = try catalog.remote(account: "editor")
        #expect(try await first.searchIndexReport().snapshotStored)
        // More changed rows than an index may hold in its overlay (1,024 for a small catalog).
        var generator = GeneratedBooks(seed: 5)
        try catalog.insertBooks(
            (0..<1_100).map { _ in
                let seed = generator.book(); return NewBook(title: seed.title, author: seed.author)
            },
            scope: "main")
        let second = try catalog.remote(account: "reader")
        let (report, stored) = try await second.searchIndexReport()
        #expect(report.origin == .built && report.books == books.count + 1_100 && stored)
        let current = try await allBooks(second)
        #expect(current.count == books.count + 1_100)
        try await expectExactSearches(second, current)
        // The first remote's overlay was too large as well: it moved to a fresh index.
        try await expectExactSearches(first, current)
        #expect(try await catalog.remote(account: "reader").searchIndexReport().report.origin == .loadedSnapshot)
    }

    /// A stored index too far behind to keep bridges the rebuild, but catching it up takes a
    /// while at scale (a second at ten million books): the first results, the empty query, come
    /// from the books table at once, in the same order, and typed queries from the bridge.
    @Test func theFirstResultsOverAStaleStoredIndexDoNotWaitForItsCatchUp() async throws {
        let path = directory.path("catalog.sqlite")
        let (catalog, books) = try makeCatalog(books: 120, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // More changed rows than an index keeps in its overlay (1,024 + 120 / 96), fewer than a bridge may hold.
        var generator = GeneratedBooks(seed: 8)
        try catalog.insertBooks(
            (0..<1_100).map { _ in
                let seed = generator.book(); return NewBook(title: seed.title, author: seed.author)
            },
            scope: "main")
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

    /// Catching up with many changes (a stale stored index bridging its rebuild: seconds at ten
    /// million books) is read away from the remote, so keys typed meanwhile get their pages
    /// from the title order at once, with their counts to follow; a page that needs the index
    /// waits for the catch-up instead of doing it again. Every page and count is what the
    /// committed books give, and the changed books are in them.
    @Test func keysTypedWhileAStaleIndexCatchesUpGetTheirPagesFromTheTitleOrder() async throws {
        let path = directory.path("catch-up.sqlite")
        let (catalog, _) = try makeCatalog(books: 120, path: path)
        var generator = GeneratedBooks(seed: 5)
        func generated(_ count: Int) -> [NewBook] {
            (0..<count).map { _ in
                let seed = generator.book(); return NewBook(title: seed.title, author: seed.author)
            }
        }
        try catalog.insertBooks(generated(11_900), scope: "main")
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // More changed rows than are read on the remote's actor (4,096) and than an index keeps
        // in its overlay (1,024 + 12,000 / 96), fewer than a bridge may hold (four times that).
        try catalog.insertBooks(
            generated(4_440) + (0..<60).map { NewBook(title: "Habitat \($0)", author: "") }, scope: "main")
        let current = try committedBooks(path, scope: "main")

        let build = DispatchSemaphore(value: 0)
        let catchUp = DispatchSemaphore(value: 0)
        defer { build.signal(); catchUp.signal() }
        // The time limit only ends a wait a broken remote would never end; the test releases it.
        let reopened = try SQLiteCatalog.open(
            path: path, create: false, beforeIndexBuild: { build.wait() },
            beforeCatchUp: { _ = catchUp.wait(timeout: .now() + 60) })
        let remote = try reopened.remote(account: "reader")
        let first = try await remote.search(SearchQuery(text: "", limit: 20))
        #expect(first.records.count == 20)
        func expected(_ text: String) -> [BookRecord] {
            let terms = SearchTerms(text)
            return current.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
        }
        for text in ["h", "ha", "hab", "habitat 1"] {
            let page = try await remote.search(SearchQuery(text: text, limit: 8, countLater: true))
            #expect(page.records == Array(expected(text).prefix(8)), "\(text)")
            guard case let .counting(seen) = page.totalCount else {
                Issue.record("\(text): \(page.totalCount)")
                continue
            }
            #expect(seen >= 8 && seen <= expected(text).count, "\(text)")
        }
        // "tolstoy" is an author's name: its page needs the index, which waits for the catch-up.
        let waiting = Task { try await remote.search(SearchQuery(text: "tolstoy", limit: 8, countLater: true)) }
        catchUp.signal()
        let byIndex = try await waiting.value
        #expect(byIndex.records == Array(expected("tolstoy").prefix(8)) && byIndex.total == expected("tolstoy").count)
        let counted = try await remote.search(SearchQuery(text: "h", limit: 8))
        #expect(counted.records == Array(expected("h").prefix(8)) && counted.total == min(expected("h").count, 10_001))
        build.signal()
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactPages("habitat 1", [(8, 0), (5, 3)], remote, current)
    }

    /// A word query answered from the books table because the index is being built says so on
    /// its page (the screen explains the wait with it); the list of all books, quick there,
    /// does not; and once the index is ready, no page does.
    @Test func aWordQueryAnsweredWhileTheIndexIsBuiltSaysSo() async throws {
        let path = directory.path("catalog.sqlite")
        let (_, books) = try makeCatalog(books: 120, path: path)
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }  // should a search throw first, the build thread is not left waiting
        let reopened = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() })
        let remote = try reopened.remote(account: "reader")
        for query in ["a", "hist rom"] {
            let page = try await remote.search(SearchQuery(text: query, limit: 20))
            #expect(page.answeredWhileIndexing, "\(query)")
            #expect(
                page.records
                    == Array(
                        books.filter { SearchTerms(query).matches($0) }
                            .sorted { SearchTerms(query).sortKey($0) < SearchTerms(query).sortKey($1) }.prefix(20)))
        }
        #expect(try await !remote.search(SearchQuery(text: "", limit: 20)).answeredWhileIndexing)
        build.signal()
        #expect(try await remote.searchIndexReport().report.origin == .built)
        for query in ["a", "hist rom", ""] {
            #expect(try await !remote.search(SearchQuery(text: query, limit: 20)).answeredWhileIndexing, "\(query)")
        }
    }

    /// While the index is built, a typed query that narrows an earlier one ("hi" after "h") is
    /// answered from that scan's matching rows and the rows changed since; one that does not
    /// (another word, or a character the earlier prefix does not begin: "कि" after "क") reads
    /// the table again. Either way the pages and totals are what the committed books give,
    /// also when another program renamed a book out of or into the matches, or added one,
    /// between two keys.
    @Test func typingWhileTheIndexIsBuiltNarrowsEarlierScansExactly() async throws {
        let path = directory.path("typing.sqlite")
        let (catalog, _) = try makeCatalog(books: 400, path: path)
        let hindi = try catalog.addBook(NewBook(title: "किताब घर", author: ""), scope: "main")
        _ = try catalog.addBook(NewBook(title: "कमल", author: ""), scope: "main")
        // "क" does not begin "किताब" as a character (the vowel sign joins it), "कि" does.
        #expect(!SearchTerms("क").matches(hindi) && SearchTerms("कि").matches(hindi))
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        let writer = try catalog.remote(account: "editor")

        enum Change {
            case renameMatchOut(of: String), renameIntoMatches(of: String, title: String), add(title: String)
        }
        func apply(_ change: Change) async throws {
            let committed = try committedBooks(path, scope: "main")
            switch change {
            case let .renameMatchOut(of: query):
                let book = try #require(committed.first { SearchTerms(query).matches($0) })
                _ = try await writer.save(
                    SaveRequest(id: book.id, title: "Quiet", author: "", expectedRevision: book.revision))
            case let .renameIntoMatches(of: query, title):
                let book = try #require(committed.first { !SearchTerms(query).matches($0) })
                _ = try await writer.save(
                    SaveRequest(id: book.id, title: title, author: "", expectedRevision: book.revision))
            case let .add(title):
                _ = try catalog.addBook(NewBook(title: title), scope: "main")
            }
        }
        // What is typed, and what another program does first. Most narrow a query typed before
        // ("hi" after "h"), some narrow none ("ro", "कि" after "क"): `strategyCases` says which
        // way each kind is answered.
        let steps: [(text: String, change: Change?)] = [
            ("h", nil), ("hi", nil), ("his", nil),
            ("hist", .renameMatchOut(of: "hist")),
            ("hist r", .renameIntoMatches(of: "hist", title: "History of Rivers")),
            ("hist ro", .add(title: "Historic Roads")), ("hist r", .add(title: "Histories Retold")),
            ("hi-", nil), ("hi-f", .renameIntoMatches(of: "hi-f", title: "Hi-Fi Sound")),
            ("ro", nil), ("alp", nil), ("क", nil), ("कि", nil), ("कि घ", nil),
        ]
        for step in steps {
            if let change = step.change { try await apply(change) }
            let terms = SearchTerms(step.text)
            let expected = try committedBooks(path, scope: "main").filter(terms.matches).sorted {
                terms.sortKey($0) < terms.sortKey($1)
            }
            #expect(!expected.isEmpty, "\(step.text)")
            for (limit, offset) in [(50, 0), (3, 2)] {
                let page = try await reader.search(SearchQuery(text: step.text, limit: limit, offset: offset))
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                #expect(page.records == wanted && page.total == expected.count, "\(step.text) \(limit) \(offset)")
                #expect(page.answeredWhileIndexing)
            }
        }
        build.signal()
        #expect(try await reader.searchIndexReport().report.origin == .built)
        try await expectExactPages("hist r", [(50, 0)], reader, try committedBooks(path, scope: "main"))
    }

    /// While the index is built, the app may have a page before its count
    /// (`SearchQuery.countLater`): when the page is all books whose titles begin with the
    /// first word, it is read in title order from the title index, including titles that begin
    /// with punctuation (whose keys sort before the letters, or between digits and letters),
    /// and it is exactly the page the committed books give, with a count so far that is never
    /// more than the matches. Otherwise (the page needs other books, or a title whose key
    /// begins beyond ASCII) the whole answer comes, counted. The same query without
    /// `countLater` gives the same page and the exact count.
    @Test func aPageBeforeItsCountIsTheCommittedBooksPage() async throws {
        let path = directory.path("page-first.sqlite")
        let (catalog, _) = try makeCatalog(books: 200, path: path)
        let titles =
            [
                "\"Hello,\" said the Hare", "[Hidden] Rooms", "...Hope Remains", "¿Hay alguien?", "“Hark,” the Herald",
                "Hay Fever", "Haystack Nights", "Hayride", "O'Brien's Pub", "O'Hara's Way", "1984 Revisited",
                "1001 Nights", "The House", "(1) Hymns", "日本の歴史", "「日本」の心", "«日々»", "— 日記 —", "本日の日",
                "の日", "にほんご", "Ωmega Point", "Я и ты", "¡Ωmega!", "‹Ωmega›",
            ]
            + (0..<60).map { "Harbor Lights \($0)" } + (0..<30).map { "日誌 \($0)" }
        try catalog.insertBooks(titles.map { NewBook(title: $0, author: "") }, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        // The counted searches go to another remote, so that the matches they keep do not
        // answer the reader's pages first (`LeadingMatches`).
        let counter = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        defer { build.signal() }  // the top one releases the reader's
        let books = try committedBooks(path, scope: "main")
        var titleOrderAnswers = 0
        for text in [
            "h", "ha", "hay", "hark", "hel", "hid", "hop", "o'b", "1", "the h", "h the", "harbor 1", "hymn", "zzz",
            "日", "日本", "日誌 1", "の", "ω", "я и",
        ] {
            let terms = SearchTerms(text)
            let expected = books.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
            for (limit, offset) in [(50, 0), (5, 0), (3, 2), (10, 45)] {
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                let exactCount = TotalCount(
                    counted: expected.count, offset: offset, shown: wanted.count,
                    hasMore: offset + wanted.count < expected.count)
                // The title order can give the page when its first offset + limit books all rank
                // first and have keys beginning at or below the query's first character (those
                // beginning with punctuation above it sort after all that begin with it).
                let firstOnes = expected.prefix(offset + limit)
                let lead = text.unicodeScalars.first!.value
                let titleOrderCan =
                    firstOnes.count == offset + limit
                    && firstOnes.allSatisfy {
                        terms.rank($0) == 0 && SearchTerms.fold($0.title).unicodeScalars.first!.value <= lead
                    }
                let query = SearchQuery(text: text, limit: limit, offset: offset, countLater: true)
                let answered = try await reader.answer(query)
                let (page, answer) = (answered.page, answered.source)
                #expect(page.records == wanted, "\(text) \(limit) \(offset)")
                // An earlier scan's first matches are asked before the title order, and may
                // hold the page too (`aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage`).
                if answer.countFollows {
                    if answer == .titleOrder { titleOrderAnswers += 1 }
                    #expect(titleOrderCan || answer != .titleOrder, "\(text) \(limit) \(offset)")
                    guard case let .counting(seen) = page.totalCount else {
                        Issue.record("\(text) \(limit) \(offset): \(page.totalCount), not counting")
                        continue
                    }
                    #expect(seen >= offset + wanted.count && seen <= expected.count, "\(text) \(limit) \(offset)")
                } else {
                    // A query narrowing a kept scan of few rows (the reader's own whole answers,
                    // "h" among them) is answered whole from it, counted.
                    #expect(
                        !titleOrderCan || answer == .earlierScan,
                        "\(text) \(limit) \(offset): the title order holds the page")
                    #expect(page.totalCount == exactCount, "\(text) \(limit) \(offset)")
                }
                let counted = try await counter.search(query.countingNow)
                #expect(
                    counted.records == wanted && counted.totalCount == exactCount, "\(text) \(limit) \(offset) counted")
            }
        }
        #expect(titleOrderAnswers >= 8, "the scenario gives the title order pages to answer: \(titleOrderAnswers)")
        // Keys beginning with punctuation sort first, and these titles begin with "h" words.
        let first = try await reader.search(SearchQuery(text: "h", limit: 3, countLater: true))
        #expect(first.records.map(\.title) == ["\"Hello,\" said the Hare", "...Hope Remains", "[Hidden] Rooms"])
        // So do keys beginning with punctuation beyond ASCII below the first character ("«", "—"
        // and "「" below "日", "¡" below "ω", in UTF-8 as in code points); those above it ("‹"
        // above "ω") sort after every key beginning with it.
        let reopened = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        let beyondASCII = try await reopened.search(SearchQuery(text: "日", limit: 3, countLater: true))
        #expect(beyondASCII.records.map(\.title) == ["«日々»", "— 日記 —", "「日本」の心"])
        let greek = try await reopened.search(SearchQuery(text: "ω", limit: 2, countLater: true))
        #expect(greek.records.map(\.title) == ["¡Ωmega!", "Ωmega Point"])
        build.signal()  // the three remotes' builds
        build.signal()
        build.signal()
        #expect(try await reader.searchIndexReport().report.origin == .built)
        let page = try await reader.search(SearchQuery(text: "h", limit: 5, countLater: true))
        #expect(page.totalCount.isExact, "the index counts at once")
    }

    // MARK: Which strategy answers

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
    /// and which strategy is to answer it (`SearchStrategy`).
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
        // The first results come from the books table while no index is current, at once.
        StrategyCase(.building, "", .booksTable),
        StrategyCase(.bridging, "", .booksTable),
        StrategyCase(.catchingUp, "", .booksTable),
        StrategyCase(.current, "", .booksTable),
        // ... and from the index once a search has caught it up.
        StrategyCase(.current, before: ["secret"], "", .index),
        // The index answers every word query it can, counted at once.
        StrategyCase(.current, "secret g", .index),
        StrategyCase(.current, "murak", .index),
        StrategyCase(.current, "h", limit: 3, countLater: true, .index),
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
            let answer = try await remote.answer(testCase.query)

            let query = testCase.query
            let terms = SearchTerms(query.text)
            let expected = try committedBooks(path, scope: "main").filter { terms.isEmpty || terms.matches($0) }
                .sorted { terms.sortKey($0) < terms.sortKey($1) }
            let wanted = Array(expected.dropFirst(query.offset).prefix(query.limit))
            #expect(!wanted.isEmpty, "\(testCase): the scenario gives a page")
            #expect(answer.page.records == wanted, "\(testCase)")
            if case let .counting(seen) = answer.page.totalCount {
                #expect(
                    query.countLater && seen >= query.offset + wanted.count && seen <= expected.count,
                    "\(testCase): \(seen)")
            } else {
                let counted = TotalCount(
                    counted: expected.count, offset: query.offset, shown: wanted.count,
                    hasMore: query.offset + wanted.count < expected.count)
                #expect(answer.page.totalCount == counted, "\(testCase)")
            }
            #expect(answer.source == testCase.source, "\(testCase): \(answer.source)")
            answered.insert(answer.source)
        }
        print("\(Self.strategyCases.count) cases of which strategy answers")
        // Every source but the matches in order, which needs a kept scan of more than 65,536
        // matches (`SearchTuning.wholeMatches`); `aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage`
        // has it on the books table search alone.
        #expect(answered == [.index, .staleIndex, .booksTable, .earlierScan, .booksCopy, .titleOrder, .leadingMatches])
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
            // More changed rows than an index keeps in its overlay (1,024 + 120 / 96), fewer than a bridge may hold.
            let (catalog, _) = try makeCatalog(books: 120, path: path)
            #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
            var generator = GeneratedBooks(seed: 8)
            try catalog.insertBooks(
                (0..<1_100).map { _ in
                    let seed = generator.book(); return NewBook(title: seed.title, author: seed.author)
                },
                scope: "main")
        case .catchingUp:
            // More changed rows than are read on the remote's actor (4,096) and than an index keeps
            // in its overlay (1,024 + 12,000 / 96), fewer than a bridge may hold (four times that).
            let (catalog, _) = try makeCatalog(books: 120, path: path)
            var generator = GeneratedBooks(seed: 5)
            func generated(_ count: Int) -> [NewBook] {
                (0..<count).map { _ in
                    let seed = generator.book(); return NewBook(title: seed.title, author: seed.author)
                }
            }
            try catalog.insertBooks(generated(11_900), scope: "main")
            #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
            try catalog.insertBooks(
                generated(4_430) + (0..<60).map { NewBook(title: "Habitat \($0)", author: "") }
                    + (0..<10).map { NewBook(title: "Quiet \($0)", author: "Leo Tolstoy") }, scope: "main")
        }
        return path
    }

    /// A copy of the table that a cancelled scan left half made is resumed by the next scan
    /// after its last id, and then answers on its own: exactly what the committed books say,
    /// though another program renamed books on both sides of where the copy stopped and added
    /// books before and after it was finished.
    @Test func aCopyOfTheTableLeftUnfinishedIsResumedExactly() async throws {
        let path = directory.path("copy.sqlite")
        var (catalog, books) = try makeCatalog(books: 300, path: path)
        // A token that begins with a letter's byte but not with it as a character ("q" and a
        // spacing vowel sign) does not match that letter.
        let marked = try catalog.addBook(
            NewBook(title: "Q\u{093F}uiet zebra", author: "Z\u{093F}oe Ray"), scope: "main")
        #expect(!SearchTerms("q").matches(marked) && SearchTerms("z").rank(marked) == 1)
        books.insert(marked, at: 0)
        // Enough books beginning with "l" that the best are trimmed, and one whose key (with its
        // leading apostrophe) sorts before all of them though its terms do not.
        try catalog.insertBooks((0..<300).map { NewBook(title: "Lamp \($0)") }, scope: "main")
        _ = try catalog.addBook(NewBook(title: "'Lamp Last"), scope: "main")
        let writer = try catalog.remote(account: "editor")
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let scans = RecentScans(memory: BuildMemory(besideCatalog: path))
        let middle = books[books.count / 2].id
        // What a scan cancelled at `middle` leaves: the rows up to it, as of the catalog then.
        try connection.transaction(immediate: false) {
            let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
            let copy = try #require(BooksCopy(sequence: sequence, memory: scans.memory))
            let statement = try connection.statement(
                "SELECT id, title_key, title_terms, author_terms FROM books WHERE scope = 'main' AND id <= ?1 ORDER BY id"
            )
            try statement.bind([.int(middle)])
            defer { statement.reset() }
            while try statement.step() {
                #expect(
                    copy.append(
                        id: statement.int(0), key: statement.bytes(1), title: statement.bytes(2),
                        author: statement.bytes(3)) != nil)
            }
            scans.copy = copy
        }
        func rename(_ book: BookRecord, _ title: String) async throws {
            let current = try await writer.load(id: book.id)
            _ = try await writer.save(
                SaveRequest(id: book.id, title: title, author: "", expectedRevision: current.revision))
        }
        try await rename(books[10], "Quokka Before")
        try await rename(books[books.count - 10], "Quokka After")
        _ = try catalog.addBook(NewBook(title: "Quokka Added"), scope: "main")
        func expectExact(
            _ text: String, from source: SearchAnswerSource, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let terms = SearchTerms(text)
            let expected = try committedBooks(path, scope: "main").filter(terms.matches).sorted {
                terms.sortKey($0) < terms.sortKey($1)
            }
            try connection.transaction(immediate: false) {
                let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
                for (limit, offset) in [(50, 0), (4, 3)] {
                    scans.removeKeptScans()  // answered from the copy, not from the first page's matches
                    let found = try BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
                        .search(terms, offset: offset, limit: limit)
                    #expect(
                        found.ids == expected.dropFirst(offset).prefix(limit).map(\.id)
                            && found.total == expected.count,
                        "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    #expect(
                        found.source == (offset == 0 ? source : .booksCopy), "\(text)", sourceLocation: sourceLocation)
                }
            }
        }
        try expectExact("quokka", from: .booksTable)
        #expect(scans.copy?.isComplete == true)
        try await rename(books[20], "Quokka Late")
        _ = try catalog.addBook(NewBook(title: "Quokka Added Later"), scope: "main")
        try expectExact("quok", from: .booksCopy)
        // One-letter queries are answered from each row's letter places (the copy holds `marked`).
        for text in ["a", "q", "z", "2", "h", "l", "e", "hist r", "東"] { try expectExact(text, from: .booksCopy) }
    }

    /// A query that narrows a kept scan's query gets its page from that scan's first matches
    /// when they hold it, shown before its count: exactly the committed books' page, though
    /// narrowing moved books to later ranks or out of the matches, and though books were
    /// renamed and added since the scan; otherwise the whole answer comes, counted. With the
    /// scan's matches in result order (`MatchOrder`), every page comes from walking them,
    /// however far past the first matches it lies: titles sharing their first eight bytes
    /// ("Murder 1", "Murder 10", "Murder 100") are in order by their whole keys. The count so
    /// far never passes the matches, and is exact when the walk read them all.
    @Test func aPageFromAnEarlierScansFirstMatchesIsTheCommittedBooksPage() async throws {
        let path = directory.path("leading.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // For "mur": 700 books of the first rank (Mural, Murder), 300 of the second (The
        // murmur), then 1,800 by author: more than the scan's 1,024 first matches.
        var books = (0..<1_500).map { NewBook(title: "Book \($0)", author: "Haruki Murakami") }
        books += (0..<400).map { NewBook(title: "Murder \($0)", author: $0 % 3 == 0 ? "Haruki Murakami" : "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "The murmur \($0)", author: $0 % 2 == 0 ? "Ann Mural" : "Bo Li") }
        books += (0..<300).map { NewBook(title: "Quiet \($0)", author: "Ann Mural") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 7, into: catalog, keepingWholeMatchesUpTo: 0)
        let scans = reader.scans
        // The whole table's "mur", its first matches kept with it; taken before the changes below.
        let mur = try reader.keptScan("mur")
        #expect(mur.leading.count == SearchTuning.leadingMatches && mur.rows.order?.isSorted == true)
        var rowsUnordered = mur.rows
        rowsUnordered.dropOrder()
        let murUnordered = RecentScans.Scan(
            words: mur.words, sequence: mur.sequence, rows: rowsUnordered, leading: mur.leading)
        var leadingAnswers = 0
        func expectCommittedPages(ordered: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let committed = try committedBooks(path, scope: "main")
            for text in [
                "mura", "murd", "murm", "murak", "mural", "mur b", "mur 1", "murakami b", "murder 1", "murder 10",
                "mur zz",
            ] {
                let terms = SearchTerms(text)
                let expected = committed.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(
                    \.id)
                for (limit, offset) in [(50, 0), (5, 0), (3, 2), (10, 45), (10, 1_200)] {
                    // Kept: "mur" alone, nothing narrower.
                    scans.removeKeptScans()
                    scans.keep(ordered ? mur : murUnordered)
                    let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    let about = "\(text) \(limit) \(offset), ordered: \(ordered)"
                    #expect(page.ids == wanted, "\(about)", sourceLocation: sourceLocation)
                    if page.source == .leadingMatches || page.source == .orderedMatches {
                        if page.source == .leadingMatches { leadingAnswers += 1 }
                        #expect(ordered || page.source == .leadingMatches, "\(about)", sourceLocation: sourceLocation)
                        if offset + wanted.count < expected.count {
                            #expect(
                                page.total >= offset + wanted.count && page.total <= expected.count, "\(about)",
                                sourceLocation: sourceLocation)
                        } else {
                            #expect(page.total == expected.count, "\(about)", sourceLocation: sourceLocation)
                        }
                    } else {
                        #expect(!ordered, "\(about): \(page.source)", sourceLocation: sourceLocation)
                        #expect(
                            page.source == .earlierScan
                                && page.total
                                    == min(expected.count, SearchIndex.countLimit(offset: offset, limit: limit)),
                            "\(about)", sourceLocation: sourceLocation)
                    }
                }
            }
        }
        try expectCommittedPages(ordered: false)
        #expect(leadingAnswers >= 20, "the scenario gives the first matches pages to answer")
        try expectCommittedPages(ordered: true)
        try await changeBooksSinceTheMurScan(catalog, path: path)
        leadingAnswers = 0
        try expectCommittedPages(ordered: false)
        #expect(leadingAnswers >= 20, "the scenario gives the first matches pages to answer after the changes")
        try expectCommittedPages(ordered: true)
    }

    /// Books of one rank sharing their title (2,000 titled "Mur", by two authors) are kept four
    /// at a time among a scan's first matches: a narrower query looks past them ("mura" finds
    /// "Mural" at once), and where the rest of the group could come first it does not take
    /// its page from there; walking the scan's matches in result order (`MatchOrder`), it
    /// does, the group in id order. Every page is the committed books' page.
    @Test func aGroupOfOneTitleAmongTheFirstMatchesIsLookedPastExactly() throws {
        let path = directory.path("leading-groups.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        var books = (0..<2_000).map { NewBook(title: "Mur", author: $0 % 2 == 0 ? "Ann Reed" : "Rex Murakami") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Zeta \($0)", author: "Ann Murakami") }
        books += (0..<300).map { NewBook(title: "Alpha \($0)", author: "Bo Murakami") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 11, into: catalog, keepingWholeMatchesUpTo: 0)
        let scans = reader.scans
        let mur = try reader.keptScan("mur")
        let groupRows = mur.leading.rows.filter { mur.leading.title(of: $0) == Array("mur".utf8) }
        #expect(groupRows.count == SearchTuning.leadingGroupBooks && groupRows.last?.groupContinues == true)
        var rowsUnordered = mur.rows
        rowsUnordered.dropOrder()
        let murUnordered = RecentScans.Scan(
            words: mur.words, sequence: mur.sequence, rows: rowsUnordered, leading: mur.leading)
        let committed = try committedBooks(path, scope: "main")
        // "mura": Mural ranks first; then by author "Alpha", the group's "Rex Murakami" books,
        // "Zeta". "mur r": the group by author ("Reed", "Rex"), its unkept books before "Mural".
        // "mu": every group book matches in its title, at places not kept.
        for (text, limit, offset, fromFirstMatches) in [
            ("mura", 50, 0, true), ("mura", 10, 295, true), ("mura", 10, 600, false),
            ("mura", 10, 1_595, false), ("mur r", 20, 0, false), ("mu", 20, 0, false),
        ] {
            for ordered in [false, true] {
                scans.removeKeptScans()
                scans.keep(ordered ? mur : murUnordered)
                let terms = SearchTerms(text)
                let expected = committed.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(
                    \.id)
                let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                #expect(
                    page.ids == Array(expected.dropFirst(offset).prefix(limit)), "\(text) \(limit) \(offset) \(ordered)"
                )
                // ("mu" narrows no kept scan.)
                let fromOrder = ordered && !fromFirstMatches && text != "mu"
                #expect(
                    (page.source == .leadingMatches) == fromFirstMatches,
                    "\(text) \(limit) \(offset) \(ordered): \(page.source)")
                #expect(
                    (page.source == .orderedMatches) == fromOrder,
                    "\(text) \(limit) \(offset) \(ordered): \(page.source)")
            }
        }
    }

    /// A scan of a few thousand matches keeps them all in order: a narrower query whose page
    /// lies past where the first 1,024 would end ("mur" after "mu": Murakami's books, after
    /// every title with a word beginning "mu") gets it from there, reading the scan in order
    /// only as far as the page; a page at the very end reads it all and is counted exactly.
    /// Every page is the committed books' page, before and after books change since the scan.
    @Test func aWholeScanAnswersANarrowerPageAnywhereInIt() async throws {
        let path = directory.path("leading-whole.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // For "mu": 900 titles beginning "mu" (Music, Mural), 300 with "mu" later, then 2,000 by author.
        var books = (0..<600).map { NewBook(title: "Music \($0)", author: "Ann Reed") }
        books += (0..<300).map { NewBook(title: "Mural \($0)", author: $0 % 3 == 0 ? "Haruki Murakami" : "Bo Li") }
        books += (0..<300).map { NewBook(title: "The museum \($0)", author: "Ann Reed") }
        books += (0..<2_000).map { NewBook(title: "Book \($0)", author: $0 % 4 == 0 ? "Mura Ito" : "Haruki Murakami") }
        books += (0..<200).map { NewBook(title: "Quiet \($0)", author: "Ann Reed") }
        let reader = try BooksTableReader(
            path: path, books: books, shuffledBy: 13, into: catalog,
            keepingWholeMatchesUpTo: SearchTuning.wholeMatches)
        let scans = reader.scans
        let mu = try reader.keptScan("mu")
        #expect(mu.leading.isWhole && mu.leading.count == 3_200 && mu.rows.count == 3_200)
        func expectCommittedPages(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let committed = try committedBooks(path, scope: "main")
            for text in ["mur", "mura", "murak", "mus", "mu b", "mura i", "murakami 1", "museum", "mu zz"] {
                let terms = SearchTerms(text)
                let expected = committed.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }.map(
                    \.id)
                for (limit, offset) in [(50, 0), (5, 0), (10, 45), (10, 1_500), (20, max(0, expected.count - 5))] {
                    // Kept: "mu" alone, nothing narrower.
                    scans.removeKeptScans()
                    scans.keep(mu)
                    let page = try reader.search(text, limit: limit, offset: offset, pageFirst: true)
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    #expect(page.ids == wanted, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    #expect(
                        page.source == .leadingMatches, "\(text) \(limit) \(offset): \(page.source)",
                        sourceLocation: sourceLocation)
                    if offset + wanted.count < expected.count {
                        #expect(
                            page.total >= offset + wanted.count && page.total <= expected.count,
                            "\(text) \(limit) \(offset)",
                            sourceLocation: sourceLocation)
                    } else {
                        // The page reached the last match: every match was seen.
                        #expect(
                            page.total == expected.count, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
                    }
                }
            }
            // Murakami's first books come after every title with a word beginning "mu", yet the
            // page was placed before the scan was read to its end.
            scans.removeKeptScans()
            scans.keep(mu)
            let murakami = try reader.search("murakami", limit: 20, offset: 0, pageFirst: true)
            let expected = committed.filter(SearchTerms("murakami").matches).count
            #expect(murakami.source == .leadingMatches && murakami.total < expected, sourceLocation: sourceLocation)
        }
        try expectCommittedPages()
        try await changeBooksSinceTheMurScan(catalog, path: path)
        try expectCommittedPages()
    }

    /// What the first-matches tests change after their scan, as the "editor" account: a book
    /// leaves the matches ("Mural 0"), one from outside them comes first ("Mura Aardvark"), one
    /// moves to the first rank ("Murakami Book"), and a new one by the author comes ("Aaa").
    private func changeBooksSinceTheMurScan(_ catalog: SQLiteCatalog, path: String) async throws {
        let writer = try catalog.remote(account: "editor")
        let committed = try committedBooks(path, scope: "main")
        func rename(_ title: String, to newTitle: String) async throws {
            let book = try #require(committed.first { $0.title == title })
            _ = try await writer.save(
                SaveRequest(id: book.id, title: newTitle, author: book.author, expectedRevision: book.revision))
        }
        try await rename("Mural 0", to: "Zebra")
        try await rename("Quiet 3", to: "Mura Aardvark")
        try await rename("Book 1", to: "Murakami Book")
        _ = try catalog.addBook(NewBook(title: "Aaa", author: "Murakami"), scope: "main")
    }

    /// An index build gives way to the app's threads: it runs at a lower priority (nice 10 on
    /// Linux), on a thread of its own, while the searches that answer keys meanwhile do not.
    @Test func anIndexBuildYieldsToTheApp() async throws {
        let path = directory.path("yielding-build.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.insertBooks((0..<50).map { NewBook(title: "Book \($0)") }, scope: "main")
        let buildNiceness = Mutex<Int32?>(nil)
        let reader = try SQLiteCatalog.open(
            path: path, create: false,
            beforeIndexBuild: {
                buildNiceness.withLock { $0 = BackgroundThread.niceness }
            }
        ).remote(account: "reader")
        _ = try await reader.search(SearchQuery(text: "book"))
        await reader.finishIndexPreparation()
        #if os(Linux)
            #expect(buildNiceness.withLock { $0 } == min(19, BackgroundThread.niceness + 10))
        #endif
    }

    /// A build gives way to searches (`ForegroundWork`) between rows and books of its passes,
    /// and from inside SQLite's statements too: its first, the count of the books, is one long
    /// step (hundreds of milliseconds at ten million books) with no row between.
    @Test func anIndexBuildGivesWayInsideItsStatementsAndBetweenThem() throws {
        let path = directory.path("giving-way.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.insertBooks(
            (0..<20_000).map { NewBook(title: "Book \($0) of the sea", author: "Author \($0 % 97)") }, scope: "main")
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        var duringTheCount = 0, inAll = 0
        let builder = SearchIndexBuilder(
            connection: connection, scope: "main",
            givingWay: {
                inAll += 1
                var statement = sqlite3_next_stmt(connection.handle, nil)
                while let current = statement {
                    if sqlite3_stmt_busy(current) != 0, String(cString: sqlite3_sql(current)).contains("count(*)") {
                        duringTheCount += 1
                    }
                    statement = sqlite3_next_stmt(connection.handle, current)
                }
            })
        let built = try builder.build()
        #expect(built.count == 20_000)
        #expect(
            duringTheCount >= 1 && inAll >= duringTheCount + 3, "during the count \(duringTheCount), in all \(inAll)")
    }

    /// Foreground work holds back a background thread that gives way: it waits while the work
    /// runs, for at most its limit, and not at all when none runs.
    @Test func givingWayWaitsWhileForegroundWorkRuns() async throws {
        let foreground = ForegroundWork()
        let clock = ContinuousClock()
        let idle = clock.measure { foreground.waitWhileBusy(atMost: 30) }
        #expect(idle < .seconds(10))
        let held = clock.measure { foreground.during { foreground.waitWhileBusy(atMost: 0.2) } }
        #expect(held >= .milliseconds(190))
        // Work that ends lets the waiter go before its limit.
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let work = Thread {
            foreground.during {
                started.signal()
                release.wait()
            }
        }
        work.start()
        started.wait()
        let waiter = Task.detached { clock.measure { foreground.waitWhileBusy(atMost: 30) } }
        release.signal()
        #expect(await waiter.value < .seconds(10))
    }

    /// Through the remote, while the index is built: a query that narrows a kept scan of a few
    /// hundred books is answered whole from it, counted at once, rather than from the title
    /// order (which would read up to 1,024 titles for a page and count it afterwards).
    @Test func aQueryNarrowingASmallKeptScanIsAnsweredWholeAndCounted() async throws {
        let path = directory.path("small-scan.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        var books = (0..<500).map { NewBook(title: "Secret garden \($0)", author: "Ann Reed") }
        books += (0..<2_000).map { NewBook(title: "Zed \($0)", author: "Bo Li") }
        try catalog.insertBooks(books, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        _ = try await reader.search(SearchQuery(text: "secret"))  // counted: its 500 matches are kept
        let page = try await reader.search(SearchQuery(text: "secret g", limit: 20, countLater: true))
        let committed = try committedBooks(path, scope: "main")
        let terms = SearchTerms("secret g")
        let expected = committed.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
        #expect(page.records == Array(expected.prefix(20)))
        #expect(page.totalCount == TotalCount(counted: expected.count, offset: 0, shown: 20, hasMore: true))
    }

    /// Through the remote, while the index is built: a page from an earlier scan's first
    /// matches says its count is coming, and the same search counted gives the same page and
    /// the exact total.
    @Test func aPageFromAnEarlierScansFirstMatchesIsCountedAfterwards() async throws {
        let path = directory.path("leading-remote.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.insertBooks(
            (0..<3_000).map { NewBook(title: "Book \($0)", author: "Haruki Murakami") }, scope: "main")
        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let reader = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() }).remote(
            account: "reader")
        _ = try await reader.search(SearchQuery(text: "mur"))  // counted: its matches are kept
        let query = SearchQuery(text: "murak", limit: 20, countLater: true)
        let page = try await reader.search(query)
        guard case let .counting(seen) = page.totalCount else {
            Issue.record("\(page.totalCount), not counting")
            return
        }
        #expect(seen >= 20 && seen <= 3_000)
        let counted = try await reader.search(query.countingNow)
        #expect(
            counted.records == page.records
                && counted.totalCount == TotalCount(counted: 3_000, offset: 0, shown: 20, hasMore: true))
    }

    /// A search replaced by the next key stops walking the table's copy or an earlier scan's
    /// rows (a second or more at ten million books) instead of keeping the connection from
    /// the next key's search, whichever walk it is in: an earlier scan's rows, the copy's
    /// letter places, the copy's rows.
    @Test func aCancelledSearchStopsWalkingTheCopyAndTheKeptRows() async throws {
        let path = directory.path("cancelled.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.insertBooks(
            (0..<3_000).map { NewBook(title: "Quiet river \($0)", author: "Ann Reed") }, scope: "main")
        let queries: [(text: String, source: SearchAnswerSource)] = [
            ("river 1", .earlierScan), ("q", .booksCopy), ("rive", .booksCopy),
        ]
        /// Each search's answer's source, or "cancelled".
        let outcomes = try await Task { () throws -> [String] in
            let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
            let scans = RecentScans(memory: BuildMemory(besideCatalog: path))
            func search(_ text: String) throws -> String {
                do {
                    return try connection.transaction(immediate: false) {
                        let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
                        return try BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
                            .search(SearchTerms(text), offset: 0, limit: 10).source.rawValue
                    }
                } catch is CancellationError {
                    return "cancelled"
                }
            }
            // The table read once: the copy is whole and "river"'s matches are kept.
            var outcomes = [try search("river")] + (try queries.map { try search($0.text) })
            _ = try search("river")
            withUnsafeCurrentTask { $0?.cancel() }
            outcomes += try queries.map { try search($0.text) }
            return outcomes
        }.value
        let answered = [SearchAnswerSource.booksTable.rawValue] + queries.map(\.source.rawValue)
        #expect(outcomes == answered + queries.map { _ in "cancelled" })
    }

    /// A kept scan of more than an eighth of a whole copy's rows, and more than a few, is left
    /// for the copy, which is read in order; smaller ones, or any while the copy is unfinished,
    /// are narrowed.
    @Test func aLargeKeptScanIsLeftForTheCopy() throws {
        let scans = RecentScans(memory: BuildMemory(besideCatalog: directory.path("catalog.sqlite")))
        /// A copy of `count` rows, and a kept scan of its first `rows`.
        func copy(of count: Int) throws -> (BooksCopy, (_ rows: Int) -> RecentScans.Scan) {
            let copy = try #require(BooksCopy(sequence: 1, memory: scans.memory))
            var places: [BooksCopy.Place] = []
            try Array("b".utf8).withUnsafeBufferPointer { text in
                for id in 1...count {
                    places.append(try #require(copy.append(id: id, key: text, title: text, author: text)))
                }
            }
            return (
                copy,
                { count in
                    var rows = ScannedRows()
                    for row in 0..<count { rows.append(in: copy, at: places[row], mask: 0, rank: 0, keyPrefix: 0) }
                    return RecentScans.Scan(words: SearchTerms("b").words.map(QueryWord.init), sequence: 1, rows: rows)
                }
            )
        }
        let (large, ofLarge) = try copy(of: 200_000)
        scans.copy = large
        #expect(!scans.copyIsQuicker(than: ofLarge(25_001)))  // unfinished
        large.complete()
        #expect(!scans.copyIsQuicker(than: ofLarge(25_000)))  // an eighth
        #expect(scans.copyIsQuicker(than: ofLarge(25_001)))
        let (small, ofSmall) = try copy(of: 100_000)
        small.complete()
        scans.copy = small
        #expect(!scans.copyIsQuicker(than: ofSmall(SearchTuning.fewKeptRows)))  // more than an eighth, but few
        #expect(scans.copyIsQuicker(than: ofSmall(SearchTuning.fewKeptRows + 1)))
    }

    /// Which typed queries are answered from which earlier scan: a longer prefix, a word added
    /// after, a token completed by punctuation; never a shorter prefix, a word put in front,
    /// or a character that only shares the earlier prefix's bytes.
    @Test(arguments: [
        ("his", "h", true), ("hist", "his", true), ("his", "hist", false), ("war a", "war", true),
        ("a war", "war", false), ("o'b", "o", true), ("ob", "o'", true), ("o'b", "ob", false),
        ("hist", "hist", true), ("कि", "क", false), ("कि घ", "कि", true), ("cafe", "café", true),
    ])
    func aQueryNarrowsAnEarlierOneOnlyWhenEveryMatchIsAmongItsMatches(typed: String, earlier: String, narrows: Bool) {
        func words(_ text: String) -> [QueryWord] { SearchTerms(text).words.map(QueryWord.init) }
        #expect(QueryWord.narrows(words(typed), words(earlier)) == narrows)
    }

    /// Kept rows come back as they went in, a key equal to the title terms included; the scans
    /// kept stay within the budget, newest first; and a scan whose matches pass it keeps none.
    @Test func recentScansKeepTheirRowsWithinTheBudget() throws {
        func buffer(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            Array(text.utf8).withUnsafeBufferPointer(body)
        }
        let rows = [(7, "the war", "the war", "tolstoy"), (9, "l'ete", "l ete", ""), (12, "zoo", "zoo", "a b c")]
        var scanned = ScannedRows()
        for (id, key, title, author) in rows {
            buffer(key) { key in
                buffer(title) { title in
                    buffer(author) { author in scanned.append(id: id, key: key, title: title, author: author) }
                }
            }
        }
        var read: [(Int, String, String, String)] = []
        try scanned.forEach { id, key, title, author, _ in
            read.append(
                (
                    id, String(decoding: key, as: UTF8.self), String(decoding: title, as: UTF8.self),
                    String(decoding: author, as: UTF8.self)
                ))
        }
        #expect(read.map { "\($0)" } == rows.map { "\($0)" })
        // Keys equal to their titles are not stored twice: only "l'ete" is.
        let textBytes = rows.map { $0.2.utf8.count + $0.3.utf8.count }.reduce(0, +)
        #expect(scanned.byteCount == "l'ete".utf8.count + textBytes + rows.count * (8 + 12))

        // Four scans of a third of the budget: it holds three.
        let big = String(repeating: "x", count: SearchTuning.keptScansBytes / 3 - 1_000)
        let scans = RecentScans(memory: .anonymous)
        let typed = ["a", "ab", "abc", "abcd"]
        for (number, text) in typed.enumerated() {
            var rows = ScannedRows()
            for id in 0...number {
                buffer("k") { key in
                    buffer("t") { title in
                        buffer(String(big.prefix(big.count / (number + 1)))) { author in
                            rows.append(id: id, key: key, title: title, author: author)
                        }
                    }
                }
            }
            scans.keep(RecentScans.Scan(words: SearchTerms(text).words.map(QueryWord.init), sequence: 5, rows: rows))
        }
        func narrowest(_ text: String, at sequence: Int = 5) -> Int? {
            scans.narrowest(holdingMatchesOf: SearchTerms(text).words.map(QueryWord.init), at: sequence)?.rows.count
        }
        #expect(narrowest("a") == nil)  // the oldest went
        #expect(narrowest("ab") == 2)
        #expect(narrowest("abcde") == 2)  // every kept scan holds its matches: the one with fewest rows
        #expect(narrowest("abcde", at: 4) == nil)  // rows read after the catalog this search sees

        var judge = RowJudge(
            words: SearchTerms("x").words.map(QueryWord.init), wanted: 10, recordingUpTo: SearchTuning.keptScansBytes)
        for id in 0..<4 {
            buffer("x") { key in
                buffer("x") { title in
                    buffer(big) { author in judge.offer(id: id, key: key, title: title, author: author) }
                }
            }
        }
        #expect(judge.matched == nil)
        #expect(judge.answer(offset: 0, limit: 10).total == 4)
    }

    /// Past its limit, a scan's recording of copied rows drops their order first (`MatchOrder`:
    /// a rank and eight key bytes a row while recording), and the rows only when they pass the
    /// limit without it.
    @Test func aRecordingOverItsLimitDropsTheRowsOrderFirst() throws {
        let copy = try #require(
            BooksCopy(sequence: 1, memory: BuildMemory(besideCatalog: directory.path("catalog.sqlite"))))
        try Array("b".utf8).withUnsafeBufferPointer { text in
            for id in 1...1_000 { _ = try #require(copy.append(id: id, key: text, title: text, author: text)) }
        }
        copy.complete()
        let words = SearchTerms("b").words.map(QueryWord.init)
        func recorded(upTo limit: Int) throws -> ScannedRows? {
            var judge = RowJudge(words: words, wanted: 10, recordingUpTo: limit)
            judge.copy = copy
            try copy.forEach(admitting: TokenStarts(requiredByAll: words)) { id, place, key, title, author in
                judge.offer(id: id, key: key, title: title, author: author, copiedAt: place)
            }
            return judge.matched
        }
        // An id and a place, 16 bytes a row; with the order, 25.
        let ordered = try recorded(upTo: 1_000 * 25)
        #expect(ordered?.count == 1_000 && ordered?.order != nil && ordered?.byteCount == 1_000 * 25)
        let unordered = try recorded(upTo: 1_000 * 25 - 1)
        #expect(unordered?.count == 1_000 && unordered?.order == nil && unordered?.byteCount == 1_000 * 16)
        #expect(try recorded(upTo: 1_000 * 16 - 1) == nil)
    }

    /// Typing a broad word after others ("the s") is answered by judging the books the other
    /// words share instead of reading the broad word's postings, stopping once the page and
    /// "10,000+" are certain: the same pages and totals as `SearchTerms` gives, before and
    /// after changes hide some of the index's books.
    @Test func typedBroadWordsAfterOthersAreAnsweredExactly() async throws {
        let path = directory.path("broad.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        let words = [
            "sea", "secret", "stone", "silver", "sun", "star", "garden", "night", "river", "city", "gold", "war",
        ]
        let authors = ["Sara Stone", "Tom Reed", "Ann Smith", "Bob Hill"]
        var generator = GeneratedBooks(seed: 31)
        let books = (0..<12_500).map { number in
            var title = [
                number % 3 == 0 ? "The" : "", words[generator.next(words.count)], words[generator.next(words.count)],
            ]
            if number % 5 == 0 { title += ["of the", words[generator.next(words.count)]] }
            return NewBook(
                title: title.filter { !$0.isEmpty }.joined(separator: " "),
                author: authors[generator.next(authors.count)])
        }
        try catalog.insertBooks(books, scope: "main")
        let remote = try catalog.remote(account: "editor")
        #expect(try await remote.searchIndexReport().report.books == books.count)

        func expectExact(_ when: String) async throws {
            let committed = try committedBooks(path, scope: "main")
            for text in ["the s", "the st", "the s g", "of s", "river s", "the g", "s the", "sun s"] {
                let terms = SearchTerms(text)
                let expected = committed.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
                for (limit, offset) in [(50, 0), (20, 40), (10, 9_995)] {
                    let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
                    let wanted = Array(expected.dropFirst(offset).prefix(limit))
                    let counted = min(expected.count, SearchIndex.countLimit(offset: offset, limit: limit))
                    let total = TotalCount(
                        counted: counted, offset: offset, shown: wanted.count, hasMore: offset + wanted.count < counted)
                    #expect(
                        page.records == wanted && page.totalCount == total,
                        "\(when): \(text) \(limit) \(offset): \(page.totalCount), expected \(total) of \(expected.count)"
                    )
                }
            }
        }
        try await expectExact("as built")
        // Changes after the build: their old entries are hidden and they are judged apart.
        for id in stride(from: 1, through: 3_000, by: 97) {
            let book = try await remote.load(id: id)
            _ = try await remote.save(
                SaveRequest(id: id, title: "Sunlit the \(book.title)", expectedRevision: book.revision))
        }
        try await expectExact("after changes")
    }

    /// The file stores the places of the broad short prefixes, and they are the places the
    /// postings give: same books anywhere, in the title, first in the title, for every prefix
    /// stored. Every prefix of one to three letters or digits that begins a token in at least a
    /// sixteenth of the books (counted from the books themselves) is stored.
    @Test func theStoredPrefixesArePlacesThePostingsGive() async throws {
        let path = directory.path("prefixes.sqlite")
        let (catalog, books) = try makeCatalog(books: 400, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let file = try SnapshotFile(catalog: path)
        let base = try file.bytes.withUnsafeBytes { try SearchIndexSnapshot.decode(copying: $0) }
        var booksWith: [String: Int] = [:]
        for book in books {
            let text = BookText(title: book.title, author: book.author)
            let tokens = (text.titleTerms + " " + text.authorTerms).split(separator: " ")
            let prefixes = Set(
                tokens.flatMap { token in
                    (1...3).compactMap { length -> String? in
                        let prefix = token.prefix(length)
                        return prefix.count == length
                            && prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? String(prefix) : nil
                    }
                })
            for prefix in prefixes { booksWith[prefix, default: 0] += 1 }
        }
        var storedByLength = [0, 0, 0, 0]
        for (prefix, bookCount) in booksWith.sorted(by: { $0.key < $1.key }) {
            let words = try #require(base.compile(SearchTerms(prefix)))
            let code = try #require(StoredPrefixes.code(Array(prefix.utf8)))
            guard let fromFile = try base.storedPrefixes.places(ofPrefix: code, count: base.count) else {
                #expect(bookCount * 16 < base.count, "\(prefix), in \(bookCount) of \(base.count) books, is not stored")
                continue
            }
            storedByLength[prefix.count] += 1
            let fromPostings = try base.placesFromPostings(of: words[0])
            #expect(
                fromFile.anywhere == fromPostings.anywhere && fromFile.inTitle == fromPostings.inTitle
                    && fromFile.first == fromPostings.first, "\(prefix)")
        }
        #expect(storedByLength[1] >= 5 && storedByLength[2] >= 1, "stored by length: \(storedByLength)")
        try await expectExactSearches(catalog.remote(account: "reader"), books)
    }

    /// A first character beyond ASCII is told apart by the filter (`TokenStarts`) from those
    /// sharing its first bytes and from the letter its first byte once stood for: of the 63
    /// characters beside "日" (U+65C0...U+65FF, all beginning 0xE6 0x97) and books with words
    /// beginning with "f", few are admitted for "日", and every book with "日" is.
    @Test func aCharacterBeyondASCIIIsToldApartFromItsNeighbours() throws {
        func starts(_ title: String) -> TokenStarts {
            let stored = BookText(title: title, author: "")
            return Array(stored.titleTerms.utf8).withUnsafeBufferPointer { title in
                Array(stored.authorTerms.utf8).withUnsafeBufferPointer { TokenStarts(title: title, author: $0) }
            }
        }
        let required = TokenStarts(requiredBy: QueryWord(["日"]))
        let neighbours = (0x65C0...0x65FF).compactMap(Unicode.Scalar.init).map(String.init).filter { $0 != "日" }
        #expect(neighbours.count == 63)
        let admitted = neighbours.filter { starts("\($0) 本").admits(required) }
        #expect(admitted.count <= 3, "\(admitted)")
        #expect(!starts("fish farm").admits(required))
        for title in ["日", "日本", "森 日本", "an 日記"] { #expect(starts(title).admits(required), "\(title)") }
    }

    /// The filter that skips changed books without reading their terms (`TokenStarts`) never
    /// skips a match: for generated books and queries, every book `SearchTerms` matches is
    /// admitted by every word's masks. Some non-matches are admitted too (it is a filter), but
    /// few of those that lack a word's first two or three bytes.
    @Test func theChangedBooksFilterNeverSkipsAMatch() throws {
        var generator = GeneratedBooks(seed: 23)
        let books = (0..<400).map { _ in generator.book() }
        var queries = Self.queries + (0..<200).map { _ in generator.query() }
        queries += [
            "東京", "東 京", "l'e", "e\u{301}", "ét", "2n", "ß", "ss", "œ", "oe", "ø", "søren", "ł", "łó", "æ", "ae", "þ",
            "th",
        ]
        var skipped = 0
        var (pairOnly, pairSkipped) = (0, 0)
        var (tripleOnly, tripleSkipped) = (0, 0)
        for text in queries {
            let terms = SearchTerms(text)
            let required = terms.words.map { TokenStarts(requiredBy: QueryWord($0)) }
            for book in books {
                let stored = BookText(title: book.title, author: book.author)
                let starts = Array(stored.titleTerms.utf8).withUnsafeBufferPointer { title in
                    Array(stored.authorTerms.utf8).withUnsafeBufferPointer { TokenStarts(title: title, author: $0) }
                }
                let admitted = required.allSatisfy(starts.admits)
                let record = BookRecord(id: 1, title: book.title, revision: 1, author: book.author)
                #expect(admitted || !terms.matches(record), "\(text) skipped \(book.title) by \(book.author)")
                if !admitted { skipped += 1 }
                // The first two bytes count, not only the first: a book with tokens beginning with
                // a one-word query's first byte but none with its first two is mostly skipped.
                let tokens = stored.titleTerms.split(separator: " ") + stored.authorTerms.split(separator: " ")
                if let first = terms.words.first?.first.map({ Array($0.utf8) }), terms.words.count == 1,
                    first.count >= 2,
                    tokens.contains(where: { $0.utf8.first == first[0] }),
                    !tokens.contains(where: { $0.utf8.starts(with: first[0...1]) })
                {
                    pairOnly += 1
                    if !admitted { pairSkipped += 1 }
                }
                // And the first three: "mur" skips most of the books "mu" matches but "mur" does not.
                if let first = terms.words.first?.first.map({ Array($0.utf8) }), terms.words.count == 1,
                    first.count >= 3,
                    tokens.contains(where: { $0.utf8.starts(with: first[0...1]) }),
                    !tokens.contains(where: { $0.utf8.starts(with: first[0...2]) })
                {
                    tripleOnly += 1
                    if !admitted { tripleSkipped += 1 }
                }
            }
        }
        #expect(skipped > 0)
        // Hashed into 64 bits, a pair is mistaken for another in about 1 token in 64.
        #expect(pairOnly > 100 && pairSkipped * 4 > pairOnly * 3, "\(pairSkipped) of \(pairOnly)")
        #expect(tripleOnly > 50 && tripleSkipped * 4 > tripleOnly * 3, "\(tripleSkipped) of \(tripleOnly)")
    }

    /// A kept scan's rows are passed over on the bytes that follow its last word in their tokens
    /// (`FollowingBytes`): for every query typed after an earlier one that it narrows, no book
    /// both match is passed over, and most books the earlier query matches but the typed one
    /// cannot (its next byte follows the earlier word in none of their tokens) are.
    @Test func aKeptScansMasksNeverSkipAMatchOfANarrowerQuery() {
        var generator = GeneratedBooks(seed: 41)
        let books =
            (0..<400).map { _ in generator.book() }
            + [
                SeedBook("Zz Top", by: "Zora Zzyzx"), SeedBook("École ét", by: "O'Brien"),
                SeedBook("東京 物語", by: "2nd z9"),
            ]
        var typed = Self.queries + (0..<120).map { _ in generator.query() }
        typed += ["東京", "東 京", "o'b", "ob", "ét", "éc", "2n", "z9", "zy", "zz", "zo", "hi r", "hist ro"]
        func words(_ text: String) -> [QueryWord] { SearchTerms(text).words.map(QueryWord.init) }
        var (followedOnly, followedSkipped) = (0, 0)
        for text in typed {
            let terms = SearchTerms(text)
            // Every shorter query it narrows: its own prefixes, a character at a time.
            let earlierTexts = (1..<max(1, text.count)).map { String(text.prefix($0)) }.filter {
                QueryWord.narrows(words(text), words($0))
            }
            for earlier in earlierTexts {
                let following = FollowingBytes(narrowing: words(earlier))
                let required = following.required(by: words(text))
                let earlierTerms = SearchTerms(earlier)
                for book in books {
                    let record = BookRecord(id: 1, title: book.title, revision: 1, author: book.author)
                    guard earlierTerms.matches(record) else { continue }
                    let stored = BookText(title: book.title, author: book.author)
                    let mask = Array(stored.titleTerms.utf8).withUnsafeBufferPointer { title in
                        Array(stored.authorTerms.utf8).withUnsafeBufferPointer {
                            following.mask(title: title, author: $0)
                        }
                    }
                    let passed = mask & required != required
                    #expect(
                        !passed || !terms.matches(record),
                        "\(text) after \(earlier) passed over \(book.title) by \(book.author)")
                    // A one-word query a byte longer than the earlier one: its last byte follows
                    // the earlier word in no token of the book, so the book is passed over.
                    let tokens = stored.titleTerms.split(separator: " ") + stored.authorTerms.split(separator: " ")
                    let (before, after) = (words(earlier), words(text))
                    if before.count == 1, after.count == 1, before[0].exact.isEmpty, after[0].exact.isEmpty,
                        before[0].prefixBytes.count <= 2, after[0].prefixBytes.count == before[0].prefixBytes.count + 1,
                        !tokens.contains(where: { $0.utf8.starts(with: after[0].prefixBytes) })
                    {
                        followedOnly += 1
                        if passed { followedSkipped += 1 }
                    }
                }
            }
        }
        // Only a byte sharing the six low bits of the typed one (a digit for a letter) lets a book through.
        #expect(followedOnly > 500 && followedSkipped * 10 > followedOnly * 9, "\(followedSkipped) of \(followedOnly)")
    }

    /// The number that settles most comparisons when changed books are sorted (`ByteOrder.prefix`)
    /// never contradicts the keys' byte order: for every pair of keys with different numbers,
    /// the numbers are in the keys' order. The keys are short and long, share long beginnings,
    /// and hold zero bytes and bytes past 0x7F, where padding and signs could go wrong.
    @Test func aKeysPrefixNumberIsInTheKeysOrder() {
        var state: UInt64 = 41
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet: [UInt8] = [0x00, 0x01, 0x20, 0x61, 0x62, 0x7F, 0x80, 0xE6, 0xFF]
        let keys = (0..<300).map { _ -> [UInt8] in
            let shared: [UInt8] = next() % 2 == 0 ? Array("history ".utf8) : []
            return shared + (0..<Int(next() % 11)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
        }
        var settled = 0
        for a in keys {
            for b in keys {
                a.withUnsafeBufferPointer { x in
                    b.withUnsafeBufferPointer { y in
                        let (first, second) = (ByteOrder.prefix(x), ByteOrder.prefix(y))
                        guard first != second else { return }
                        settled += 1
                        #expect((first < second) == (ByteOrder.compare(x, y) < 0), "\(a) and \(b)")
                    }
                }
            }
        }
        #expect(settled > keys.count * keys.count / 4)
    }

    /// Catching up finds each changed book's place in result order, in batches of ascending ids:
    /// the place the scenario gives (the scope's books ordered by title key, then id), and none
    /// for ids of another scope, ids never used and ids past the last, whether the batch holds
    /// every id, every seventh, or one; from an index built in memory and from its stored file.
    @Test func changedBooksAreFoundAtTheirPlacesInResultOrder() async throws {
        let path = directory.path("ids.sqlite")
        let (catalog, books) = try makeCatalog(books: 500, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        func key(_ book: BookRecord) -> [UInt8] {
            Array(BookText(title: book.title, author: book.author).titleKey.utf8)
        }
        let inOrder = books.sorted { ByteOrder.precedes(key($0), $0.id, key($1), $1.id) }
        let place = Dictionary(uniqueKeysWithValues: inOrder.enumerated().map { ($1.id, $0) })
        let everyID = Array(-2...(books.map(\.id).max()! + 3))
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let built = try SearchIndexBuilder(connection: connection, scope: "main").build()
        let stored = try SnapshotFile(catalog: path).bytes.withUnsafeBytes {
            try SearchIndexSnapshot.decode(copying: $0)
        }
        for base in [built, stored] {
            for batch in [everyID, everyID.enumerated().filter { $0.offset % 7 == 3 }.map(\.element)] {
                let found = try base.ordinals(ofAscendingIDs: batch)
                #expect(
                    zip(batch, found).filter { place[$0] != $1 }.isEmpty,
                    "misplaced: \(zip(batch, found).filter { place[$0] != $1 }.prefix(5))")
            }
            for id in [-1, 0, books[0].id, books.last!.id, books.last!.id + 1] {
                #expect(try base.ordinal(ofID: id) == place[id], "\(id)")
            }
        }
    }

    /// A collection that has its page (the first rank fills it) and its count (past the limit)
    /// stops reading there, and what it lists and counts is still what the books say: the
    /// first books of the first rank in result order, the total up to the limit, with a hidden
    /// book (a changed one) left out. Stretches of 64 books, so that 3,000 books make many.
    @Test func aCollectionStopsOnceItsPageAndCountAreSettled() throws {
        let path = directory.path("stretches.sqlite")
        let (_, books) = try makeCatalog(books: 3_000, path: path)
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let base = try SearchIndexBuilder(connection: connection, scope: "main").build()
        func key(_ book: BookRecord) -> [UInt8] {
            Array(BookText(title: book.title, author: book.author).titleKey.utf8)
        }
        let inOrder = books.sorted { ByteOrder.precedes(key($0), $0.id, key($1), $1.id) }
        var hidden = Bitmap(count: base.count)
        for ordinal in stride(from: 5, to: base.count, by: 7) { hidden.insert(ordinal) }
        var stoppedEarly = 0
        for text in ["a", "h", "the", "e", "an", "of", "the a", "a t", "s e", "history of", "zzz"] {
            let terms = SearchTerms(text)
            guard let words = base.compile(terms) else { continue }
            for (cap, limit) in [(3, 40), (20, 300), (1, 1)] {
                for hide in [false, true] {
                    let shown = inOrder.enumerated().filter { !hide || !hidden.contains($0.offset) }
                    let firstRank = shown.filter { terms.matches($0.element) && terms.rank($0.element) == 0 }.map {
                        Int32($0.offset)
                    }
                    let total = shown.filter { terms.matches($0.element) }.count
                    var matches = SearchIndexBase.Matches(cap: cap, countLimit: limit)
                    try base.collect(words, hidden: hide ? hidden : nil, into: &matches, slotsPerStretch: 1)
                    let counted = matches.counts.reduce(0, +)
                    #expect(
                        matches.ordinals[0] == Array(firstRank.prefix(cap)) && min(counted, limit) == min(total, limit),
                        "\(text) cap \(cap) limit \(limit) hidden \(hide): listed \(matches.ordinals[0]), counted \(counted) of \(total)"
                    )
                    if counted < total { stoppedEarly += 1 }
                }
            }
        }
        #expect(stoppedEarly >= 10, "stopped early \(stoppedEarly) times")
    }

    // MARK: Where a build keeps its arrays

    /// A build beside the catalog keeps its large arrays in nameless scratch files there (their
    /// pages are the page cache's, not the process's anonymous memory) and gives, byte for byte,
    /// the index an in-memory build gives. A directory where no file can be made gives the same
    /// index from ordinary allocations. Nothing is left in the directory, and the files are
    /// unmapped with the index.
    @Test func aBuildInScratchFilesGivesTheSameIndexAndLeavesNothingBehind() throws {
        let path = directory.path("scratch.sqlite")
        _ = try makeCatalog(books: 600, path: path)
        let folder = (path as NSString).deletingLastPathComponent
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        func build(_ memory: BuildMemory) throws -> SearchIndexBase {
            try SearchIndexBuilder(connection: connection, scope: "main", memory: memory).build()
        }
        func stored(_ base: SearchIndexBase, _ name: String) throws -> Data {
            let file = directory.path(name)
            try SearchIndexSnapshot.write(base, scope: "main", snapshotID: 7, to: file)
            defer { unlink(file) }
            return try Data(contentsOf: URL(fileURLWithPath: file))
        }
        let reference = try stored(try build(.anonymous), "in-memory")
        do {
            let inFiles = try build(BuildMemory(besideCatalog: path))
            let scratch = Self.scratchMappings(in: folder)
            for (name, start) in [
                ("forward index", UnsafeRawPointer(inFiles.bookBytes.buffer.baseAddress!)),
                ("postings", UnsafeRawPointer(inFiles.postingBytes.buffer.baseAddress!)),
                ("ids", UnsafeRawPointer(inFiles.ids.words.buffer.baseAddress!)),
            ] {
                let address = UInt(bitPattern: start)
                #expect(scratch.contains { $0.contains(address) }, "the \(name) is not in a scratch file")
            }
            #expect(try stored(inFiles, "in-files") == reference)
        }
        #expect(Self.scratchMappings(in: folder).isEmpty, "scratch files still mapped after the index is gone")
        let fallback = try build(BuildMemory(besideCatalog: directory.path("no such folder/catalog.sqlite")))
        #expect(try stored(fallback, "fallback") == reference)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
    }

    /// Files made beside a catalog named without a folder (its build's scratch files, a
    /// snapshot's temporaries) go to, and are looked for in, the working directory, not "/".
    @Test func filesBesideACatalogNamedWithoutAFolderAreInTheWorkingDirectory() {
        #expect(folder(holding: "books.sqlite") == ".")
        #expect(folder(holding: "shelf/books.sqlite") == "shelf")
        #expect(folder(holding: "/srv/books.sqlite") == "/srv")
        #expect(BuildMemory(besideCatalog: "books.sqlite").directory == ".")
    }

    /// Appended varints read back as written, across many growths of a scratch file (the
    /// mapping is remade over the longer file) and of an allocation (copied).
    @Test func growingBytesKeepWhatWasWrittenAcrossGrowths() throws {
        let values = (0..<20_000).map { UInt32(truncatingIfNeeded: $0 &* 2_654_435_761) >> UInt32($0 % 32) }
        var expected: [UInt8] = []
        for value in values {
            var offset = 0
            var encoded = [UInt8](repeating: 0, count: 5)
            encoded.withUnsafeMutableBufferPointer { VarInt.write(value, to: $0, at: &offset) }
            expected += encoded.prefix(offset)
        }
        let file = try #require(ScratchFile(in: directory.path(""), byteCount: 1))
        for bytes in [GrowingBytes(file), GrowingBytes(allocated: 1)] {
            for value in values { bytes.append(value) }
            let kept = bytes.withUnsafeBufferPointer { $0.elementsEqual(expected) }
            #expect(kept, "\(bytes.count) bytes written, \(expected.count) expected")
        }
    }

    /// The address ranges of this process's mappings of deleted build scratch files in `folder`.
    private static func scratchMappings(in folder: String) -> [ClosedRange<UInt>] {
        // Read to the end: /proc files have no size, and a read sized by it stops short.
        let maps = String(
            decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return maps.split(separator: "\n").compactMap { line in
            guard line.contains(folder + "/.bookshelf-build-"), line.hasSuffix("(deleted)") else { return nil }
            let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt($0, radix: 16) }
            return bounds.count == 2 ? bounds[0]...(bounds[1] - 1) : nil
        }
    }

    // MARK: The snapshot file is derived data, never trusted

    /// The parts of a snapshot file, as its header lays them out (see `SearchIndexSnapshot`):
    /// word 9 is where the checked data starts, words 12 + 2p and 13 + 2p part p's offset and length.
    struct SnapshotFile {
        let path: String
        var bytes: [UInt8]

        init(catalog: String) throws {
            let directory = (catalog as NSString).deletingLastPathComponent
            let name = (catalog as NSString).lastPathComponent + "-search-"
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix(name) && !$0.contains(".writing")
            }
            guard files.count == 1 else { throw SnapshotFileMissing(found: files) }
            path = directory + "/" + files[0]
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }

        func word(_ index: Int) -> Int {
            Int(
                truncatingIfNeeded: bytes.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                })
        }
        var dataStart: Int { word(9) }
        func part(_ part: Int) -> Range<Int> { word(12 + 2 * part)..<word(12 + 2 * part) + word(13 + 2 * part) }
        /// Replaces the file, as a program writing a crafted one would: written beside it and
        /// renamed, so that a remote which mapped the old file (the one that stored it, whose
        /// background work may still read it) keeps its pages instead of reading these.
        func save() throws { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) }

        init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }

        /// Makes every checksum agree with the bytes again, as a crafted file would.
        mutating func reseal() { bytes = SearchIndexSnapshotProbe.resealed(bytes) }
    }

    struct SnapshotFileMissing: Error { let found: [String] }

    /// Stores a snapshot of 200 books, lets `damage` change its file, then checks that a new
    /// remote answers every query exactly and ends up on a rebuilt, stored index.
    private func expectDamageDetected(
        _ name: String, _ damage: (inout SnapshotFile) throws -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let path = directory.path("\(name).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(
            try await catalog.remote(account: "editor").searchIndexReport().snapshotStored,
            sourceLocation: sourceLocation)
        var file = try SnapshotFile(catalog: path)
        let intact = file.bytes
        try damage(&file)
        #expect(file.bytes != intact, "the damage changed nothing", sourceLocation: sourceLocation)
        try file.save()

        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books, sourceLocation: sourceLocation)
        // Detected at load or at the first read of the damaged block: either way the index in
        // use now is a rebuilt one, stored again.
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored, "\(name): \(report)", sourceLocation: sourceLocation)
        try await expectExactSearches(remote, books, sourceLocation: sourceLocation)
        let next = try catalog.remote(account: "reader")
        #expect(try await next.searchIndexReport().report.origin == .loadedSnapshot, sourceLocation: sourceLocation)
        try await expectExactSearches(next, books, sourceLocation: sourceLocation)
    }

    /// Something other than a regular file of this user's where the snapshot file goes: a FIFO
    /// (which blocked every search for ever), a symlink to a good snapshot or to a device, a
    /// directory, another user's copy of the very file. Each is a damaged index: the remote
    /// answers exactly from a rebuilt index, stored again where a file can replace the thing.
    @Test(arguments: ["fifo", "symlink-to-snapshot", "symlink-to-device", "directory", "other-owner"])
    func aSnapshotThatIsNotARegularFileOfThisUsersIsRebuilt(kind: String) async throws {
        let path = directory.path("\(kind).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let snapshot = SearchIndexSnapshot.path(catalogPath: path, scope: "main")
        let aside = directory.path("\(kind)-aside")
        #expect(rename(snapshot, aside) == 0)
        switch kind {
        case "fifo": #expect(mkfifo(snapshot, 0o600) == 0)
        case "symlink-to-snapshot": #expect(symlink(aside, snapshot) == 0)
        case "symlink-to-device": #expect(symlink("/dev/zero", snapshot) == 0)
        case "directory": #expect(mkdir(snapshot, 0o700) == 0)
        default:
            #expect(rename(aside, snapshot) == 0)
            // Only root may give a file away; as another user the case has nothing to test.
            guard geteuid() == 0 else { return }
            #expect(chown(snapshot, 65_534, 65_534) == 0)
        }

        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books)
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built, "\(kind): \(report)")
        // A directory cannot be replaced by a file; everything else is, by the rename that stores it.
        #expect(stored == (kind != "directory"), "\(kind)")
        try await expectExactSearches(remote, books)
    }

    /// Every part, the stored prefixes' table and bitmaps (parts 11 and 12) included.
    @Test(arguments: 0..<13)
    func aSnapshotWithADamagedPartIsDetectedAndRebuilt(part: Int) async throws {
        try await expectDamageDetected("damaged-\(part)") { file in
            let range = file.part(part)
            file.bytes[(range.lowerBound + range.upperBound) / 2] ^= 0xA5
        }
    }

    @Test(arguments: [1, 2, 8, 9])
    func aTruncatedSnapshotIsDetectedAndRebuilt(fraction: Int) async throws {
        try await expectDamageDetected("truncated-\(fraction)") { file in
            file.bytes.removeLast(file.bytes.count - file.bytes.count * fraction / 10)
        }
    }

    @Test func aSnapshotWithAWrongBlockChecksumIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("block-checksum") { file in
            // The block checksums end right before the data (padding to 64 bytes aside): change the last one.
            var at = file.dataStart - 8
            while file.word(at / 8) == 0 { at -= 8 }
            file.bytes[at] ^= 0x01
        }
    }

    @Test func aSnapshotWithAChangedHeaderIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("header") { file in
            file.bytes[4 * 8] ^= 0x02  // the book count
        }
    }

    @Test func aSnapshotWithAForgedDataChecksumIsStillBoundsChecked() async throws {
        // Damage that a checksum cannot catch because the block's checksum was recomputed: a
        // crafted file. It must still never be read out of bounds: here every posting entry
        // is a gap that points far past the last book.
        try await expectDamageDetected("forged") { file in
            let postings = file.part(6)
            for at in postings.dropLast() { file.bytes[at] = 0xFF }
            file.reseal()
        }
    }

    /// A crafted vocabulary (checksums recomputed) out of byte order: a prefix's binary
    /// search then lands on tokens that do not start with it, which were once indexed past
    /// their end (a crash in the background warm-up of the broad prefixes, seen once in a
    /// full run). They are damage: detected, and the index rebuilt.
    @Test func aCraftedVocabularyOutOfOrderIsDetectedAndRebuilt() async throws {
        try await expectDamageDetected("vocabulary-reversed") { file in
            file.bytes[file.part(0)].reverse()
            file.reseal()
        }
    }

    /// The `SnapshotLoading` fuzz target found, in the first snapshot format, that a book
    /// count, id base or id width that no checksum covered crashed the loader (an overflow
    /// while sizing the arrays, ids out of range). This format checksums its header, so only a
    /// crafted file (checksums recomputed) can carry such numbers: it must be refused, not trusted.
    @Test(
        arguments: zip(
            [4, 4, 4, 5, 5, 7], [UInt64(Int.max), 1 << 60, UInt64.max, 0x7FFF_FFFF_FFFF_FF00, UInt64.max, 64]))
    func aForgedHeaderWithImpossibleNumbersIsRefused(word: Int, value: UInt64) async throws {
        try await expectDamageDetected("header-\(word)-\(value)") { file in
            file.bytes.withUnsafeMutableBytes {
                $0.storeBytes(of: value.littleEndian, toByteOffset: word * 8, as: UInt64.self)
            }
            file.reseal()
        }
    }

    /// The ids in id order are what catching up uses to hide a changed book's old entry. A
    /// crafted order (checksums recomputed) must not leave the old entry listed beside the new.
    @Test(arguments: ["ordinals reversed", "ids zeroed"])
    func aCraftedIDOrderIsNotTrusted(craft: String) async throws {
        let path = directory.path("order-\(craft).sqlite")
        let (catalog, books) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        var file = try SnapshotFile(catalog: path)
        if craft == "ordinals reversed" {
            file.bytes[file.part(10)].reverse()  // each id's ordinal now names another book
        } else {
            for offset in file.part(9) { file.bytes[offset] = 0 }  // no id is found any more
        }
        file.reseal()
        try file.save()
        // Another program renames books after the snapshot: an index must hide their old entries.
        let writer = try SQLiteCatalog.open(path: path, create: false)
        var current = books
        for index in stride(from: 0, to: current.count, by: 9) {
            let book = current[index]
            current[index] = try await writer.remote(account: "editor").save(
                SaveRequest(
                    id: book.id, title: "Zeta " + book.title, author: book.author, expectedRevision: book.revision))
        }
        try await expectExactSearches(try catalog.remote(account: "reader"), current)
    }

    @Test func aSnapshotOfAnotherCatalogIsRefused() async throws {
        let path = directory.path("mine.sqlite")
        let (catalog, books) = try makeCatalog(books: 120, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // Another catalog with other books, same scope and sizes, and its (intact) snapshot.
        let otherPath = directory.path("theirs.sqlite")
        let other = try SQLiteCatalog.open(path: otherPath, create: true)
        try other.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        for index in 0..<120 where index % 10 != 9 {
            try other.addBook(NewBook(title: "Other book \(index)"), scope: "main")
        }
        #expect(try await other.remote(account: "editor").searchIndexReport().snapshotStored)
        var theirs = try SnapshotFile(catalog: otherPath)
        let mine = try SnapshotFile(catalog: path)
        theirs = SnapshotFile(path: mine.path, bytes: theirs.bytes)
        try theirs.save()

        let remote = try catalog.remote(account: "reader")
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactSearches(remote, books)
    }

    @Test func theDecoderRefusesEveryChangedByteAndEveryTruncation() async throws {
        let path = directory.path("probe.sqlite")
        let (catalog, books) = try makeCatalog(books: 150, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let file = try SnapshotFile(catalog: path)
        let queries = ["a", "hist", "l'e", "al ro", "東", ""]
        // The intact file answers as the books say.
        let intact = try #require(SearchIndexSnapshotProbe.decodeAndSearch(file.bytes, queries: queries))
        for (text, ids) in zip(queries, intact) {
            let terms = SearchTerms(text)
            let expected = books.filter { terms.isEmpty || terms.matches($0) }.sorted {
                terms.sortKey($0) < terms.sortKey($1)
            }
            #expect(ids == expected.prefix(50).map(\.id), "\(text)")
        }
        // Every byte is covered by a checksum: any change is refused, at decode or where a search reads it.
        var refused = 0
        for at in stride(from: 0, to: file.bytes.count, by: max(1, file.bytes.count / 400)) {
            var changed = file.bytes
            changed[at] ^= 0x10
            #expect(SearchIndexSnapshotProbe.decodeAndSearch(changed, queries: queries) == nil, "byte \(at)")
            refused += 1
        }
        for length in stride(from: 0, to: file.bytes.count, by: max(1, file.bytes.count / 100)) {
            #expect(
                SearchIndexSnapshotProbe.decodeAndSearch(Array(file.bytes.prefix(length)), queries: queries) == nil,
                "length \(length)")
        }
        #expect(refused > 100)
    }

    // MARK: Answers while the index is being built

    @Test func searchingWithoutTheIndexAnswersExactlyAsTheIndexDoes() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let remote = try catalog.remote(account: "editor")
        _ = try await remote.searchIndexReport()
        try await expectExactSearches(remote, books)
        try await expectExactSearches(remote, books, withoutIndex: true)
        // After edits the index answers through its overlay; the table directly.
        var current = books
        var generator = GeneratedBooks(seed: 23)
        for step in 0..<40 {
            let index = (step * 13) % current.count
            let seed = generator.book()
            current[index] = try await remote.save(
                SaveRequest(
                    id: current[index].id, title: seed.title, author: seed.author,
                    expectedRevision: current[index].revision))
        }
        current.append(
            try catalog.addBook(NewBook(title: "100% _under_ score\\ cafe\u{301}", author: "O'Brien"), scope: "main"))
        try await expectExactSearches(remote, current)
        try await expectExactSearches(remote, current, withoutIndex: true)
        for text in ["100%", "_under", "score\\", "cafe", "café", "o'b", "%", "_"] {
            let indexed = try await remote.search(SearchQuery(text: text))
            let unindexed = try await remote.searchWithoutIndex(SearchQuery(text: text))
            #expect(indexed.records == unindexed.records && indexed.total == unindexed.total, "\(text)")
        }
    }

    /// A one-letter query matching more books than are counted exactly is answered from kept
    /// matches (`BroadPrefixResults`): after other programs rename, move and add books, the
    /// pages and the "at least" total are still exactly what the books say, through the
    /// remote that kept them and through a new one catching up from the stored index.
    @Test func theBroadestQueriesStayExactAfterChanges() async throws {
        let path = directory.path("broad.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // A fresh file numbers the rows 1, 2, 3... in insertion order.
        var current = (0..<12_000).map { index in
            BookRecord(id: index + 1, title: index % 3 == 2 ? "Beta \(index) and more" : "Alpha \(index)", revision: 1)
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let pages = [(50, 0), (100, 5_000), (10, 7_990), (20, 11_990)]
        try await expectExactPages("a", pages, reader, current)

        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        for (step, index) in stride(from: 0, to: 3_000, by: 75).enumerated() {
            let book = current[index]
            // Out of rank 0, moved within it, or moved to the front of it.
            let title = ["Zulu \(index)", "Alpha moved \(index)", "Aardvark \(index)"][step % 3]
            current[index] = try await writer.save(
                SaveRequest(id: book.id, title: title, author: "", expectedRevision: book.revision))
        }
        for number in 0..<5 { current.append(try catalog.addBook(NewBook(title: "Aa new \(number)"), scope: "main")) }
        try await expectExactPages("a", pages, reader, current)
        try await expectExactPages("a", pages, try catalog.remote(account: "editor"), current)
    }

    /// The broad words of multi-word queries are kept as bitmaps (`BroadWordPlaces`) and
    /// shared by later queries with the same word in any position: the answers stay exactly
    /// what the books say, including after other programs' edits, and in a new remote.
    @Test func multiWordQueriesOfBroadWordsStayExact() async throws {
        let path = directory.path("broad-words.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // "alpha" and "beta" are in 6,000 of 9,000 books each: broad enough to be kept.
        var current = (0..<9_000).map { index in
            switch index % 3 {
            case 0: BookRecord(id: index + 1, title: "Alpha Beta \(index)", revision: 1)
            case 1: BookRecord(id: index + 1, title: "Beta \(index) Alpha", revision: 1, author: "Gamma")
            default: BookRecord(id: index + 1, title: "Gamma \(index) Beta", revision: 1, author: "Alpha Writer")
            }
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let queries = ["a b", "b a", "alpha beta", "a be", "be al 1", "g a", "a w", "a a", "b a g"]
        let pages = [(50, 0), (10, 2_995), (20, 5_990)]
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        for text in queries + queries { try await expectExactPages(text, pages, reader, current) }

        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        for (step, index) in stride(from: 0, to: 9_000, by: 97).enumerated() {
            let book = current[index]
            let title = ["Delta \(index)", "Alpha Delta \(index)", "Aaa Beta \(index)"][step % 3]
            current[index] = try await writer.save(
                SaveRequest(
                    id: book.id, title: title, author: book.author,
                    expectedRevision: book.revision))
        }
        for text in queries { try await expectExactPages(text, pages, reader, current) }
        let next = try catalog.remote(account: "editor")
        for text in queries { try await expectExactPages(text, pages, next, current) }
    }

    /// Typing over an index with changed books beside it judges, for a query that narrows an
    /// earlier one, only the changed books the earlier one matched: the pages and totals stay
    /// exactly what the books say, and after more changes too.
    @Test func typingOverChangedBooksNarrowsTheirEarlierMatchesExactly() async throws {
        let path = directory.path("overlay-narrowing.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        var current = (0..<3_000).map { index in
            BookRecord(
                id: index + 1, title: ["History \(index)", "Hidden \(index)", "Quiet \(index)"][index % 3], revision: 1,
                author: index % 5 == 0 ? "Hiro Ota" : "")
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        func rename(_ index: Int, _ title: String) async throws {
            let book = current[index]
            current[index] = try await writer.save(
                SaveRequest(id: book.id, title: title, author: book.author, expectedRevision: book.revision))
        }
        // 375 changed books beside the index (fewer than half its room, so it is not replaced):
        // some still match what they matched, some more, some less, and some rank lower in a
        // narrower query ("Hope and History" ranks first for "h", second for "hi", after "A
        // history of" there).
        for (step, index) in stride(from: 0, to: 3_000, by: 8).enumerated() {
            let titles = [
                "History of Rome \(index)", "Hi there \(index)", "A history of \(index)", "Quiet \(index)",
                "Hope and History \(index)",
            ]
            try await rename(index, titles[step % titles.count])
        }
        let typed = ["h", "hi", "his", "hist", "history", "history o", "history of", "history of r", "hi t", "o"]
        let pages = [(50, 0), (10, 395)]
        for text in typed { try await expectExactPages(text, pages, reader, current) }
        // Where the second rank of a narrower query begins: books that ranked first for the
        // query before it ("Hope and History" for "h") come among those that ranked second all
        // along ("A history of"), in title order.
        for (before, after) in [("h", "hi"), ("h", "hist")] {
            let terms = SearchTerms(after)
            let secondRank = try #require(
                current.filter(terms.matches).sorted { terms.sortKey($0) < terms.sortKey($1) }
                    .firstIndex { terms.rank($0) == 1 })
            try await expectExactPages(before, pages, reader, current)
            try await expectExactPages(after, [(60, secondRank - 5)], reader, current)
        }
        // More changes: a book "history of" matched no longer does, and one it did not now does;
        // then queries that narrow those typed before them.
        try await rename(0, "Quiet again")
        try await rename(1, "Zebra, by History of Athens")
        for text in ["history of a", "hi th", "of"] + typed { try await expectExactPages(text, pages, reader, current) }
    }

    /// A broad query over changed books beside an index, whose first rank fills the page from
    /// the index's own books and whose matches pass the count, judges only the changed books
    /// whose keys can rank first: the pages and totals stay exactly what the books say, at the
    /// top, deep, and where the index's first rank reaches keys beginning with punctuation above
    /// the word's first letter ("«Hymn»" for "h"), before which changed books may go ("¡Hola!").
    @Test func changedBooksBesideABroadQueryAreJudgedWhereTheyCanRankFirst() async throws {
        let path = directory.path("overlay-first-rank.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // Every book by a "Hiro": an "h" query has more matches than are counted.
        var current = (0..<12_000).map { index in
            let title = index < 9_000 ? "History \(index)" : index < 9_500 ? "«Hymn» \(index)" : "Quiet \(index)"
            return BookRecord(id: index + 1, title: title, revision: 1, author: "Hiro \(index)")
        }
        try catalog.insertBooks(current.map { NewBook(title: $0.title, author: $0.author) }, scope: "main")
        let reader = try catalog.remote(account: "editor")
        #expect(try await reader.searchIndexReport().snapshotStored)
        let writer = try SQLiteCatalog.open(path: path, create: false).remote(account: "editor")
        // 200 changed books: some rank first for "h" with keys below its letter ("[Hope]"), at
        // it ("Haze", "Hi"), above it ("¡Hola!"); some lower ("A history", "Zebra" by a Hiro).
        for (step, index) in stride(from: 0, to: 12_000, by: 60).enumerated() {
            let book = current[index]
            let titles = [
                "[Hope] \(index)", "Haze \(index)", "A history \(index)", "¡Hola! \(index)", "Zebra \(index)",
                "Hi \(index)",
            ]
            current[index] = try await writer.save(
                SaveRequest(
                    id: book.id, title: titles[step % titles.count], author: book.author,
                    expectedRevision: book.revision))
        }
        for text in ["h", "hi", "his", "history", "hist 1", "h h"] {
            try await expectExactPages(
                text, [(50, 0), (10, 395), (50, 5_000), (100, 8_900), (10, 9_300)], reader, current)
        }
    }

    /// A catalog read as a remote reads it while its index is built: kept scans, the table's copy.
    private struct BooksTableReader {
        let connection: Connection
        let scans: RecentScans

        /// Adds `books` to `catalog`'s "main" scope in an order shuffled by `seed` (ids then follow
        /// neither titles nor authors), and reads the catalog at `path`, keeping scans of at most
        /// `wholeLimit` matches whole (`LeadingMatches`; 0 keeps every scan's first matches only).
        init(
            path: String, books: [NewBook], shuffledBy seed: UInt64, into catalog: SQLiteCatalog,
            keepingWholeMatchesUpTo wholeLimit: Int
        ) throws {
            var books = books
            var generator = GeneratedBooks(seed: seed)
            for index in books.indices.reversed() { books.swapAt(index, generator.next(index + 1)) }
            try catalog.insertBooks(books, scope: "main")
            connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
            scans = RecentScans(memory: BuildMemory(besideCatalog: path), keepingWholeMatchesUpTo: wholeLimit)
        }

        /// The whole table's scan of `text`, kept with its first matches.
        func keptScan(_ text: String) throws -> RecentScans.Scan {
            _ = try search(text, limit: 50, offset: 0, pageFirst: false)
            return try #require(
                scans.narrowest(holdingMatchesOf: SearchTerms(text).words.map(QueryWord.init), at: .max))
        }

        /// The answer as of the catalog now; with `pageFirst`, the page alone from an earlier
        /// scan's first matches or its matches in order, when they hold it.
        func search(_ text: String, limit: Int, offset: Int, pageFirst: Bool) throws -> BooksTableSearch.Found {
            try connection.transaction(immediate: false) {
                let sequence = try connection.queryFirst("SELECT max(change_seq) FROM books") { $0.int(0) }!
                let search = BooksTableSearch(connection: connection, scope: "main", recent: (scans, sequence))
                let terms = SearchTerms(text)
                guard pageFirst else { return try search.search(terms, offset: offset, limit: limit) }
                return try search.pageFromFirstMatches(terms, offset: offset, limit: limit)
                    ?? search.pageFromOrderedMatches(terms, offset: offset, limit: limit)
                    ?? search.search(terms, offset: offset, limit: limit)
            }
        }
    }

    private func expectExactPages(
        _ text: String, _ pages: [(limit: Int, offset: Int)], _ remote: SQLiteBookRemote,
        _ books: [BookRecord], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let terms = SearchTerms(text)
        let expected = books.filter { terms.matches($0) }.sorted { terms.sortKey($0) < terms.sortKey($1) }
        for (limit, offset) in pages {
            let page = try await remote.search(SearchQuery(text: text, limit: limit, offset: offset))
            let wanted = Array(expected.dropFirst(offset).prefix(limit))
            let total = TotalCount(
                counted: expected.count, offset: offset, shown: wanted.count,
                hasMore: offset + wanted.count < expected.count)
            #expect(page.records == wanted, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
            #expect(page.totalCount == total, "\(text) \(limit) \(offset)", sourceLocation: sourceLocation)
        }
    }

    /// A search answered from the books table reads the whole table; one whose task was
    /// cancelled (the app cancels a search the next key replaced) stops instead of keeping the
    /// remote from the next search, and the remote answers the next one exactly.
    @Test func aCancelledSearchOfTheBooksTableStopsAndTheNextOneAnswers() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let remote = try catalog.remote(account: "reader")
        let failure = await Task { () async -> (any Error)? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await remote.searchWithoutIndex(SearchQuery(text: "a"))
                return nil
            } catch {
                return error
            }
        }.value
        #expect(failure is CancellationError, "\(String(describing: failure))")
        try await expectExactSearches(remote, books, withoutIndex: true)
    }

    @Test func aRemoteWithoutAStoredIndexAnswersAtOnceAndExactly() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        try catalog.discardSearchSnapshots()
        // Whichever way each search is answered (the build runs meanwhile), it is exact.
        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books)
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactSearches(remote, books)
    }

    @Test func aVersionOneCatalogIsMigratedAndSearchable() async throws {
        let path = directory.path("v1.sqlite")
        do {
            let created = try RawConnection(path, create: true)
            let handle = created.handle
            try execute(handle, Self.versionOneSchema)
            try execute(
                handle,
                """
                INSERT INTO accounts VALUES ('reader', 'reader', 'main');
                INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) VALUES
                    ('main', 'Rome', 'Livy', 1, 'rome', 'rome', 'livy', 1),
                    ('main', 'A History of Rome', 'Mary Beard', 3, 'a history of rome', 'a history of rome', 'mary beard', 2),
                    ('main', 'Spring 🌸 Rome', 'Bashō', 1, 'spring 🌸 rome', 'spring rome', 'basho', 3),
                    ('main', 'Øresund', 'Søren Ærø', 1, 'øresund', 'øresund', 'søren ærø', 4);
                PRAGMA user_version = 1;
                """)
        }
        let catalog = try SQLiteCatalog.open(path: path, create: false)
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, "PRAGMA user_version") == "5")
        let remote = try catalog.remote(account: "reader")
        let page = try await remote.search(SearchQuery(text: "rom"))
        #expect(page.records.map(\.title) == ["Rome", "A History of Rome", "Spring 🌸 Rome"] && page.total == 3)
        // Terms written before symbols were tokens are derived again by the upgrade.
        #expect(try await remote.search(SearchQuery(text: "🌸")).records.map(\.title) == ["Spring 🌸 Rome"])
        // Terms and title keys written before "ø" and "æ" were transliterated are derived again.
        #expect(try await remote.search(SearchQuery(text: "soren aero")).records.map(\.title) == ["Øresund"])
        #expect(try await remote.search(SearchQuery(text: "oresund")).records.map(\.title) == ["Øresund"])
        #expect(
            try await remote.search(SearchQuery(text: "")).records.map(\.title)
                == ["A History of Rome", "Øresund", "Rome", "Spring 🌸 Rome"])
        #expect(page.records[1].revision == 3)
        #expect(try await remote.searchIndexReport().snapshotStored)
    }

    // MARK: Helpers

    /// The schema of version 1, as it shipped.
    static let versionOneSchema = """
        CREATE TABLE accounts(
            name TEXT PRIMARY KEY NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('reader', 'editor')),
            scope TEXT NOT NULL
        ) STRICT;
        CREATE TABLE books(
            id INTEGER PRIMARY KEY,
            scope TEXT NOT NULL,
            title TEXT NOT NULL CHECK (length(title) > 0),
            author TEXT NOT NULL DEFAULT '',
            revision INTEGER NOT NULL CHECK (revision > 0),
            title_key TEXT NOT NULL,
            title_terms TEXT NOT NULL,
            author_terms TEXT NOT NULL,
            change_seq INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX books_by_scope_title ON books(scope, title_key, id);
        CREATE INDEX books_by_change ON books(change_seq);
        CREATE TABLE committed_saves(
            operation TEXT PRIMARY KEY NOT NULL,
            book_id INTEGER NOT NULL REFERENCES books(id),
            revision INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        """

    private func makeCatalog(books count: Int, path: String? = nil) throws -> (SQLiteCatalog, [BookRecord]) {
        let catalog = try SQLiteCatalog.open(path: path ?? directory.path("catalog.sqlite"), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.addAccount(Account(name: "outsider", role: .editor, scope: "other"))
        var generator = GeneratedBooks(seed: 3)
        var books: [BookRecord] = []
        for index in 0..<count {
            let seed = generator.book()
            let scope = index % 10 == 9 ? "other" : "main"
            let book = try catalog.addBook(NewBook(title: seed.title, author: seed.author), scope: scope)
            if scope == "main" { books.append(book) }
        }
        // Every tenth book is in another scope, so ids in "main" have gaps.
        return (catalog, books)
    }

    /// The books of `scope` as the catalog file holds them, read with a plain connection.
    private func committedBooks(_ path: String, scope: String) throws -> [BookRecord] {
        let raw = try RawConnection(path)
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                raw.handle, "SELECT id, title, author, revision FROM books WHERE scope = ?1", -1, &statement, nil)
                == SQLITE_OK
        else { throw RawError(message: String(cString: sqlite3_errmsg(raw.handle))) }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, scope, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var books: [BookRecord] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            books.append(
                BookRecord(
                    id: Int(sqlite3_column_int64(statement, 0)),
                    title: String(cString: sqlite3_column_text(statement, 1)),
                    revision: Int(sqlite3_column_int64(statement, 3)),
                    author: String(cString: sqlite3_column_text(statement, 2))))
        }
        return books
    }

    private func allBooks(_ remote: SQLiteBookRemote) async throws -> [BookRecord] {
        try await remote.search(SearchQuery(text: "", limit: 100_000)).records
    }

    /// Every query, at several pages, answers what `SearchTerms` says for `books`.
    private func expectExactSearches(
        _ remote: SQLiteBookRemote, _ books: [BookRecord], withoutIndex: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var generator = GeneratedBooks(seed: 17)
        let queries = Self.queries + (0..<15).map { _ in generator.query() }
        for text in queries {
            let terms = SearchTerms(text)
            let expected = books.filter { terms.isEmpty || terms.matches($0) }.sorted {
                terms.sortKey($0) < terms.sortKey($1)
            }
            for (limit, offset) in [(50, 0), (3, 0), (4, 5), (10, 100)] {
                let query = SearchQuery(text: text, limit: limit, offset: offset)
                let page = withoutIndex ? try await remote.searchWithoutIndex(query) : try await remote.search(query)
                let wanted = Array(expected.dropFirst(offset).prefix(limit))
                #expect(
                    page.records == wanted && page.total == expected.count, "\(text) \(limit) \(offset)",
                    sourceLocation: sourceLocation)
            }
        }
    }
}

/// Wherever the suite runs (no tmpfs needed): the -shm codes with ENOSPC are a full disk
/// that even a search meets, other I/O errors with ENOSPC a full disk, and the rest stay
/// SQLite's words.
@Suite struct SQLiteDiskFullWordsTests {
    @Test func theSharedMemoryCodesWithNoSpaceSayTheDiskIsFull() {
        let path = "/books/catalog.sqlite"
        for code in [SQLITE_IOERR | 18 << 8, SQLITE_IOERR | 19 << 8, SQLITE_IOERR | 21 << 8] {
            let error = SQLiteError(code: code, message: "disk I/O error", systemError: ENOSPC)
            #expect(error.catalogError(path: path) == .sharedMemoryDiskFull(path: path), "\(code)")
            #expect(
                error.bookFailure(catalogPath: path)
                    == .storeUnavailable("the disk is full: SQLite cannot make the catalog's shared-memory file (-shm)")
            )
        }
        let write = SQLiteError(code: SQLITE_IOERR | 3 << 8, message: "disk I/O error", systemError: ENOSPC)
        #expect(write.catalogError(path: path) == .diskFull(path: path))
        #expect(write.bookFailure(catalogPath: path) == .storeUnavailable("the disk is full"))
        let other = SQLiteError(code: SQLITE_IOERR | 19 << 8, message: "disk I/O error", systemError: EIO)
        #expect(other.catalogError(path: path) == .failed("disk I/O error"))
    }
}
