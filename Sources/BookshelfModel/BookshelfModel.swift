import BookCatalog

/// The app's brain, shaped like Bubble Tea: the UI sends intents (methods), every store call
/// runs as an effect tagged with a `PublicationIdentity`, and the screen is drawn from
/// `state`, a plain value. `onChange` fires whenever `state` or `log` may have changed.
///
/// The publication rule, for every effect: the identity is captured before the first await
/// and checked after every await, before each publication (rows, errors, busy, editor
/// outcomes). Busy indicators are derived from which request owns a slot and whether that
/// request is still in flight, never from a shared flag. Cancelling superseded work is an
/// optimisation only; the check is the guarantee.
@MainActor
public final class BookshelfModel {
    /// Called after anything visible changed (state or the request log). Schedule a redraw.
    public var onChange: (() -> Void)?
    /// Called with each finished request's trace, e.g. to append it to a trace file.
    public var onTrace: ((RequestTrace) -> Void)?
    /// What happened to recent requests: identifiers, timings and fates only.
    public private(set) var log: RequestLog

    /// Rows asked for per page.
    public let pageSize: Int
    /// Moving the selection within this many rows of the end loads the next page.
    public let loadMoreThreshold: Int

    let connector: any CatalogConnector
    let clock: StoreClock
    let startingAccount: String

    // MARK: Publication bookkeeping

    var session = 0
    var lastRequest = 0
    /// The newest request of each slot in the current session: the only one that may publish.
    var owners: [PublicationSlot: PublicationIdentity] = [:]
    /// Every request that has not answered yet, of any session.
    var inFlight: [PublicationIdentity: RequestKind] = [:]
    /// Search requests whose wait shows the busy indicator (a refresh does not, unless it
    /// took over from a search the user was already waiting for).
    var showsBusy: Set<PublicationIdentity> = []
    /// The task running each request, so tests and the demo can await its processing.
    var running: [Int: Task<Void, Never>] = [:]
    /// The task of the newest search and page load, cancelled when superseded (an optimisation).
    var cancellable: [PublicationSlot: Task<Void, Never>] = [:]

    // MARK: Session

    var repository: BookRepository?
    var accountName: String?
    var accountNames: [String] = []
    var connectingAccount: String?
    var connectionError: String?
    /// The newest revision of each book this session has seen: rows and editor bases never go below it.
    var newestSeen: [Int: BookRecord] = [:]

    // MARK: Screens

    var results = SearchResults()
    var editor: EditorSession?
    var confirmation: Confirmation?
    var passwordPrompt: PasswordPrompt?
    var shouldQuit = false

    public init(
        connector: any CatalogConnector,
        account: String,
        pageSize: Int = 50,
        loadMoreThreshold: Int = 5,
        logCapacity: Int = 200,
        clock: StoreClock = .continuous()
    ) {
        self.connector = connector
        self.startingAccount = account
        self.pageSize = max(1, pageSize)
        self.loadMoreThreshold = max(0, loadMoreThreshold)
        self.log = RequestLog(capacity: logCapacity)
        self.clock = clock
    }

    /// Everything the UI draws.
    public var state: BookshelfState {
        BookshelfState(
            session: session,
            account: accountName,
            accounts: accountNames.map {
                AccountChoice(name: $0, needsPassword: connector.requiresPassword(for: $0), isCurrent: $0 == accountName)
            },
            connection: ConnectionState(
                connectingTo: isPending(.connect) ? connectingAccount : nil,
                error: connectionError),
            search: searchState,
            editor: editorState,
            confirmation: confirmation,
            passwordPrompt: passwordPrompt,
            shouldQuit: shouldQuit)
    }

    /// Waits until the effect that request `number` belongs to has finished processing (its
    /// publication is done). Returns at once if it already has. For tests and the demo; the
    /// UI never needs it.
    public func finished(request number: Int) async {
        await running[number]?.value
    }

