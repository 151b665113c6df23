import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Synchronization
import TestTags
import Testing

/// How a remote gets its index: built and stored by the first, loaded by the next, rebuilt when too far
/// behind; caught up away from the actor; and a build that gives way to the searches beside it
/// (`IndexPreparation`, `BackgroundThread`, `ForegroundWork`).
@Suite struct SearchIndexLifecycleTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

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

    /// A preparation for a remote that answers one search (`bookshelf search`) works out no
    /// answers ahead once its index is ready: the process exits after the one search. Any other
    /// works out the broadest one-letter queries' (issue 63).
    @Test func aPreparationForOneSearchWorksNothingOutAhead() async throws {
        let catalog = try SQLiteCatalog.open(path: directory.path("broad.sqlite"), create: true)
        // Every title begins a token with "a": that letter's postings are all the books', broad.
        try catalog.insertBooks((1...5_000).map { NewBook(title: "apple \($0)") }, scope: "main")
        for warms in [true, false] {
            let preparation = IndexPreparation.start(
                path: catalog.path, busyTimeout: .seconds(5), scope: "main", keepsBroadAnswers: warms)
            let base = try await preparation.value().base
            await preparation.workDone()
            #expect(
                (base.broadPrefixes.keptCount > 0) == warms,
                "warms up: \(warms), answers kept: \(base.broadPrefixes.keptCount)")
        }
    }

    /// A remote for one command (`bookshelf search`, `edit`...) keeps no broad answer either: a broad
    /// prefix or a multi-word query's broad words are read only as far as the page and the count
    /// need, not whole for the keys to come; and it answers as a remote that keeps them (issue 63).
    @Test func aRemoteForOneCommandKeepsNoBroadAnswerAndAnswersTheSame() async throws {
        let catalog = try SQLiteCatalog.open(path: directory.path("one-search.sqlite"), create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        // "apple" and "pie" in every title: both broad, as "history of" is at ten million books.
        let count = 5_000
        try catalog.insertBooks(
            (1...count).map { NewBook(title: "apple pie \($0)", author: $0.isMultiple(of: 3) ? "Pia Apted" : "Bo") },
            scope: "main")
        let reader = try catalog.remote(account: "editor")
        var books: [BookRecord] = []
        for id in 1...count { books.append(try await reader.load(id: id)) }
        let pages = [(limit: 50, offset: 0), (3, 0), (4, 5), (10, 100), (50, 4_990)]
        for forOneCommand in [true, false] {
            // A remote for one search takes its catalog's connection: each gets a catalog of its own.
            let owner = try SQLiteCatalog.open(path: catalog.path, create: false)
            let remote =
                forOneCommand ? try owner.remoteForOneCommand(account: "editor") : try owner.remote(account: "editor")
            // The index answers every search here.
            await remote.finishIndexPreparation()
            for text in ["a", "p", "apple pie", "a p", "pie ap", "apple 4", "pi apt"] {
                try await expectExactPages(text, pages, remote, books)
            }
            let kept = try #require(await remote.keptBroadAnswers())
            #expect(
                (kept.prefixes > 0 && kept.words > 0) == !forOneCommand
                    && (kept.prefixes + kept.words == 0) == forOneCommand,
                "for one command: \(forOneCommand), kept: \(kept)")
        }
    }

    /// A remote for one command (`bookshelf search`, `edit`...) takes its catalog's connection, so the file is
    /// opened once: the catalog refuses any use after, saying why. A current stored index is there
    /// as soon as the remote is, loaded on that connection, without a thread or a connection of the
    /// preparation's (issue 63). The remote answers and counts as any other.
    @Test func aRemoteForOneCommandReadsTheCatalogOnOneConnectionAndHasAStoredIndexAtOnce() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        _ = try await catalog.prepareSearchIndex(scope: "main")
        let remote = try catalog.remoteForOneCommand(account: "editor")
        let report = try #require(await finishedPreparation(of: remote), "the stored index is not loaded yet")
        #expect(report.origin == .loadedSnapshot && report.books == books.count)
        #expect(
            throws: SQLiteCatalogError.cannotOpen(
                path: catalog.path, reason: "its connection was given to a command's remote")
        ) {
            try catalog.accounts()
        }
        try await expectExactSearches(remote, books)
        #expect(try await remote.bookCount() == books.count)
    }

    /// An engine for one search loads a current stored index on its host's source: it never opens
    /// a source of its own (a connection, in a `bookshelf search` process), and the index is there
    /// when the engine is. An engine for a session loads it on a source of its own, away from
    /// the host's actor (issue 63).
    @Test func anEngineForOneSearchLoadsACurrentStoredIndexOnItsHostsSource() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        _ = try await catalog.prepareSearchIndex(scope: "main")
        for keepsBroadAnswers in [false, true] {
            let opener = CountingOpener(
                SQLiteSearchSourceOpener(path: catalog.path, busyTimeout: .seconds(5), scope: "main"))
            let engine = SearchEngine(
                source: try opener.opened.openSource(), opener: opener, scope: "main",
                keepsBroadAnswers: keepsBroadAnswers)
            let preparation = try #require(engine.lifecycle.preparation)
            let atOnce = preparation.finished != nil
            let prepared = try await preparation.value()
            #expect(prepared.report.origin == .loadedSnapshot && prepared.report.books == books.count)
            #expect(
                (opener.count == 0 && atOnce) == !keepsBroadAnswers && opener.count == (keepsBroadAnswers ? 1 : 0),
                "keeps broad answers: \(keepsBroadAnswers), opened: \(opener.count), at once: \(atOnce)")
        }
    }

    /// Without a stored index, a remote for one command answers while one is built on the
    /// preparation's own connection, which then stores it for the next process.
    @Test func aRemoteForOneCommandWithoutAStoredIndexBuildsAndStoresOne() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        let remote = try catalog.remoteForOneCommand(account: "reader")
        try await expectExactSearches(remote, books)
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored)
        let next = try SQLiteCatalog.open(path: catalog.path, create: false).remoteForOneCommand(account: "reader")
        #expect(try await next.searchIndexReport().report.origin == .loadedSnapshot)
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

    @Test func aRemoteWithoutAStoredIndexAnswersAtOnceAndExactly() async throws {
        let (catalog, books) = try makeCatalog(books: 300)
        try catalog.discardSearchSnapshots()
        // Whichever way each search is answered (the build runs meanwhile), it is exact.
        let remote = try catalog.remote(account: "reader")
        try await expectExactSearches(remote, books)
        #expect(try await remote.searchIndexReport().report.origin == .built)
        try await expectExactSearches(remote, books)
    }
}

