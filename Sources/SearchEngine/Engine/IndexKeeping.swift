import BookCatalog
import Dispatch

// Where a host's index stands, and how it moves: prepared (loaded or built) on a thread of its own,
// installed, caught up on the host's actor or read away from it, distrusted and rebuilt. Every
// change of state goes through `transition`, and `IndexLifecycle` says which are allowed.

extension SearchEngineHost {
    /// Drops the index in use and rebuilds one from the books table alone (no stored snapshot).
    package func distrustIndex() {
        lifecycle.preparation?.cancel()
        transition(
            .distrusted(
                rebuild: IndexPreparation.start(
                    searchEngine.opener, scope: searchEngine.scope, useSnapshot: false,
                    beforeBuild: searchEngine.beforeIndexBuild, keepsBroadAnswers: searchEngine.keepsBroadAnswers)))
    }

    /// The preparation under way, if any: a search answered by an index while it builds holds it back.
    package var preparation: IndexPreparation? { lifecycle.preparation }

    /// Moves the lifecycle on. The engine fires only events its own state allows, so a refusal
    /// is a mistake in this file: it stops a debug build, and a release build keeps the
    /// lifecycle as it was.
    package func transition(_ event: IndexLifecycle.Event) {
        do { searchEngine.lifecycle = try searchEngine.lifecycle.after(event) } catch {
            assertionFailure(error.description)
        }
    }

    /// Replays the changes up to `sequence` into `index`; false when there are too many for its
    /// overlay (a replacement is then prepared, and searches go without an index until it is
    /// ready). Starts building a replacement in the background once the overlay is half full.
    package func catchUp(_ index: SearchIndex, to sequence: Int) throws -> Bool {
        guard try index.catchUp(from: searchEngine.source, sequence: sequence) else {
            if lifecycle.preparation == nil { startPreparation() }
            return false
        }
        caughtUp(index)
        return true
    }

    /// A bridge, or an index whose overlay is half full, asks for its replacement.
    package func caughtUp(_ index: SearchIndex) {
        if (index.isBridge || index.overlayCount * SearchTuning.overlayShareBeforeReplacing > index.overlayLimit)
            && lifecycle.preparation == nil
        {
            startPreparation()
        }
    }

    /// Whether `index` may answer behind the catalog (`SearchStrategy.indexBehind`): it is the
    /// installed one, not a bridge, and an index of this engine has kept up (`SearchEngine.hasKeptUp`).
    package func mayAnswerBehind(_ index: SearchIndex?) -> Bool {
        guard let index, !index.isBridge else { return false }
        return searchEngine.hasKeptUp
    }

    /// Whether a search answers from `index` as it stands (`indexBehind`), in the current read:
    /// it may (`mayAnswerBehind`), and it is behind by more than a search catches up with in its
    /// own read: outgrown, or more changes than `SearchTuning.backgroundCatchUpRows`.
    package func answersBehind(_ index: SearchIndex?) throws -> Bool {
        guard let index, mayAnswerBehind(index) else { return false }
        return try index.isOutgrown || hasManyChanges(since: index.syncedSequence)
    }

    /// Whether searches answered behind the catalog (`indexBehind`) would now be answered caught
    /// up: the index in use (a finished replacement installed first) is behind by no more than a
    /// search catches up with in its own read. Says so once: the host tells its user that the
    /// books shown may have changed, and the searches are asked again.
    package func caughtUpAfterAnsweringBehind() async throws -> Bool {
        guard searchEngine.answeredBehind, let index = await indexIfReady() else { return false }
        guard try !index.isOutgrown && !mappingSourceFailures({ try hasManyChanges(since: index.syncedSequence) })
        else { return false }
        searchEngine.answeredBehind = false
        return true
    }

    /// The catalog's latest `change_seq`, as of the current read transaction.
    package func latestChange() throws -> Int {
        try searchEngine.source.latestChange()
    }

    package func hasManyChanges(since sequence: Int) throws -> Bool {
        let limit = SearchTuning.backgroundCatchUpRows + 1
        return try searchEngine.source.changeCountAtLeast(since: sequence, upTo: limit) == limit
    }