    /// Request numbers whose effects are still running (any session).
    public var runningRequests: [Int] { running.keys.filter { $0 > 0 }.sorted() }

    /// Requests that have not answered yet, oldest first (any session): for a request panel.
    public var pendingRequests: [PendingRequest] {
        inFlight.map { PendingRequest(request: $0.key.request, session: $0.key.session, kind: $0.value) }
            .sorted { $0.request < $1.request }
    }

    // MARK: Requests

    func begin(_ slot: PublicationSlot, _ kind: RequestKind) -> RequestTicket {
        lastRequest += 1
        let identity = PublicationIdentity(session: session, request: lastRequest)
        owners[slot] = identity
        inFlight[identity] = kind
        return RequestTicket(identity: identity, slot: slot, kind: kind, started: clock.now())
    }

    /// Starts the next request of an effect that is still running (a save's conflict fetch
    /// or reconciliation). Call it only right after `conclude` allowed publication.
    func chain(from previous: RequestTicket, _ kind: RequestKind) -> RequestTicket {
        let next = begin(previous.slot, kind)
        running[next.identity.request] = running[previous.identity.request]
        return next
    }

    /// Runs `body` as the effect of `ticket`; a search or page effect replaces (and cancels)
    /// the previous one of its slot.
    func spawn(_ ticket: RequestTicket, _ body: @escaping @MainActor @Sendable () async -> Void) {
        let number = ticket.identity.request
        let task = Task { @MainActor [weak self] in
            await body()
            self?.effectEnded(number)
        }
        running[number] = task
        if ticket.slot == .search || ticket.slot == .page {
            cancellable[ticket.slot]?.cancel()
            cancellable[ticket.slot] = task
        }
    }

    private func effectEnded(_ number: Int) {
        let task = running[number]
        running = running.filter { $0.value != task }
        changed()
    }

    /// The commit boundary: ends `ticket`'s wait, records its fate and says whether it may
    /// publish, which it may only if it is still the newest request of its slot in the
    /// current session. Call it right after the await, before touching any state.
    func conclude(_ ticket: RequestTicket, error: (any Error)? = nil, record: Bool = true) -> Bool {
        inFlight[ticket.identity] = nil
        showsBusy.remove(ticket.identity)
        let cancelled = error is CancellationError
        let fate: RequestFate =
            if ticket.identity.session != session { .droppedOldSession }
            else if owners[ticket.slot] != ticket.identity { cancelled ? .cancelled : .droppedStale }
            else if cancelled { .cancelled }
            else if let error { .failed(FailureKind(error)) }
            else { .published }
        if record {
            let trace = RequestTrace(
                request: ticket.identity.request, session: ticket.identity.session, kind: ticket.kind,
                started: ticket.started, storeTime: clock.now() - ticket.started, fate: fate)
            log.record(trace)
            onTrace?(trace)
        }
        return fate.wasShown
    }

    func isPending(_ slot: PublicationSlot) -> Bool {
        guard let owner = owners[slot] else { return false }
        return inFlight[owner] != nil
    }

    func pendingKind(_ slot: PublicationSlot) -> RequestKind? {
        owners[slot].flatMap { inFlight[$0] }
    }

    func isCurrentSession(_ ticket: RequestTicket) -> Bool { ticket.identity.session == session }

    func changed() { onChange?() }

    // MARK: Freshness floor

    /// The newer of `record` and the newest revision this session has seen of that book,
    /// remembering `record` if it is the newer.
    func floor(_ record: BookRecord) -> BookRecord {
        if let seen = newestSeen[record.id], seen.revision >= record.revision { return seen }
        newestSeen[record.id] = record
        return record
    }

    /// Notes a record of this session and lifts any row showing an older revision of it.
    @discardableResult
    func observe(_ record: BookRecord) -> BookRecord {
        let newest = floor(record)
        results.lift(to: newest)
        return newest
    }

    static func message(for error: any Error) -> String {
        if let failure = error as? BookFailure { return failure.description }
        return String(describing: error)
    }
}
