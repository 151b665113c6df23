import BookCatalog
import BookshelfModel
import CatalogSimulation

/// What a pane shows, reduced to what the oracle and the transcript compare.
struct PaneView: Equatable {
    struct Editor: Equatable {
        let bookID: Int
        var baseRevision: Int?
        var baseTitle: String? = nil
        var draft: String
        var conflictShown: Bool
        var theirs: BookRecord?
        var status: String?
    }

    var account: String?
    var query: String
    var rows: [BookRecord]
    var error: String?
    var busy: Bool
    var editor: Editor?

    var rowIDs: [Int] { rows.map(\.id) }
}

/// One side of the demo: a model, its own copy of the catalog and its own latency script.
@MainActor
protocol DemoPane: AnyObject {
    var name: String { get }
    var catalog: MemoryCatalog { get }
    var script: LatencyScript { get }
    var view: PaneView { get }

    /// Does `action` and, on virtual time, returns once the requests it started have reached
    /// the store (so time can move on without reordering anything).
    func perform(_ action: DemoAction) async

    /// A marker taken just before an answer is released; `settle(since:)` returns once the
    /// model has fully dealt with that answer (published, dropped, or sent a follow-up).
    func progressMarker() -> PaneProgress
    func settle(since marker: PaneProgress) async
    /// What became of the call whose answer was released after `marker`, in the model's words.
    func fate(since marker: PaneProgress) -> String?

    /// True when every request the model is waiting on is a call pending at the store, and
    /// every answered call has been fully dealt with: the moment to judge what it shows.
    var isSettled: Bool { get }
}

extension DemoPane {
    var pendingCalls: Int { script.calls.filter { $0.outcome == .pending }.count }
}

struct PaneProgress {
    let finished: Int
    let arrivals: Int
}

/// Spins the main actor until `condition` holds. Used only in script mode, where every
/// event is already decided by virtual time; this just lets the model's effect (hopping
/// between the repository actor and the main actor) run to its next resting point.
@MainActor
func waitUntil(_ what: @autoclosure () -> String, _ condition: () -> Bool) async {
    var turns = 0
    while !condition() {
        turns += 1
        if turns > 20_000_000 { fatalError("the demo did not settle while waiting for \(what())") }
        await Task.yield()
    }
}

/// On wall-clock time: lets the effects an action started reach the store (a few hops
/// between actors), so the judge knows which call each one is. Gives up after a while
/// rather than hang the demo if an action started fewer calls than expected.
@MainActor
func waitBriefly(_ condition: () -> Bool) async {
    for _ in 0..<100_000 where !condition() { await Task.yield() }
}

// MARK: - The real model

@MainActor
final class RealPane: DemoPane {
    let name = "real"
    let catalog: MemoryCatalog
    let script: LatencyScript
    let model: BookshelfModel
    private let clock: VirtualClock?
    private(set) var traces: [RequestTrace] = []

    init(
        world: DemoWorld, schedule: LatencySchedule, clock: VirtualClock?, pageSize: Int, readPause: Duration = .zero
    ) {
        catalog = world.makeCatalog()
        self.clock = clock
        script = LatencyScript(schedule: schedule, sleeper: clock ?? WallClockSleeper(), readPause: readPause)
        let storeClock = clock.map { clock in StoreClock { clock.now } } ?? .continuous()
        var connector = ScriptedConnector(catalog: catalog, script: script)
        let handle = PaneHandle()
        if clock != nil {
            // Requests are numbered as they reach the store, so a connection waits until every
            // request the model started before it has arrived: the new session's first search
            // then always follows, say, the old session's refresh after a save.
            connector.beforeConnecting = { @MainActor in await handle.pane?.startedRequestsArrived() }
        }
        model = BookshelfModel(
            connector: connector, account: DemoWorld.firstAccount.name, pageSize: pageSize, clock: storeClock)
        handle.pane = self
        model.onTrace = { [weak self] trace in self?.noteTrace(trace) }
    }

    /// Lets a connector's closure reach the pane that owns it (made before the pane is).
    @MainActor private final class PaneHandle {
        weak var pane: RealPane?
    }

    private func startedRequestsArrived() async {
        await waitUntil("the requests started before a connection to reach the store") { isSettled }
    }

