/// Who started an effect: the account session it belongs to and its request number.
/// The same request number under a new session is a different owner. A request the log
/// always records has the number F4 and `--trace` show; a background request (see
/// `RequestKind.isLoggedWhenItStarts`) has a number below zero until its answer is logged.
public struct PublicationIdentity: Hashable, Sendable, CustomStringConvertible {
    public let session: Int
    public let request: Int

    public init(session: Int, request: Int) {
        self.session = session
        self.request = request
    }

    public var description: String { "session \(session) request \(request)" }
}

/// What a request asked the store for. Diagnostics use it; it carries no user text.
public enum RequestKind: String, Sendable, Hashable, CaseIterable {
    /// A search for a changed query (first page).
    case search
    /// A further page of the results on screen.
    case page
    /// A search re-run because someone else committed.
    case refresh
    /// The count of a search whose page came first (`TotalCount.counting`).
    case count
    /// A single record: opening the editor, re-reading it after a change, fetching theirs in a conflict.
    case load
    case save
    /// Finding out whether a save whose outcome was unknown committed.
    case reconcile
    /// Opening an account session.
    case connect
    /// Opening another catalog or library and its starting account's session (the switcher).
    case openCatalog = "open-catalog"
    /// Signing the current session's lost connection in again with a password typed anew.
    case reconnect
    /// The revisions of one book, for the history view.
    case history
    /// Asking the store whether someone else committed (recorded only when it found something or failed).
    case changeCheck = "change-check"
    /// The accounts, their roles and scopes, for the switcher (not logged).
    case accounts
    /// How many books the current account sees, for the header (not logged).
    case catalogCount = "catalog-count"
    /// Every book a search matches, to mark them (all pages).
    case markMatches = "mark-matches"
    /// The marked books, read for a bulk edit.
    case bulkRead = "bulk-read"
    /// A bulk edit's batch: a save per book, or one transaction.
    case bulkEdit = "bulk-edit"

    /// Whether every request of this kind is logged, and so numbered when it starts. The
    /// others run in the background (a check each second, the account list, the header's
    /// count) and are logged only when they find something or fail: they are numbered then,
    /// so a number a user sees is always one F4 and the trace list.
    var isLoggedWhenItStarts: Bool {
        switch self {
        case .changeCheck, .accounts, .catalogCount: false
        default: true
        }
    }
}

/// The publication rights that requests compete for. In each slot only the newest request of
/// the current session may publish; a newer request in the same slot makes older ones stale.
enum PublicationSlot: Hashable, Sendable {
    /// Search, refresh and their results, error and busy indicator.
    case search
    /// Loading further pages of the results on screen.
    case page
    /// The editor's own chain: opening, saving, fetching theirs, reconciling.
    case editor
    /// Re-reading the edited record after a change notice; never touches the draft.
    case editorWatch
    case changeCheck
    case connect
    case reconnect
    /// The history view's revisions.
    case history
    /// The account list, asked for at start (and again if a session began before it answered).
    case accounts
    /// The size of the current account's catalog, once per session.
    case catalogCount
    /// Marking every book a search matches.
    case bulkMarks
    /// Reading the marked books for the bulk editor.
    case bulkRead
    /// A bulk edit's batch.
    case bulkRun
}

/// One request in flight: its identity, the right it competes for and when it started.
struct RequestTicket: Sendable {
    let identity: PublicationIdentity
    let slot: PublicationSlot
    let kind: RequestKind
    let started: Duration
    /// When it began among all the model's requests, background ones included: which of two
    /// answers is the newer evidence (`StoreReachability`, a reconnect).
    let order: Int
}