/// The slow part of the suite above (each of these takes seconds: large generated catalogs, many
/// damaged copies); the rest stays in the inner loop (`Scripts/test fast`).
@Suite(.tags(.slow)) struct SearchIndexLifecycleScaleTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Catching up with many changes (a stale stored index bridging its rebuild: seconds at ten
    /// million books) is read away from the remote, so keys typed meanwhile get their pages
    /// from the title order at once, with their counts to follow; a page that needs the index
    /// waits for the catch-up instead of doing it again. Every page and count is what the
    /// committed books give, and the changed books are in them.
    @Test func keysTypedWhileAStaleIndexCatchesUpGetTheirPagesFromTheTitleOrder() async throws {
        let path = directory.path("catch-up.sqlite")
        let (catalog, _) = try makeCatalog(books: 120, path: path)
        var generator = GeneratedBooks(seed: 5)
        try catalog.insertBooks(generator.newBooks(11_900), scope: "main")
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        // More changed rows than are read on the remote's actor (4,096) and than an index keeps
        // in its overlay (1,024 + 12,000 / 96), fewer than a bridge may hold (four times that).
        try catalog.insertBooks(
            generator.newBooks(4_440) + (0..<60).map { NewBook(title: "Habitat \($0)", author: "") }, scope: "main")
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
            return matches(of: terms, in: current)
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

    @Test func aSnapshotTooFarBehindIsRebuiltAndStoredAgain() async throws {
        let (catalog, books) = try makeCatalog(books: 50)
        let first = try catalog.remote(account: "editor")
        #expect(try await first.searchIndexReport().snapshotStored)
        // More changed rows than an index may hold in its overlay (1,024 for a small catalog).
        var generator = GeneratedBooks(seed: 5)
        try catalog.insertBooks(
            generator.newBooks(1_100),
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
}

extension SQLiteBookRemote {
    /// How many broad prefixes' answers and broad words' places the installed index keeps.
    fileprivate func keptBroadAnswers() -> (prefixes: Int, words: Int)? {
        guard let base = searchEngine.lifecycle.index?.base else { return nil }
        return (base.broadPrefixes.keptCount, base.broadWords.keptCount)
    }
}

/// What `remote`'s index preparation finished with, if it has, without waiting for it.
private func finishedPreparation(of remote: isolated SQLiteBookRemote) -> SearchIndexReport? {
    guard case let .success(prepared)? = remote.lifecycle.preparation?.finished else { return nil }
    return prepared.report
}

/// An opener that counts the sources it opens.
private final class CountingOpener: SearchSourceOpener, Sendable {
    let opened: SQLiteSearchSourceOpener
    private let opens = Mutex(0)

    init(_ opened: SQLiteSearchSourceOpener) { self.opened = opened }

    var count: Int { opens.withLock { $0 } }

    func openSource() throws -> any SearchSource {
        opens.withLock { $0 += 1 }
        return try opened.openSource()
    }
}
