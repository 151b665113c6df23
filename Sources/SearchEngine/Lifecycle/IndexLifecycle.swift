/// Where one remote's search index stands: whether there is one to search with, which
/// preparation (`IndexPreparation`) is loading or building one, and whether a catch-up runs
/// away from the actor. The remote holds one value of it, and every change goes through
/// `after(_:)`, which gives the next value or refuses an event that cannot happen in the
/// current one. Nothing here starts a thread or a task: the remote does that, and reports it
/// as an event.
///
/// ```
///                started                  bridgeFound
/// unprepared ────────────▶ preparing ──────────────────▶ bridging ◀─┐ preparationFailed,
///     ▲                     │     │                       │  │      │ then started
///     │ preparationFailed   │     │ prepared     prepared │  └──────┘ (its rebuild)
///     ├─────────────────────┘     ▼                       │
///     │                         ready ◀───────────────────┘
///     │                         │  ▲ │ started, prepared, preparationFailed
///     │                         │  └─┘ (its replacement: installed only if newer)
///     │                         ▼ distrusted (from any stage)
///     └─ preparationFailed ── distrusted ── prepared ──▶ ready
///
/// catch-up, beside the stage:
///     idle ── catchUpScheduled ──▶ scheduled ── scheduledCatchUpDropped ──▶ idle
///     idle, scheduled ── catchUpStarted (an index in use) ──▶ running ── catchUpFinished ──▶ idle
/// ```
///
/// A catch-up (`CatchUp`) is a second part rather than a stage of its own: a stale stored
/// index catches up while its rebuild runs, so a catch-up runs in `bridging` as in `ready`,
/// and goes on across a distrust (its result is then dropped).
package struct IndexLifecycle {
    package enum Stage {
        /// No index and no preparation: the last one failed. Only a wait for an installed
        /// index (`SQLiteBookRemote.searchIndexReport`) starts another; searches go without.
        case unprepared
        /// No index to search with yet: `preparation` tries the stored file, and builds one
        /// unless the file is current.
        case preparing(IndexPreparation)
        /// A stored index too far behind to keep, searched (with a larger overlay) while
        /// `rebuild` builds its replacement; nil when that build failed and none was asked
        /// for since.
        case bridging(SearchIndex, rebuild: IndexPreparation?)
        /// An index from a finished preparation, and the replacement under way, if any (its
        /// overlay is half full, or too full to catch up).
        case ready(InstalledIndex, replacement: IndexPreparation?)
        /// The index in use failed a check: dropped, and `rebuild` builds one from the books
        /// table alone, without the stored file.
        case distrusted(rebuild: IndexPreparation)
    }

    /// A catch-up scheduled after the current call (`SQLiteBookRemote.catchUpSoon`), or
    /// reading the changed rows away from the actor (`SQLiteBookRemote.startCatchUp`).
    package enum CatchUp {
        case idle
        case scheduled
        case running(Task<Void, Never>)
    }

    /// What happens to the index, as the remote sees it.
    package enum Event {
        /// The remote started `preparation` (the first one, a replacement, or a retry).
        case started(IndexPreparation)
        /// The preparation under way tried the stored file and found it too far behind to
        /// keep, but near enough to search with until the build finishes.
        case bridgeFound(SearchIndexBase)
        /// `preparation` finished with `prepared`.
        case prepared(IndexPreparation.Prepared, by: IndexPreparation)
        /// `preparation` failed.
        case preparationFailed(IndexPreparation)
        /// The index in use failed a check (or a test distrusts the stored file before one is
        /// in use); `rebuild` was started without the stored file.
        case distrusted(rebuild: IndexPreparation)
        case catchUpScheduled
        /// The scheduled catch-up found nothing to start (no index, or one running already).
        case scheduledCatchUpDropped
        case catchUpStarted(Task<Void, Never>)
        case catchUpFinished
    }

    /// An event that cannot happen in the lifecycle's current value, such as a preparation
    /// finishing that is not the one under way.
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String

        package init(_ event: Event, in lifecycle: IndexLifecycle) {
            description = "\(event) cannot happen in \(lifecycle.stage) (catch-up \(lifecycle.catchUp))"
        }
    }

    package private(set) var stage: Stage
    package private(set) var catchUp: CatchUp = .idle

    package init(preparing preparation: IndexPreparation) { stage = .preparing(preparation) }

    /// The index to search with: the installed one, or a stale one bridging its rebuild.
    package var index: SearchIndex? {
        switch stage {
        case .unprepared, .preparing, .distrusted: nil
        case let .bridging(index, _): index
        case let .ready(installed, _): installed.index
        }
    }

    /// The preparation under way, if any.
    package var preparation: IndexPreparation? {
        switch stage {
        case .unprepared: nil
        case let .preparing(preparation), let .distrusted(preparation): preparation
        case let .bridging(_, preparation), let .ready(_, preparation): preparation
        }
    }

    /// The index from a finished preparation, when there is one (not a bridge).
    package var installed: InstalledIndex? {
        if case let .ready(installed, _) = stage { installed } else { nil }
    }

    /// The catch-up reading away from the actor, until it is applied.
    package var runningCatchUp: Task<Void, Never>? {
        if case let .running(task) = catchUp { task } else { nil }
    }

    /// The lifecycle after `event`; refused when the event cannot happen now.
    package func after(_ event: Event) throws(Refusal) -> IndexLifecycle {
        var next = self
        switch event {
        case .catchUpScheduled, .scheduledCatchUpDropped, .catchUpStarted, .catchUpFinished:
            next.catchUp = try catchUpAfter(event)
        default:
            next.stage = try stageAfter(event)
        }
        return next
    }

    private func stageAfter(_ event: Event) throws(Refusal) -> Stage {
        switch (stage, event) {
        case let (.unprepared, .started(preparation)):
            return .preparing(preparation)
        case let (.bridging(index, nil), .started(preparation)):
            return .bridging(index, rebuild: preparation)
        case let (.ready(installed, nil), .started(preparation)):
            return .ready(installed, replacement: preparation)
        case let (.preparing(preparation), .bridgeFound(base)):
            return .bridging(SearchIndex(base: base, isBridge: true), rebuild: preparation)
        case let (_, .prepared(prepared, finished)) where finished === self.preparation:
            // A replacement is kept only if it is newer than the index it would replace; a
            // bridge, or no index at all, gives way to any.
            if let installed, prepared.base.sequence <= installed.index.base.sequence {
                return .ready(installed, replacement: nil)
            }
            return .ready(InstalledIndex(prepared), replacement: nil)
        case let (.preparing, .preparationFailed(failed)) where failed === self.preparation,
            let (.distrusted, .preparationFailed(failed)) where failed === self.preparation:
            return .unprepared
        case let (.bridging(index, _), .preparationFailed(failed)) where failed === self.preparation:
            return .bridging(index, rebuild: nil)
        case let (.ready(installed, _), .preparationFailed(failed)) where failed === self.preparation:
            return .ready(installed, replacement: nil)
        case let (_, .distrusted(rebuild)):
            // From any stage: the remote cancels whatever preparation was under way (it would
            // give the distrusted file again) and waits for this rebuild, from the books alone.
            return .distrusted(rebuild: rebuild)
        default:
            throw Refusal(event, in: self)
        }
    }

    private func catchUpAfter(_ event: Event) throws(Refusal) -> CatchUp {
        switch (catchUp, event) {
        case (.idle, .catchUpScheduled):
            return .scheduled
        case (.scheduled, .scheduledCatchUpDropped):
            return .idle
        case let (.idle, .catchUpStarted(task)) where index != nil,
            let (.scheduled, .catchUpStarted(task)) where index != nil:
            return .running(task)
        case (.running, .catchUpFinished):
            return .idle
        default:
            throw Refusal(event, in: self)
        }
    }
}

/// An index installed from a finished preparation, and where it came from.
package struct InstalledIndex {
    package let index: SearchIndex
    package let prepared: IndexPreparation.Prepared

    package init(_ prepared: IndexPreparation.Prepared) {
        index = SearchIndex(base: prepared.base)
        self.prepared = prepared
    }
}
