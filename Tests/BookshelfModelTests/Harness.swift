import BookCatalog
import CatalogSimulation
import Synchronization
@testable import BookshelfModel

func book(_ id: Int, _ title: String, revision: Int = 1, author: String = "") -> BookRecord {
    BookRecord(id: id, title: title, revision: revision, author: author)
}

/// A model wired to scripted remotes, with helpers that release one parked call and wait
/// until the model has processed its answer. Nothing here waits on a clock.
@MainActor
final class Harness {
    let connector: SteppedConnector
    let model: BookshelfModel
    /// The model's clock: it moves a millisecond per reading, and `advance` moves it on.
    let clock = TickClock()
    private(set) var traces: [RequestTrace] = []
    private(set) var changeCount = 0
    /// Calls of each kind already claimed by `nextCall`, per remote.
    private var claimed: [ObjectIdentifier: [SteppedRemote.CallKind: Int]] = [:]
    private var ticks = 0

    init(
        books: [String: [BookRecord]] = ["alice": [], "bob": []], passwords: [String: String] = [:],
        account: String = "alice", pageSize: Int = 50, accounts: [String: Account] = [:],
        keeper: (any DraftKeeping)? = nil, keepsBatches: Bool = false, catalog: RecentCatalog? = nil,
        catalogs: (any CatalogSwitching)? = nil
    ) {
        connector = SteppedConnector(books: books, passwords: passwords)
        let counter = clock
        let opening: any CatalogConnector =
            keepsBatches
            ? BatchKeepingConnector(base: connector)
            : accounts.isEmpty
                ? connector as any CatalogConnector : AccountTellingConnector(base: connector, accounts: accounts)
        model = BookshelfModel(
            connector: opening, account: account, pageSize: pageSize, loadMoreThreshold: 1,
            clock: StoreClock { counter.tick() }, keeper: keeper, catalog: catalog, catalogs: catalogs)
        model.onTrace = { [unowned self] in traces.append($0) }
        model.onChange = { [unowned self] in changeCount += 1 }
    }

    var remote: SteppedRemote { connector.latest }
    var state: BookshelfState { model.state }
    var search: SearchState { model.state.search }
    var editor: EditorState? { model.state.editor }

    /// Connects to the starting account and answers its first search with `reply`.
    func start(answering reply: SteppedRemote.Reply = .deliver) async {
        let connect = model.start()!
        await model.finished(request: connect)
        await model.accountsListed()
        await answer(.search, with: reply)
    }

    /// Waits for the next call of `kind` on `remote` (the current one by default).
    func nextCall(_ kind: SteppedRemote.CallKind, on remote: SteppedRemote? = nil) async -> (
        number: Int, call: SteppedRemote.Call
    ) {
        let remote = remote ?? self.remote
        let key = ObjectIdentifier(remote)
        let index = claimed[key, default: [:]][kind, default: 0] + 1
        claimed[key, default: [:]][kind] = index
        return await remote.call(index, of: kind)
    }

    /// Releases call `number` and waits until the model processed request `request`.
    func release(_ number: Int, on remote: SteppedRemote? = nil, _ reply: SteppedRemote.Reply, request: Int) async {
        await (remote ?? self.remote).release(number, reply)
        await model.finished(request: request)
    }

    /// Waits for the next call of `kind`, releases it and waits for the newest pending
    /// request of the matching model kind.
    func answer(_ kind: SteppedRemote.CallKind, with reply: SteppedRemote.Reply) async {
        let request = model.pendingRequests.last { $0.kind.matches(kind) }!.request
        let call = await nextCall(kind)
        await release(call.number, reply, request: request)
    }

    /// Answers, as the store would, the search a committed save starts (the saved book may
    /// have left or joined the results). Requests in `except` are the test's own.
    func answerRefreshAfterSave(_ save: Int, except: Set<Int> = [], on remote: SteppedRemote? = nil) async {
        guard
            let refresh = model.pendingRequests.last(where: {
                $0.kind == .refresh && $0.request > save && !except.contains($0.request)
            })
        else { return }
        let call = await nextCall(.search, on: remote)
        await release(call.number, on: remote, .deliver, request: refresh.request)
    }

    /// Switches account (confirming a dirty draft if asked) and waits for the new session.
    func switchAccount(to name: String, password: String? = nil) async {
        var connect = model.requestAccountSwitch(to: name)
        if connect == nil, model.state.confirmation != nil { connect = model.confirm() }
        if connect == nil, let password { connect = model.submitPassword(password) }
        await model.finished(request: connect!)
    }

    /// Fails every parked call on every remote and waits until the model processed them all.
    func drain() async {
        for remote in connector.remotes { await remote.close() }
        for request in model.runningRequests { await model.finished(request: request) }
    }
}

extension RequestKind {
    func matches(_ call: SteppedRemote.CallKind) -> Bool {
        switch call {
        case .search: self == .search || self == .refresh || self == .page || self == .count || self == .markMatches
        case .count: self == .catalogCount
        case .load: self == .load || self == .reconcile || self == .bulkRead
        case .save: self == .save || self == .bulkEdit
        case .history: self == .history
        case .check: self == .changeCheck
        case .reauthenticate: self == .reconnect
        }
    }
}

/// A clock that moves one millisecond per reading, so store times are deterministic.
final class TickClock: Sendable {
    private let count = Mutex(0)
    func tick() -> Duration {
        .milliseconds(
            count.withLock {
                $0 += 1; return $0
            })
    }
    /// Time passes without a reading (the user is idle).
    func advance(milliseconds: Int) { count.withLock { $0 += milliseconds } }
}

/// The model's question type; Swift Testing has a `Confirmation` of its own.
typealias ModelConfirmation = Confirmation
