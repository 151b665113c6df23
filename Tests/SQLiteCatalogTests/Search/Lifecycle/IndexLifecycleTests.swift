import BookCatalog
import Dispatch
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// The search index's lifecycle (`IndexLifecycle`): every transition, every refused one, and
/// the remote moving through them (an index installed, a catch-up, a distrust after a failed
/// check), answering all the while what `SearchTerms` answers over the committed books.
@Suite struct IndexLifecycleTests: SearchIndexTesting {
    let directory: TemporaryDirectory
    /// Two bases of one small catalog, the second one book later (a larger `sequence`).
    let older: SearchIndexBase
    let newer: SearchIndexBase

    init() throws {
        directory = try TemporaryDirectory()
        let path = directory.path("bases.sqlite")
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.insertBooks((0..<20).map { NewBook(title: "Book \($0)") }, scope: "main")
        let connection = try CatalogConnection.open(path: path, create: false, busyTimeout: .seconds(5))
        func build() throws -> SearchIndexBase {
            try SearchIndexBuilder(connection: connection, scope: "main", memory: .anonymous).build()
        }
        older = try build()
        try catalog.addBook(NewBook(title: "Book 20"), scope: "main")
        newer = try build()
    }

    // MARK: The type

    @Test func aStartedPreparationLeavesNoIndexUntilItFinishes() throws {
        let first = IndexPreparation()
        let lifecycle = IndexLifecycle(preparing: first)
        #expect(Stage(lifecycle) == .preparing && lifecycle.preparation === first && lifecycle.index == nil)
        let retried = IndexPreparation()
        let again = try unprepared().after(.started(retried))
        #expect(Stage(again) == .preparing && again.preparation === retried && again.index == nil)
    }

    @Test func aFinishedPreparationIsInstalled() throws {
        let preparation = IndexPreparation()
        let ready = try IndexLifecycle(preparing: preparation).after(.prepared(prepared(older), by: preparation))
        #expect(Stage(ready) == .ready && ready.preparation == nil)
        #expect(ready.index?.base === older && ready.index?.isBridge == false)
        #expect(ready.installed?.prepared.base === older)
    }

    @Test func aFailedFirstPreparationLeavesNothingToSearchWith() throws {
        let lifecycle = try unprepared()
        #expect(Stage(lifecycle) == .unprepared && lifecycle.preparation == nil && lifecycle.index == nil)
    }

    @Test func aStaleStoredIndexBridgesTheBuildAndGivesWayToItsResult() throws {
        let build = IndexPreparation()
        let bridging = try IndexLifecycle(preparing: build).after(.bridgeFound(newer))
        #expect(Stage(bridging) == .bridging && bridging.preparation === build)
        #expect(bridging.index?.base === newer && bridging.index?.isBridge == true && bridging.installed == nil)
        // The build gives way to nothing older: it replaces the bridge whatever their sequences.
        let ready = try bridging.after(.prepared(prepared(older), by: build))
        #expect(Stage(ready) == .ready && ready.index?.base === older && ready.index?.isBridge == false)
    }

    @Test func aBridgeWhoseBuildFailedKeepsServingUntilAnotherStarts() throws {
        let build = IndexPreparation()
        let bridging = try IndexLifecycle(preparing: build).after(.bridgeFound(older))
        let bridge = bridging.index
        let alone = try bridging.after(.preparationFailed(build))
        #expect(Stage(alone) == .bridging && alone.preparation == nil && alone.index === bridge)
        let retry = IndexPreparation()
        let rebuilding = try alone.after(.started(retry))
        #expect(Stage(rebuilding) == .bridging && rebuilding.preparation === retry && rebuilding.index === bridge)
    }

    @Test func aReplacementIsInstalledOnlyWhenItIsNewer() throws {
        let (ready, index) = try readyWithReplacement(older)
        let replaced = try ready.lifecycle.after(.prepared(prepared(newer), by: ready.replacement))
        #expect(Stage(replaced) == .ready && replaced.preparation == nil && replaced.index?.base === newer)
        #expect(replaced.index !== index)

        let (current, kept) = try readyWithReplacement(newer)
        let same = try current.lifecycle.after(.prepared(prepared(newer), by: current.replacement))
        #expect(Stage(same) == .ready && same.preparation == nil && same.index === kept)
        let stale = try current.lifecycle.after(.prepared(prepared(older), by: current.replacement))
        #expect(Stage(stale) == .ready && stale.preparation == nil && stale.index === kept)
    }

