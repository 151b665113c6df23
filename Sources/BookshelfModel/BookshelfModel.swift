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

    let connector: any CatalogConnector
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

    // MARK: Session

    var repository: BookRepository?
    /// The current session's remote, for a new session of the same connection (a scope an
    /// administrator changed).
    var remote: (any SearchableBookRemote)?
    /// The current session's remote when it can sign a lost connection in again: asked once,
    /// when the session began.
    var reauthenticating: (any ReauthenticatingRemote)?
    var accountName: String?
    var accountRole: AccountRole?
    /// Which books the current account sees, when the store tells.
    var accountScope: String?
    var accountNames: [String] = []
    var accountRoles: [String: AccountRole] = [:]
    var accountScopes: [String: String] = [:]
    var connectingAccount: String?
    var connectionError: String?
    /// `connectionError` says only that the store could not be reached: the next answer of
    /// the store makes it old news.
    var connectionErrorIsUnreachable = false
    /// The current session's connection was lost and needs the password typed again.
    var connectionIsLost = false
    /// Requests up to this order (`RequestTicket.order`) began before the last successful
    /// reconnect: their "password needed" failures are old news and ask for nothing.
    var reconnectedThrough = 0
    /// Whether the store answers, as the newest request of this session that could tell says.
    var reachability = StoreReachability()
    /// When the freshness check in flight (if any) began.
    var changeCheckStarted: Duration?
    /// The newest revision of each book this session has seen: rows and editor bases never go
    /// below it. The repository keeps it, from every answer it took in; the model only reads it.
    var newestSeen: SeenRevisions? { repository?.newestSeen }

    // MARK: Screens

    var searchPart = SearchPart()
    var editor: EditorSession?
    var history: HistorySession?
    var confirmation: Confirmation?
    var passwordPrompt: PasswordPrompt?
    var shouldQuit = false
    /// What the user confirmed to do once the save in flight has gone through.
    var afterSave: Confirmation.Action?
    var message: String?
    /// How many change notices have arrived (`BookshelfState.catalogChanges`).
    var catalogChanges = 0
    /// Saves the store lost, each kept until its book is opened again (`noticeLostSaves`).
    var keptLostSaves: [Int: LostSave] = [:]
    /// Every save the store lost this session, and which the user has not seen in their list.
    var lostSaveList = LostSaveList()
    /// Where the open draft is kept between runs (nil: nowhere), and what is kept there.
    let keeper: (any DraftKeeping)?
    var keeping = DraftKeepingState()
    /// The bulk editor's part: marks, the editor of one change for many books, its batch.
    var bulk = BulkPart()

    public init(
        connector: any CatalogConnector,
        account: String,
        pageSize: Int = 50,
        loadMoreThreshold: Int = 5,
        logCapacity: Int = 200,
        clock: StoreClock = .continuous(),
        keeper: (any DraftKeeping)? = nil,
        countsBooks: Bool = false
    ) {
        self.connector = connector
        self.startingAccount = account
        self.pageSize = max(1, pageSize)
        self.loadMoreThreshold = max(0, loadMoreThreshold)
        self.log = RequestLog(capacity: logCapacity)
        self.clock = clock
        self.keeper = keeper
        self.countsBooks = countsBooks
    }

    /// Everything the UI draws.
    public var state: BookshelfState {
        BookshelfState(
            session: session,
            account: accountName,
            accountRole: accountRole,
            accounts: accountNames.map {
                AccountChoice(
                    name: $0, needsPassword: connector.requiresPassword(for: $0), isCurrent: $0 == accountName,
                    role: accountRoles[$0], scope: accountScopes[$0])
            },
            connection: ConnectionState(
                connectingTo: isPending(.connect) ? connectingAccount : nil,
                error: connectionError,
                isLost: connectionIsLost,
                isUnreachable: !reachability.isReachable,
                refusal: reachability.refusal),
            search: searchState,
            editor: editorState,
            confirmation: confirmation,
            passwordPrompt: passwordPrompt,
            shouldQuit: shouldQuit,
            waitingForSave: afterSave,
            message: message,
            history: historyState,
            keptDraft: keptDraftQuestion,
            catalogChanges: catalogChanges,
            lostSaves: lostSaveList,
            bulk: bulkState)
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
        editor = nil
        history = nil
        // Lost saves are told to the session that made them: another account's rows and books
        // may carry the same ids.
        lostSaveList = LostSaveList()
        keptLostSaves = [:]
        bulk.endSession()
    }

    /// Whether a pane (the editor or the history) takes the result list's place: the search's
    /// paging is told, as it is told the list's heights.
    var paneIsOpen: Bool { editor != nil || history != nil }

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
