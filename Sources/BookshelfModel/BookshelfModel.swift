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
    public internal(set) var log: RequestLog

    /// Rows asked for per page.
    public let pageSize: Int
    /// Moving the selection within this many rows of the end loads the next page.
    public let loadMoreThreshold: Int
    /// Whether the model keeps a count of the account's books (the app's header does; most
    /// tests do not, so that no count waits among their requests).
    public let countsBooks: Bool

    /// The open catalog's connector: another catalog's once the user switches to it.
    var connector: any CatalogConnector
    /// Opens the catalogs the switcher offers (nil: the switcher offers accounts only).
    let catalogs: (any CatalogSwitching)?
    /// How the catalog's revisions read in the messages (a Calibre library's are times).
    var revisions: RevisionStyle { connector.revisionStyle }
    let clock: StoreClock
    let startingAccount: String

    // MARK: Publication bookkeeping

    var session = 0
    /// The last number a user sees (F4, `--trace`) given to a request.
    var lastRequest = 0
    /// The last number given to a background request, counting down from zero (unseen).
    var lastBackgroundRequest = 0
    /// How many requests have begun, background ones included (`RequestTicket.order`).
    var lastOrder = 0
    /// The newest request of each slot in the current session: the only one that may publish.
    var owners: [PublicationSlot: PublicationIdentity] = [:]
    /// Every request that has not answered yet, of any session.
    var inFlight: [PublicationIdentity: RequestTicket] = [:]
    /// Search requests whose wait shows the busy indicator (a refresh does not, unless it
    /// took over from a search the user was already waiting for).
    var showsBusy: Set<PublicationIdentity> = []
    /// The task running each request, so tests and the demo can await its processing.
    var running: [Int: Task<Void, Never>] = [:]
    /// The task of the newest search and page load, cancelled when superseded (an optimisation).
    var cancellable: [PublicationSlot: Task<Void, Never>] = [:]

    // MARK: The session generation and the freshness floor

    /// The current session's repository: every part's store calls go through it, and it keeps
    /// the session's freshness floor (`newestSeen`).
    var repository: BookRepository?
    /// Whether the store answers, as the newest request of this session that could tell says
    /// (the runner learns it from every answer).
    var reachability = StoreReachability()
    /// The newest revision of each book this session has seen: rows and editor bases never go
    /// below it. The repository keeps it, from every answer it took in; the model only reads it.
    var newestSeen: SeenRevisions? { repository?.newestSeen }
    /// The status line: a fact worth a line until the user's next action, said by any part.
    var message: String?

    // MARK: The parts (each in files of its own; ARCHITECTURE.md, BookshelfModel)

    var searchPart = SearchPart()
    var sessionPart = SessionPart()
    var editorPart = EditorPart()
    var historyPart = HistoryPart()
    /// Where the open draft is kept between runs (nil: nowhere): the editor decides what. Each
    /// catalog keeps its own, so a switch to another catalog brings its keeper.
    var keeper: (any DraftKeeping)?
    /// The bulk editor's part: marks, the editor of one change for many books, its batch.
    var bulkPart = BulkPart()

    public init(
        connector: any CatalogConnector,
        account: String,
        pageSize: Int = 50,
        loadMoreThreshold: Int = 5,
        logCapacity: Int = 200,
        clock: StoreClock = .continuous(),
        keeper: (any DraftKeeping)? = nil,
        countsBooks: Bool = false,
        catalog: RecentCatalog? = nil,
        catalogs: (any CatalogSwitching)? = nil
    ) {
        self.connector = connector
        self.startingAccount = account
        self.pageSize = max(1, pageSize)
        self.loadMoreThreshold = max(0, loadMoreThreshold)
        self.log = RequestLog(capacity: logCapacity)
        self.clock = clock
        self.keeper = keeper
        self.countsBooks = countsBooks
        self.catalogs = catalogs
        sessionPart.catalog = catalog
    }

    /// Everything the UI draws: each part's state.
    public var state: BookshelfState {
        BookshelfState(
            session: session,
            account: sessionPart.accountName,
            accountRole: sessionPart.accountRole,
            accounts: accountChoices,
            connection: connectionState,
            search: searchState,
            editor: editorState,
            confirmation: sessionPart.confirmation,
            passwordPrompt: sessionPart.passwordPrompt,
            shouldQuit: sessionPart.shouldQuit,
            waitingForSave: sessionPart.afterSave,
            message: message,
            history: historyState,
            keptDraft: keptDraftQuestion,
            catalogChanges: sessionPart.catalogChanges,
            lostSaves: editorPart.lostSaveList,
            bulk: bulkState,
            otherCatalogs: otherCatalogs,
            switchedCatalog: sessionPart.switchedCatalog ? sessionPart.catalog : nil,
            revisions: revisions)
    }

    /// Waits until the effect that request `number` belongs to has finished processing (its
    /// publication is done). Returns at once if it already has. For tests and the demo; the
    /// UI never needs it.
    public func finished(request number: Int) async {
        await running[number]?.value
    }

    /// Request numbers whose effects are still running (any session), background ones
    /// (below zero) included.
    public var runningRequests: [Int] { running.keys.sorted() }

    /// Requests that have not answered yet, oldest first (any session): for a request panel.
    public var pendingRequests: [PendingRequest] {
        inFlight.values.sorted { $0.order < $1.order }.map {
            PendingRequest(request: $0.identity.request, session: $0.identity.session, kind: $0.kind)
        }
    }

    /// A new session began: what each part showed of the old one goes (the typed query stays,
    /// and runs again). A new part clears its values here.
    func clearPartsForNewSession() {
        searchPart.clearForNewSession()
        editorPart.clearForNewSession()
        historyPart = HistoryPart()
        bulkPart.endSession()
    }

    /// Whether a pane (the editor or the history) takes the result list's place: the search's
    /// paging is told, as it is told the list's heights.
    var paneIsOpen: Bool { editorIsOpen || historyIsOpen }

    /// A connection succeeded on `remote` (the session part's `beginSession`): the session number
    /// moves first, so nothing started under the old session can publish from here on; the
    /// runner forgets the old session's requests, and the repository (its cache and freshness
    /// floor) and what is known of the store's reachability are the new session's.
    func beginGeneration(on remote: any SearchableBookRemote) {
        session += 1
        owners.removeAll()
        showsBusy.removeAll()
        for task in cancellable.values { task.cancel() }
        cancellable.removeAll()
        repository = BookRepository(remote: remote)
        reachability = StoreReachability()
    }

    /// The store is back after the session found it unreachable (the runner calls it): what
    /// each part said only because the store could not be reached stops saying so.
    func forgetUnreachableNotes() {
        forgetUnreachableConnectionError()
        forgetUnreachableSaveRefusal()
    }

    func changed() {
        followPaging()
        dropKeptDraftNoLongerOpen()
        onChange?()
    }

    // MARK: Freshness floor

    /// The newer of `record` and the newest revision this session has seen of that book. Read
    /// at publication, not when the answer came: a newer answer may have arrived meanwhile.
    /// Every record the model shows came through the session's repository, which noted it.
    func floor(_ record: BookRecord) -> BookRecord {
        if let seen = newestSeen?.newest(of: record.id), seen.revision >= record.revision { return seen }
        return record
    }

    /// Notes a record of this session and lifts any row showing an older revision of it.
    @discardableResult
    func observe(_ record: BookRecord) -> BookRecord {
        let newest = floor(record)
        liftRows(to: newest)
        return newest
    }

    static func message(for error: any Error) -> String {
        if let failure = error as? BookFailure { return failure.description }
        return String(describing: error)
    }
}