    @Test func aFailedReplacementLeavesTheIndexInUse() throws {
        let (ready, index) = try readyWithReplacement(older)
        let failed = try ready.lifecycle.after(.preparationFailed(ready.replacement))
        #expect(Stage(failed) == .ready && failed.preparation == nil && failed.index === index)
    }

    @Test func aDistrustedIndexIsDroppedAndItsRebuildInstalled() throws {
        let build = IndexPreparation()
        let bridging = try IndexLifecycle(preparing: build).after(.bridgeFound(older))
        let (ready, _) = try readyWithReplacement(older)
        for lifecycle in [bridging, ready.lifecycle] {
            let rebuild = IndexPreparation()
            let distrusted = try lifecycle.after(.distrusted(rebuild: rebuild))
            #expect(Stage(distrusted) == .distrusted && distrusted.index == nil && distrusted.preparation === rebuild)
            let rebuilt = try distrusted.after(.prepared(prepared(older), by: rebuild))
            #expect(Stage(rebuilt) == .ready && rebuilt.index?.base === older)
            let failed = try distrusted.after(.preparationFailed(rebuild))
            #expect(Stage(failed) == .unprepared)
        }
    }

    @Test func aCatchUpIsScheduledStartedAndFinished() throws {
        let preparation = IndexPreparation()
        let ready = try IndexLifecycle(preparing: preparation).after(.prepared(prepared(older), by: preparation))
        let scheduled = try ready.after(.catchUpScheduled)
        #expect(CatchUp(scheduled) == .scheduled && scheduled.runningCatchUp == nil)
        #expect(CatchUp(try scheduled.after(.scheduledCatchUpDropped)) == .idle)
        let task = Task {}
        for start in [ready, scheduled] {
            let running = try start.after(.catchUpStarted(task))
            #expect(CatchUp(running) == .running && running.runningCatchUp == task)
            #expect(CatchUp(try running.after(.catchUpFinished)) == .idle)
            // A distrust meanwhile drops the index, not the catch-up reading for it.
            let distrusted = try running.after(.distrusted(rebuild: IndexPreparation()))
            #expect(Stage(distrusted) == .distrusted && distrusted.runningCatchUp == task)
        }
        // A stale stored index catches up while its rebuild runs.
        let bridging = try IndexLifecycle(preparing: IndexPreparation()).after(.bridgeFound(older))
        #expect(CatchUp(try bridging.after(.catchUpStarted(task))) == .running)
        // The first results schedule one before any index is there to catch up.
        #expect(CatchUp(try IndexLifecycle(preparing: preparation).after(.catchUpScheduled)) == .scheduled)
    }

    @Test func anEventThatCannotHappenNowIsRefused() throws {
        let preparation = IndexPreparation()
        let preparing = IndexLifecycle(preparing: preparation)
        let bridging = try preparing.after(.bridgeFound(older))
        let (ready, _) = try readyWithReplacement(older)
        let readyAlone = try ready.lifecycle.after(.preparationFailed(ready.replacement))
        let rebuild = IndexPreparation()
        let distrusted = try bridging.after(.distrusted(rebuild: rebuild))
        let stages: [(String, IndexLifecycle)] = [
            ("unprepared", try unprepared()), ("preparing", preparing), ("bridging", bridging),
            ("ready", ready.lifecycle), ("ready alone", readyAlone), ("distrusted", distrusted),
        ]
        let stranger = IndexPreparation()
        for (name, lifecycle) in stages {
            // Only the preparation under way can finish, and none can finish where none is.
            expectRefused(lifecycle, .prepared(prepared(newer), by: stranger), name)
            expectRefused(lifecycle, .preparationFailed(stranger), name)
        }
        // A preparation starts only where none is under way.
        for (name, lifecycle) in [stages[1], stages[2], stages[3], stages[5]] {
            expectRefused(lifecycle, .started(IndexPreparation()), name)
        }
        // A bridge is found only by the first preparation, before anything can be searched.
        for (name, lifecycle) in stages where name != "preparing" {
            expectRefused(lifecycle, .bridgeFound(older), name)
        }
        for (name, lifecycle) in [stages[0], stages[1], stages[5]] {
            // A catch-up cannot start with no index to catch up.
            expectRefused(lifecycle, .catchUpStarted(Task {}), name)
            // A distrust is taken in any stage: what was under way gives way to the rebuild
            // (the remote cancels it), so no waiter is left on a cancelled preparation.
            let rebuild = IndexPreparation()
            let distrusted = try lifecycle.after(.distrusted(rebuild: rebuild))
            #expect(Stage(distrusted) == .distrusted && distrusted.preparation === rebuild, "\(name)")
        }
        let task = Task {}
        let scheduled = try readyAlone.after(.catchUpScheduled)
        let running = try readyAlone.after(.catchUpStarted(task))
        for (name, lifecycle) in [("scheduled", scheduled), ("running", running)] {
            expectRefused(lifecycle, .catchUpScheduled, name)
        }
        expectRefused(running, .catchUpStarted(task), "running")
        expectRefused(running, .scheduledCatchUpDropped, "running")
        for (name, lifecycle) in [("idle", readyAlone), ("scheduled", scheduled)] {
            expectRefused(lifecycle, .catchUpFinished, name)
        }
        expectRefused(readyAlone, .scheduledCatchUpDropped, "idle")
    }