    /// What the model did with each scripted call's answer, by call number, in its own words
    /// (published, dropped-stale…): the interactive panel's fates, as `--script` prints them.
    private(set) var fateOfCall: [Int: String] = [:]

    /// A trace is the model's account of one answer it took; it belongs to the oldest answered
    /// call of the same kind that has no fate yet (the model takes answers as they arrive).
    private func noteTrace(_ trace: RequestTrace) {
        traces.append(trace)
        let callKind: (ScriptedCall.Kind) -> Bool
        switch trace.kind {
        case .search, .page, .refresh: callKind = { $0 == .search }
        case .load: callKind = { if case .load = $0 { true } else { false } }
        case .save: callKind = { if case .save = $0 { true } else { false } }
        default: return
        }
        if let call = script.calls.first(where: {
            $0.outcome != .pending && fateOfCall[$0.number] == nil && callKind($0.kind)
        }) {
            fateOfCall[call.number] = trace.fate.description
        }
    }

    var view: PaneView {
        let state = model.state
        return PaneView(
            account: state.account, query: state.search.query, rows: state.search.rows,
            error: state.search.error, busy: state.search.isBusy,
            editor: state.editor.map { editor in
                PaneView.Editor(
                    bookID: editor.bookID, baseRevision: editor.base?.revision, baseTitle: editor.base?.title,
                    draft: editor.draft.title,
                    conflictShown: editor.conflict != nil, theirs: editor.conflict?.theirs,
                    status: Self.status(of: editor))
            })
    }

    private static func status(of editor: EditorState) -> String? {
        if let activity = editor.activity { return "\(activity)" }
        if let conflict = editor.conflict {
            return conflict.theirs.map { "conflict: theirs is revision \($0.revision)" } ?? "conflict: fetching theirs"
        }
        switch editor.outcome {
        case let .saved(revision)?: return "saved revision \(revision)"
        case let .rejected(failure)?: return "rejected: \(failure)"
        case .notCommitted?: return "not committed"
        case .unresolved?: return "outcome unknown"
        case .noChanges?: return "no changes to save"
        case let .lost(revision, current)?: return "revision \(revision) lost; back at \(current)"
        case nil: return nil
        }
    }

    func perform(_ action: DemoAction) async {
        let arrivals = clock?.arrivalCount ?? 0
        let known = script.calls.count
        var expected = 0
        switch action {
        case .start:
            if let connect = model.start() {
                await connected(connect)
                expected = 1
            }
            await model.accountsListed()
        case let .type(text), let .enterQuery(text):
            expected = model.setQuery(text) == nil ? 0 : 1
        case .openFirst:
            if let first = model.state.search.rows.first { expected = model.open(bookID: first.id) == nil ? 0 : 1 }
        case let .editTitle(title):
            model.setDraft(.title, to: title)
        case .save:
            expected = model.save() == nil ? 0 : 1
        case let .otherWriterSaves(title):
            if let bookID = model.state.editor?.bookID {
                await OtherWriter.save(title: title, bookID: bookID, in: catalog)
            }
        case let .switchAccount(account):
            var connect = model.requestAccountSwitch(to: account)
            if model.state.confirmation != nil { connect = model.confirm() }
            if let connect {
                await connected(connect)
                expected = 1
            }
        case .reloadTheirs:
            model.resolveConflict(.reload)
        }
        await clock?.waitForArrivals(arrivals + expected)
        if clock == nil { await waitBriefly { script.calls.count >= known + expected } }
    }

    /// Waits for a connection (not scripted: it answers at once) to open its session.
    private func connected(_ request: Int) async {
        guard clock != nil else { return }
        await waitUntil("connect request \(request)") {
            traces.contains { $0.request == request } && !model.runningRequests.contains(request)
        }
    }

    func progressMarker() -> PaneProgress {
        PaneProgress(finished: traces.count, arrivals: clock?.arrivalCount ?? 0)
    }

    func settle(since marker: PaneProgress) async {
        await waitUntil("the real model to take an answer") { traces.count > marker.finished }
        let request = traces[marker.finished].request
        await waitUntil("request \(request) to publish or go on") {
            !model.runningRequests.contains(request) || (clock?.arrivalCount ?? 0) > marker.arrivals
        }
        // A switch that waited for a save starts when the save has gone through; connecting
        // to the demo's catalog takes no time, so let it finish before time moves on.
        await waitUntil("a switch that waited for the save to connect") {
            !model.pendingRequests.contains { $0.kind == .connect }
        }
    }