    /// Reads the changes `index` must catch up with on a connection of its own, away from this
    /// actor, then replays them here in a moment (`SearchIndex.Changes`): a stale stored index
    /// bridging a rebuild may have hundreds of thousands (seconds to read; `keys --count 10000000
    /// --cold`), and the
    /// keys typed meanwhile get their pages from the title order. Only this actor ever changes
    /// the index; changes read before another catch-up replayed are dropped (`apply`).
    package func startCatchUp(_ index: SearchIndex) {
        let (opener, hook) = (searchEngine.opener, searchEngine.beforeCatchUp)
        let (base, since, room) = (index.base, index.syncedSequence, index.overlayRoom)
        // A thread of its own: the read blocks it for as long as it takes.
        let read = { @Sendable () throws -> SearchIndex.Changes? in
            hook?()
            let source = try opener.openSource()
            return try source.inOneRead {
                try SearchIndex.changes(
                    base: base, since: since, room: room, from: source, sequence: try source.latestChange())
            }
        }
        let task = Task {
            defer { transition(.catchUpFinished) }
            let result = await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Result { try read() })
                }
            }
            guard lifecycle.index === index else { return }  // replaced or distrusted meanwhile
            switch result {
            case let .success(changes?):
                if index.apply(changes) { caughtUp(index) }
            case .success(nil):
                index.outgrow(since: since)
                if lifecycle.preparation == nil { startPreparation() }
            case .failure(is SearchIndexDamage):
                distrustIndex()
            case .failure:
                break  // the next search catches up itself, and reports what fails
            }
        }
        // The task runs on this actor, so it cannot finish before this.
        transition(.catchUpStarted(task))
    }

    /// Schedules a catch-up for once the current call is done, unless one is scheduled or running.
    package func catchUpSoon() {
        guard case .idle = lifecycle.catchUp else { return }
        transition(.catchUpScheduled)
        Task { await self.catchUpNow() }
    }

    /// Catches the index up with the catalog in the background (`startCatchUp`): the index in
    /// use, or the one a stored snapshot gives (a stale one bridging a rebuild is caught up too).
    package func catchUpNow() async {
        let index = await indexIfReady()
        // A search may have started one meanwhile.
        guard case .scheduled = lifecycle.catchUp else { return }
        guard let index, !index.isOutgrown else {
            // An outgrown index is not read for a catch-up again: its replacement catches up.
            if index != nil && lifecycle.preparation == nil { startPreparation() }
            transition(.scheduledCatchUpDropped)
            return
        }
        startCatchUp(index)
    }

    /// The index to search with, without waiting for a build: a finished preparation is
    /// settled first. With no index yet, waits only for the stored snapshot to be tried.
    package func indexIfReady() async -> SearchIndex? {
        if lifecycle.index == nil, let preparation = lifecycle.preparation { await preparation.attemptedLoad() }
        settleFinishedPreparation()
        if case let .preparing(preparation) = lifecycle.stage, let bridge = preparation.bridge {
            transition(.bridgeFound(bridge))
        }
        return lifecycle.index
    }

    /// The index installed from a finished preparation (not a bridge), waiting for the one under
    /// way, or for a new one when none is.
    package func installedIndex() async throws -> InstalledIndex {
        while true {
            if lifecycle.installed != nil { settleFinishedPreparation() }
            if let installed = lifecycle.installed { return installed }
            let current = lifecycle.preparation ?? startPreparation()
            do {
                let prepared = try await current.value()
                // Another call may have settled it meanwhile, or a distrust replaced it.
                if lifecycle.preparation === current { transition(.prepared(prepared, by: current)) }
            } catch {
                if lifecycle.preparation === current { transition(.preparationFailed(current)) }
                throw failure(preparing: error)
            }
        }
    }

    /// Installs the preparation under way if it has finished with an index newer than the one in
    /// use, or forgets it: a failed one is retried by the next wait for an index.
    package func settleFinishedPreparation() {
        guard let preparation = lifecycle.preparation, let finished = preparation.finished else { return }
        switch finished {
        case let .success(prepared):
            transition(.prepared(prepared, by: preparation))
        case let .failure(error):
            if isDamage(error) { searchEngine.foundDamage = true }
            transition(.preparationFailed(preparation))
        }
    }

    @discardableResult
    package func startPreparation() -> IndexPreparation {
        let preparation = IndexPreparation.start(
            searchEngine.opener, scope: searchEngine.scope,
            beforeBuild: searchEngine.beforeIndexBuild, keepsBroadAnswers: searchEngine.keepsBroadAnswers)
        transition(.started(preparation))
        return preparation
    }

    /// Gives up the index being prepared (if any), for a program that has searched for the last
    /// time: a bulk edit about to change the books it found would otherwise go on loading,
    /// catching up or building an index on its cores while it saves, only to throw it away.
    package func abandonIndexPreparation() {
        lifecycle.preparation?.cancel()
    }

    /// Waits until the index being built (if any) is built and stored: for a program about to
    /// exit after searches answered without it, so that the next program finds a current index.
    package func finishPreparingIndex() async {
        guard let preparation = lifecycle.preparation else { return }
        do { _ = try await preparation.value() } catch  where isDamage(error) { searchEngine.foundDamage = true } catch
        {}
    }

    /// Why the catalog cannot be trusted, once a read found it damaged: for a program that
    /// answered before the index build that found it had finished (the answer was then partial).
    package var damageFound: String? { searchEngine.foundDamage ? damageExplanation() : nil }

    /// How the search index in use was obtained, waiting until there is one, and whether this
    /// remote built it and stored it in the catalog for the next connection.
    package func installedIndexReport() async throws -> (report: SearchIndexReport, snapshotStored: Bool) {
        let prepared = try await installedIndex().prepared
        return (prepared.report, prepared.snapshotStored)
    }
}