    // MARK: The remote

    /// A remote over a stored index it can use loads it: from the first word query on, the
    /// index answers, exactly.
    @Test func aRemoteInstallsTheStoredIndexAndAnswersExactly() async throws {
        let (catalog, books) = try makeCatalog(books: 200)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let remote = try catalog.remote(account: "reader")
        #expect(await Self.observed(remote).stage == .preparing)
        try await expectExact(remote, books, byIndex: true)
        let seen = await Self.observed(remote)
        #expect(seen.stage == .ready && seen.origin == .loadedSnapshot && !seen.preparing)
        #expect(try await remote.searchIndexReport().report.origin == .loadedSnapshot)
    }

    /// The first results over a stored index behind the catalog schedule a catch-up, which reads
    /// the changed rows away from the actor (held here until the test lets it go); the next
    /// word query waits for it and answers from the caught-up index as the books are now.
    @Test func aCatchUpReadAwayFromTheActorIsAppliedAndAnswersAsTheBooksAreNow() async throws {
        let path = directory.path("catch-up.sqlite")
        let (catalog, stored) = try makeCatalog(books: 200, path: path)
        var books = stored
        let editor = try catalog.remote(account: "editor")
        #expect(try await editor.searchIndexReport().snapshotStored)
        for book in books.prefix(5) {
            let saved = try await editor.save(
                SaveRequest(id: book.id, title: "Renamed \(book.id)", author: "", expectedRevision: book.revision))
            books[books.firstIndex { $0.id == book.id }!] = saved
        }
        books.append(try catalog.addBook(NewBook(title: "Alpha added"), scope: "main"))

        let held = HeldCatchUp()
        let remote = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: nil, beforeCatchUp: held.hold)
            .remote(account: "reader")
        _ = try await remote.search(SearchQuery(text: ""))
        for await _ in held.began { break }
        let during = await Self.observed(remote)
        #expect(during.stage == .ready && during.catchUp == .running)
        held.release()
        try await expectExact(remote, books, byIndex: true)
        #expect(await Self.observed(remote).catchUp == .idle)
    }

    /// An index that fails a check where a search reads it is distrusted: dropped, its rebuild
    /// from the books table (held here) started without the stored file, and every search
    /// meanwhile answered without an index; once the rebuild is done it answers, exactly. The
    /// check: every id the index names is a book of the scope, which another program moving a
    /// book to another scope without a change sequence (as a crafted file would) makes false.
    @Test func anIndexThatFailsACheckIsDistrustedAndRebuiltFromTheTable() async throws {
        let path = directory.path("distrust.sqlite")
        let (catalog, stored) = try makeCatalog(books: 200, path: path)
        #expect(try await catalog.remote(account: "editor").searchIndexReport().snapshotStored)
        let terms = SearchTerms("a")
        let moved = try #require(stored.filter { terms.matches($0) }.min { terms.sortKey($0) < terms.sortKey($1) })
        try withRawConnection(path) { try execute($0, "UPDATE books SET scope = 'other' WHERE id = \(moved.id)") }
        let books = stored.filter { $0.id != moved.id }

        let build = DispatchSemaphore(value: 0)
        defer { build.signal() }
        let remote = try SQLiteCatalog.open(path: path, create: false, beforeIndexBuild: { build.wait() })
            .remote(account: "reader")
        let first = try await remote.search(SearchQuery(text: "a", limit: 10))
        let expected = matches(of: terms, in: books)
        #expect(first.records == Array(expected.prefix(10)) && first.source == .booksTable)
        #expect(await Self.observed(remote).stage == .distrusted)
        try await expectExact(remote, books, byIndex: false)
        build.signal()
        let (report, snapshotStored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && snapshotStored && report.books == books.count)
        try await expectExact(remote, books, byIndex: true)
    }

    // MARK: Helpers

    /// A stage without its values, to compare.
    enum Stage: Equatable {
        case unprepared, preparing, bridging, ready, distrusted

        init(_ lifecycle: IndexLifecycle) {
            self =
                switch lifecycle.stage {
                case .unprepared: .unprepared
                case .preparing: .preparing
                case .bridging: .bridging
                case .ready: .ready
                case .distrusted: .distrusted
                }
        }
    }

    enum CatchUp: Equatable {
        case idle, scheduled, running

        init(_ lifecycle: IndexLifecycle) {
            self =
                switch lifecycle.catchUp {
                case .idle: .idle
                case .scheduled: .scheduled
                case .running: .running
                }
        }
    }

    /// What a remote's lifecycle shows, read on its actor.
    struct Observed: Sendable {
        let stage: Stage
        let catchUp: CatchUp
        let origin: SearchIndexReport.Origin?
        let preparing: Bool
    }

    private static func observed(_ remote: isolated SQLiteBookRemote) -> Observed {
        let lifecycle = remote.lifecycle
        return Observed(
            stage: Stage(lifecycle), catchUp: CatchUp(lifecycle),
            origin: lifecycle.installed?.prepared.report.origin, preparing: lifecycle.preparation != nil)
    }

    /// Holds a remote's catch-up where it begins, and says when it began.
    private final class HeldCatchUp: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        let began: AsyncStream<Void>
        private let beginning: AsyncStream<Void>.Continuation

        init() { (began, beginning) = AsyncStream.makeStream(of: Void.self) }

        /// The time limit only ends a wait a broken remote would never end; the test releases it.
        var hold: @Sendable () -> Void {
            { [self] in
                beginning.yield()
                _ = gate.wait(timeout: .now() + 60)
            }
        }

        func release() { gate.signal() }
    }

    private func prepared(_ base: SearchIndexBase) -> IndexPreparation.Prepared {
        let report = SearchIndexReport(
            origin: .built, books: base.count, bytes: base.byteCount, mapped: false, duration: .zero)
        return IndexPreparation.Prepared(base: base, report: report, snapshotStored: false)
    }

    /// A lifecycle whose first preparation failed.
    private func unprepared() throws -> IndexLifecycle {
        let preparation = IndexPreparation()
        return try IndexLifecycle(preparing: preparation).after(.preparationFailed(preparation))
    }

    /// A lifecycle with `base` installed and a replacement under way, and the installed index.
    private func readyWithReplacement(_ base: SearchIndexBase) throws -> (
        (lifecycle: IndexLifecycle, replacement: IndexPreparation), SearchIndex
    ) {
        let first = IndexPreparation()
        let ready = try IndexLifecycle(preparing: first).after(.prepared(prepared(base), by: first))
        let replacement = IndexPreparation()
        let replacing = try ready.after(.started(replacement))
        #expect(Stage(replacing) == .ready && replacing.preparation === replacement)
        #expect(replacing.index === ready.index)
        return ((replacing, replacement), try #require(ready.index))
    }

    private func expectRefused(
        _ lifecycle: IndexLifecycle, _ event: IndexLifecycle.Event, _ name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(throws: IndexLifecycle.Refusal.self, "\(event) in \(name)", sourceLocation: sourceLocation) {
            try lifecycle.after(event)
        }
    }

    /// Every word query of `sampleQueries` answers the page and total `SearchTerms`
    /// gives over `books`: from the current index when `byIndex`, else without one.
    private func expectExact(
        _ remote: SQLiteBookRemote, _ books: [BookRecord], byIndex: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for text in sampleQueries where !text.isEmpty {
            let terms = SearchTerms(text)
            let expected = matches(of: terms, in: books)
            let page = try await remote.search(SearchQuery(text: text, limit: 10))
            #expect(
                page.records == Array(expected.prefix(10)) && page.total == expected.count, "\(text)",
                sourceLocation: sourceLocation)
            let fromAnIndex = page.source == .index || page.source == .staleIndex
            #expect(
                byIndex ? page.source == .index : !fromAnIndex, "\(text): \(String(describing: page.source))",
                sourceLocation: sourceLocation)
        }
    }
}