    func fate(since marker: PaneProgress) -> String? {
        traces.count > marker.finished ? traces[marker.finished].fate.description : nil
    }

    /// Requests of these kinds go through the latency script; the others answer at once.
    private static let scriptedKinds: Set<RequestKind> = [.search, .page, .refresh, .load, .save]

    var isSettled: Bool {
        model.pendingRequests.filter { Self.scriptedKinds.contains($0.kind) }.count == pendingCalls
    }
}

// MARK: - The naive model

@MainActor
final class NaivePane: DemoPane {
    let name = "naive"
    let catalog: MemoryCatalog
    let script: LatencyScript
    let model: NaiveModel
    private let clock: VirtualClock?
    private let connector: ScriptedConnector

    init(
        world: DemoWorld, schedule: LatencySchedule, clock: VirtualClock?, pageSize: Int, readPause: Duration = .zero
    ) {
        catalog = world.makeCatalog()
        self.clock = clock
        script = LatencyScript(schedule: schedule, sleeper: clock ?? WallClockSleeper(), readPause: readPause)
        connector = ScriptedConnector(catalog: catalog, script: script)
        model = NaiveModel(pageSize: pageSize)
    }

    var view: PaneView {
        PaneView(
            account: model.account, query: model.query, rows: model.rows, error: model.error, busy: model.busy,
            editor: model.editor.map { editor in
                PaneView.Editor(
                    bookID: editor.bookID, baseRevision: editor.base?.revision, draft: editor.draft,
                    conflictShown: false, theirs: nil, status: editor.status)
            })
    }

    func perform(_ action: DemoAction) async {
        let arrivals = clock?.arrivalCount ?? 0
        let known = script.calls.count
        var expected = 0
        switch action {
        case let .start(account), let .switchAccount(account):
            // Names come from the scene, so a failure here is a bug in the demo itself.
            guard let remote = try? connector.remote(for: account) else { preconditionFailure("no account \(account)") }
            model.switchAccount(to: remote, account: account)
            expected = 1
        case let .type(text), let .enterQuery(text):
            model.setQuery(text)
            expected = 1
        case .openFirst:
            if let first = model.rows.first, model.editor == nil {
                model.open(bookID: first.id)
                expected = 1
            }
        case let .editTitle(title):
            model.setDraft(title)
        case .save:
            if model.editor?.base != nil {
                model.save()
                expected = 1
            }
        case let .otherWriterSaves(title):
            if let bookID = model.editor?.bookID { await OtherWriter.save(title: title, bookID: bookID, in: catalog) }
        case .reloadTheirs:
            break  // it never noticed a conflict, so there is nothing to reload
        }
        await clock?.waitForArrivals(arrivals + expected)
        if clock == nil { await waitBriefly { script.calls.count >= known + expected } }
    }

    func progressMarker() -> PaneProgress {
        PaneProgress(finished: model.finishedEffects, arrivals: clock?.arrivalCount ?? 0)
    }

    func settle(since marker: PaneProgress) async {
        await waitUntil("the naive model to take an answer") {
            model.finishedEffects > marker.finished || (clock?.arrivalCount ?? 0) > marker.arrivals
        }
    }

    func fate(since marker: PaneProgress) -> String? {
        model.finishedEffects > marker.finished ? "applied" : "applied, retried"
    }

    var isSettled: Bool { model.requests.filter { $0.finished == nil }.count == pendingCalls }

    /// The naive model applies every answer; a save that met a conflict was saved again.
    func fate(ofCall call: ScriptedCall) -> String {
        if case .failed(.conflict?, _) = call.outcome { return "applied, retried" }
        return "applied"
    }
}

/// The second person in the conflict scene: saves straight to the catalog, unscripted.
enum OtherWriter {
    static let account = DemoWorld.firstAccount

    static func save(title: String, bookID: Int, in catalog: MemoryCatalog) async {
        let remote = MemoryBookRemote(catalog: catalog, account: account)
        do {
            let current = try await remote.load(id: bookID)
            _ = try await remote.save(SaveRequest(id: bookID, title: title, expectedRevision: current.revision))
        } catch {
            preconditionFailure("the other writer's save failed: \(error)")
        }
    }
}
