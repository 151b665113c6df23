import Dispatch
import Foundation
import Locking
import Synchronization

/// How a remote's search index came to be, for the benchmark and for tests.
public struct SearchIndexReport: Sendable, Equatable {
    public enum Origin: Sendable, Equatable {
        /// Mapped from the snapshot file stored beside the catalog, and read in place.
        case loadedSnapshot
        /// Built from the books (no usable snapshot).
        case built
    }

    public let origin: Origin
    /// Books in the index's base (changes since are replayed on top).
    public let books: Int
    /// Bytes the index's base holds.
    public let bytes: Int
    /// Whether the base is read in place from a mapped snapshot file (its pages belong to the
    /// file, not to the process's own memory) rather than held in memory.
    public let mapped: Bool
    /// How long loading or building took, on a background thread.
    public let duration: Duration
}

/// Loads or builds a search index on a background thread with a connection of its own, as
/// soon as a remote is made (a remote for one command first tries the stored index on its own
/// connection: `start(trying:otherwise:scope:)`). A search waits for the load attempt (mapping a stored snapshot
/// takes a millisecond) but never for a build: until the index is ready it is answered
/// without one (`BooksTableSearch`). After a build the index is stored beside the catalog for
/// the next connection and then read back from that file, so that it is held by the page
/// cache rather than by this process.
///
/// Runs on a thread of its own rather than a Swift task: loading and building block on SQLite
/// and on CPU for a while, and must not hold one of the few threads of Swift's cooperative pool.
/// The thread gives way to the app's (`BackgroundThread`) once the stored snapshot has been
/// tried: on two cores, a build beside the search actor and the screen made keys typed
/// meanwhile wait for a core.
package final class IndexPreparation: Sendable {
    package struct Prepared: Sendable {
        package let base: SearchIndexBase
        package let report: SearchIndexReport
        /// Whether this preparation built the index and stored it in the catalog.
        package let snapshotStored: Bool
    }

    private let prepared = Promise<Prepared>()
    /// A stored index too far behind to be caught up for good, which can still answer
    /// (with a larger overlay) until the build finishes. Set before `loadAttempt` is kept.
    private let bridgeBase = Locked<SearchIndexBase?>(nil)
    /// Kept once the stored snapshot was tried: by then a loaded index is `finished`.
    private let loadAttempt = Promise<Void>()
    private let cancelled = Atomic<Bool>(false)
    /// Kept when the thread has done all it does, the answers worked out ahead included.
    private let allWorkDone = Promise<Void>()
    /// The searches answered while this builds: the build holds back while one runs.
    package let foreground = ForegroundWork()

    /// Starts at once. A stored snapshot is used if it lags by no more changed rows than an
    /// index may hold in its overlay, unless `useSnapshot` is false (it failed a check).
    /// `beforeBuild` runs on the preparation's thread once the stored snapshot was tried and a
    /// build is about to start: tests hold a build there to see how searches are answered meanwhile.
    /// `keepsBroadAnswers`: once ready, works out the answers of the broadest one-letter
    /// queries for the searches to come; false for a remote that answers one search and is gone.
    package static func start(
        _ opener: any SearchSourceOpener, scope: String, useSnapshot: Bool = true,
        beforeBuild: BuildHook? = nil, keepsBroadAnswers: Bool = true
    ) -> IndexPreparation {
        let preparation = IndexPreparation()
        let thread = Thread {
            preparation.run(
                opener, scope: scope, useSnapshot: useSnapshot, beforeBuild: beforeBuild,
                keepsBroadAnswers: keepsBroadAnswers)
        }
        thread.name = "bookshelf index build"
        thread.start()
        return preparation
    }

    /// For a remote that serves one command and is gone: the stored snapshot is tried at once,
    /// on `source`, the host's own connection, before the host is shared. When it is current
    /// enough to keep, the preparation is finished already, and the process starts neither the
    /// preparation's thread nor a third connection to the catalog, each a part of a whole
    /// `bookshelf search` (`perf record` over its runs; `bookshelf-bench cli`). Otherwise it
    /// starts as `start(_:scope:)` does, and tries the snapshot again for a bridge on its own.
    package static func start(
        trying source: any SearchSource, otherwise opener: any SearchSourceOpener, scope: String,
        beforeBuild: BuildHook? = nil
    ) -> IndexPreparation {
        let start = ContinuousClock.now
        if let (loaded, behind) = storedSnapshot(in: source, scope: scope),
            behind <= SearchIndex.overlayLimit(bookCount: loaded.count)
        {
            let preparation = IndexPreparation()
            preparation.prepared.fulfil(.success(.loaded(loaded, since: start)))
            preparation.loadAttempt.fulfil(.success(()))
            preparation.allWorkDone.fulfil(.success(()))
            return preparation
        }
        return Self.start(opener, scope: scope, beforeBuild: beforeBuild, keepsBroadAnswers: false)
    }

    package typealias BuildHook = @Sendable () -> Void

    /// Waits until the stored snapshot has been tried (loaded, or found missing or unusable).
    package func attemptedLoad() async { _ = try? await loadAttempt.value() }

    /// The stale stored index to bridge the build with, if there is one.
    package var bridge: SearchIndexBase? { bridgeBase.withLock { $0 } }

    /// Stops a build nobody waits for any more (its remote is gone).
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// The index, waiting for it if need be.
    package func value() async throws -> Prepared { try await prepared.value() }

    /// The outcome if the preparation has finished, without waiting.
    package var finished: Result<Prepared, any Error>? { prepared.current }

    private func run(
        _ opener: any SearchSourceOpener, scope: String, useSnapshot: Bool, beforeBuild: BuildHook?,
        keepsBroadAnswers: Bool
    ) {
        // The source is closed before anyone hears of the outcome: a program that exits right
        // after its first search then leaves an SQLite catalog closed cleanly (no WAL file).
        let outcome = Result {
            try prepare(opener, scope: scope, useSnapshot: useSnapshot, beforeBuild: beforeBuild)
        }
        prepared.fulfil(outcome)
        loadAttempt.fulfil(.success(()))
        // Searches use the index from here on; the broadest ones get their answers ready.
        if case let .success(ready) = outcome, keepsBroadAnswers, !cancelled.load(ordering: .relaxed) {
            // A build gave way already, before it started (a thread's nice value only goes up).
            if ready.report.origin == .loadedSnapshot { BackgroundThread.yieldToOthers() }
            ready.base.broadPrefixes.warmUp(ready.base)
        }
        allWorkDone.fulfil(.success(()))
    }

    /// Waits until the thread has finished everything, not only the index: for tests.
    package func workDone() async { _ = try? await allWorkDone.value() }

    private func prepare(_ opener: any SearchSourceOpener, scope: String, useSnapshot: Bool, beforeBuild: BuildHook?)
        throws -> Prepared
    {
        let clock = ContinuousClock()
        let start = clock.now
        let source: any SearchSource
        do {
            source = try opener.openSource()
        } catch {
            loadAttempt.fulfil(.success(()))
            throw error
        }
        let loaded = useSnapshot ? Self.storedSnapshot(in: source, scope: scope) : nil
        if let (stale, behind) = loaded, behind > SearchIndex.overlayLimit(bookCount: stale.count) {
            bridgeBase.withLock { $0 = stale }
        } else if let (loaded, _) = loaded {
            return .loaded(loaded, since: start)
        }
        loadAttempt.fulfil(.success(()))
        defer { bridgeBase.withLock { $0 = nil } }
        // Gives way from here on, not before: the load attempt is what every first search waits
        // for (a one-shot `bookshelf search` does nothing else meanwhile), and on two busy cores
        // a thread niced before it made that wait several times longer.
        BackgroundThread.yieldToOthers()
        // Searches are answered without an index until the build ends, some from the title order.
        SeparatorKeys.prepare()
        beforeBuild?()
        let builder = SearchIndexBuilder(
            source: source, memory: BuildMemory(folder: source.scratchFolder),
            isCancelled: { self.cancelled.load(ordering: .relaxed) },
            givingWay: { self.foreground.waitWhileBusy() })
        let built = try builder.build()
        // A source that cannot store one (a read-only catalog) gets no index file: the index lives
        // in memory. The snapshot is only an aid: the source waits only briefly to record it.
        let snapshotID =
            cancelled.load(ordering: .relaxed) || !source.canStoreIndex
            ? nil
            : try? SearchIndexSnapshot.save(built, scope: scope, to: source)
        // Read back from the file just written: the same index, held by the page cache.
        let expected = snapshotID.map {
            SearchIndexSnapshot.Expectation(
                snapshotID: $0, scope: scope, sequence: built.sequence, count: built.count,
                largestID: built.largestID)
        }
        let mapped = expected.flatMap { try? SearchIndexSnapshot.map(source.indexFilePath, expecting: $0) }
        let base = mapped ?? built
        let report = SearchIndexReport(
            origin: .built, books: base.count, bytes: base.byteCount, mapped: mapped != nil,
            duration: clock.now - start)
        return Prepared(base: base, report: report, snapshotStored: snapshotID != nil)
    }
}

