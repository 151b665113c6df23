import BookCatalog

/// Whether the current session's store answers, as far as the session can tell: a freshness
/// check that could not reach it says no; a request that had to reach it and succeeded says
/// yes. Answers come in any order, so the evidence of the request that began last wins: an
/// answer from a request older than the one that told last is old news, whenever it arrives.
/// A check still waiting tells too (it is not answered), and its own answer then tells again.
///
/// A store that answers with a refusal (`BookFailure.storeRefused`: a server that became a
/// standby, read-only sessions, no connection left) is reachable: it is said as what it is, never
/// as a lost store, until the evidence of a later request says otherwise.
struct StoreReachability: Equatable {
    private(set) var isReachable = true
    /// Why the store refused the last freshness check, while nothing newer has told otherwise.
    private(set) var refusal: String?
    /// When the request whose answer told last began (`RequestTicket.order`; 0: none yet this session).
    private var toldBy = 0

    /// Returns true when this answer brings the store back: it was unreachable until now.
    /// `order` is when the answering request began, among all the model's requests.
    @discardableResult
    mutating func learn(_ reachable: Bool, from order: Int) -> Bool {
        guard order >= toldBy else { return false }
        toldBy = order
        let recovered = reachable && !isReachable
        isReachable = reachable
        refusal = nil
        return recovered
    }

    /// The store answered, with a refusal. Returns true when this brings the store back, as
    /// `learn(_:from:)` does: it was unreachable until now.
    @discardableResult
    mutating func learn(refusal reason: String, from order: Int) -> Bool {
        guard order >= toldBy else { return false }
        toldBy = order
        let recovered = !isReachable
        isReachable = true
        refusal = reason
        return recovered
    }

    /// A failure that says the store could not be reached (a lost password says something
    /// else, and the lost-connection prompt says it).
    static func meansUnreachable(_ error: any Error) -> Bool {
        switch error as? BookFailure {
        case .storeUnavailable?, .outcomeUnknown?: true
        default: false
        }
    }

    /// Kinds whose success proves the store answered. Opening a record may come from the
    /// cache, and a search without searchable words is answered without asking the store.
    static func answerReachesTheStore(_ kind: RequestKind) -> Bool {
        switch kind {
        case .changeCheck, .save, .reconcile, .reconnect, .history: true
        // Every marked book is read again from the store (a refresh never answers from the cache).
        case .bulkRead: true
        // Marking is searches; a batch whose books were all unchanged asked the store nothing.
        case .markMatches, .bulkEdit: false
        // The account list and the catalog count answer even when their queries failed.
        case .search, .page, .refresh, .count, .load, .connect, .openCatalog, .accounts, .catalogCount: false
        }
    }
}