extension IndexPreparation {
    /// The snapshot stored beside the source's books, and how many changes it is behind, if it
    /// is near enough to be searched at all (as a bridge, beyond the overlay's limit).
    fileprivate static func storedSnapshot(in source: any SearchSource, scope: String) -> (
        base: SearchIndexBase, behind: Int
    )? {
        try? source.inOneRead { () throws -> (base: SearchIndexBase, behind: Int)? in
            try SearchIndexSnapshot.load(
                scope: scope, sequence: try source.latestChange(), maximumBehind: SearchIndex.bridgeLimit, from: source)
        }
    }
}

extension IndexPreparation.Prepared {
    /// A stored snapshot, loaded in the time since `start`.
    fileprivate static func loaded(_ base: SearchIndexBase, since start: ContinuousClock.Instant) -> Self {
        let report = SearchIndexReport(
            origin: .loadedSnapshot, books: base.count, bytes: base.byteCount, mapped: true,
            duration: ContinuousClock.now - start)
        return Self(base: base, report: report, snapshotStored: false)
    }
}

/// A value that arrives once, for any number of waiters.
package final class Promise<Value: Sendable>: Sendable {
    private struct State {
        package var result: Result<Value, any Error>?
        package var waiters: [CheckedContinuation<Value, any Error>] = []
    }

    private let state = Locked(State())

    package var current: Result<Value, any Error>? { state.withLock { $0.result } }

    package func fulfil(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    package func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
