import BookCatalog
import Locking

/// A remote for race tests: every call parks until the test releases it with a chosen reply,
/// so the order of completions is the test's choice, never the machine's.
///
/// It also holds the store's truth (`books`), so a call can be released with `.deliver`: a
/// read answers with the snapshot taken when it arrived (the worst case for staleness), a
/// save performs its compare-and-set at the moment of release. `perform` moves a call's
/// store step to a moment of the test's choosing before its answer: a read takes its
/// snapshot then, a save commits then and answers later (or loses its answer), so answers
/// can arrive in any order relative to commits, as a real store's do.
public actor ScriptedRemote: SearchableBookRemote, ChangeDetectingRemote, ReauthenticatingRemote {
    public enum Call: Sendable, Equatable {
        case search(SearchQuery)
        case load(Int)
        case save(SaveRequest)
        case checkForChanges
        /// Signing a lost connection in again; `.deliver` checks the password.
        case reauthenticate(password: String)

        public var kind: CallKind {
            switch self {
            case .search: .search
            case .load: .load
            case .save: .save
            case .checkForChanges: .check
            case .reauthenticate: .reauthenticate
            }
        }
    }

    public enum CallKind: Sendable, Hashable { case search, load, save, check, reauthenticate }

    public enum Reply: Sendable {
        /// Answer as the store would.
        case deliver
        case page([BookRecord], total: Int)
        /// Answer a search with exactly this page (for what a page says besides its rows).
        case searchPage(SearchPage)
        case record(BookRecord)
        case notice(ChangeNotice?)
        case fail(BookFailure)
        /// The remote noticed its task was cancelled and gave up.
        case cancelled
        /// A save commits, then its answer is lost with this failure.
        case commitThenFail(BookFailure)
        /// The connection was lost and only the account's password signs it in again.
        case passwordNeeded
    }

    private enum Answer: Sendable {
        case page(SearchPage)
        case record(BookRecord)
        case notice(ChangeNotice?)
    }

    private struct Parked {
        let call: Call
        var snapshot: [Int: BookRecord]
        /// A save's compare-and-set, once `perform` ran it.
        var committed: Result<BookRecord, BookFailure>?
        let continuation: CheckedContinuation<Answer, any Error>
    }

    /// The store's truth.
    public var books: [Int: BookRecord]
    /// The account's password, which `reauthenticate` checks (nil: any password will do).
    public let password: String?
    public let account: String
    public private(set) var arrivals: [(number: Int, call: Call)] = []
    private var parked: [Int: Parked] = [:]
    private var waiters: [(kind: CallKind?, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(books: [BookRecord] = [], account: String = "", password: String? = nil) {
        self.books = Dictionary(uniqueKeysWithValues: books.map { ($0.id, $0) })
        self.account = account
        self.password = password
    }

    /// Another writer commits.
    public func put(_ record: BookRecord) { books[record.id] = record }

    // MARK: Remote

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        guard case let .page(page) = try await park(.search(query)) else { throw BookFailure.invalidResponse }
        return page
    }

    public func load(id: Int) async throws -> BookRecord {
        guard case let .record(record) = try await park(.load(id)) else { throw BookFailure.invalidResponse }
        return record
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        guard case let .record(record) = try await park(.save(request)) else { throw BookFailure.invalidResponse }
        return record
    }

    public func checkForChanges() async throws -> ChangeNotice? {
        guard case let .notice(notice) = try await park(.checkForChanges) else { throw BookFailure.invalidResponse }
        return notice
    }

    public func reauthenticate(password: String) async throws {
        _ = try await park(.reauthenticate(password: password))
    }

    // MARK: Test control

    /// Suspends until `count` calls (of `kind`, if given) have arrived in all.
    public func waitForArrivals(_ count: Int, of kind: CallKind? = nil) async {
        if arrivalCount(of: kind) >= count { return }
        await withCheckedContinuation { waiters.append((kind, count, $0)) }
    }

    public func arrivalCount(of kind: CallKind? = nil) -> Int {
        arrivals.filter { kind == nil || $0.call.kind == kind }.count
    }

    /// The `index`-th call (1-based) of `kind` to arrive, waiting for it if need be.
    public func call(_ index: Int, of kind: CallKind) async -> (number: Int, call: Call) {
        await waitForArrivals(index, of: kind)
        return arrivals.filter { $0.call.kind == kind }[index - 1]
    }

    /// Parked calls, oldest first.
    public var parkedCalls: [(number: Int, call: Call)] {
        parked.keys.sorted().map { ($0, parked[$0]!.call) }
    }

    /// The newest parked call of `kind`.
    public func newestParked(_ kind: CallKind) -> Int? {
        parked.filter { $0.value.call.kind == kind }.keys.max()
    }

    public func isParked(_ number: Int) -> Bool { parked[number] != nil }

    /// Runs call `number`'s store step now, before its answer: a read snapshots the store, a
    /// save performs its compare-and-set (its answer, released later, reports it).
    public func perform(_ number: Int) {
        guard var call = parked[number] else { preconditionFailure("call \(number) is not parked") }
        precondition(call.committed == nil, "call \(number) already performed")
        if case let .save(request) = call.call {
            call.committed = Result { () throws(BookFailure) in try commit(request) }
        } else {
            call.snapshot = books
        }
        parked[number] = call
    }

    /// Completes call `number` (1-based arrival order) with `reply`.
    public func release(_ number: Int, _ reply: Reply) {
        guard let call = parked.removeValue(forKey: number) else { preconditionFailure("call \(number) is not parked") }
        do {
            call.continuation.resume(returning: try answer(call, reply))
        } catch {
            call.continuation.resume(throwing: error)
        }
    }

    /// Fails every parked call (end of a test, so no continuation leaks).
    public func failAll() {
        for number in parked.keys.sorted() { release(number, .fail(.storeUnavailable("test over"))) }
    }

    /// Fails every parked call and every call that arrives from now on: an effect started
    /// just before the end of a test may reach the store only after `failAll`.
    public func close() {
        isClosed = true
        failAll()
    }

    private var isClosed = false

    private func park(_ call: Call) async throws -> Answer {
        if isClosed { throw BookFailure.storeUnavailable("test over") }
        let number = arrivals.count + 1
        arrivals.append((number, call))
        let snapshot = books
        return try await withCheckedThrowingContinuation { continuation in
            parked[number] = Parked(call: call, snapshot: snapshot, committed: nil, continuation: continuation)
            let ready = waiters.filter { arrivalCount(of: $0.kind) >= $0.count }
            waiters.removeAll { arrivalCount(of: $0.kind) >= $0.count }
            ready.forEach { $0.continuation.resume() }
        }
    }

    private func answer(_ parked: Parked, _ reply: Reply) throws -> Answer {
        switch reply {
        case let .page(records, total): return .page(SearchPage(records: records, total: total))
        case let .searchPage(page): return .page(page)
        case let .record(record): return .record(record)
        case let .notice(notice): return .notice(notice)
        case let .fail(failure): throw failure
        case .passwordNeeded: throw PasswordNeededAgain(account: account)
        case .cancelled: throw CancellationError()
        case let .commitThenFail(failure):
            guard case let .save(request) = parked.call else { preconditionFailure("only saves commit") }
            if parked.committed == nil { _ = try commit(request) }
            throw failure
        case .deliver:
            switch parked.call {
            case .search:
                let records = parked.snapshot.values.sorted { $0.id < $1.id }
                return .page(SearchPage(records: records, total: records.count))
            case let .load(id):
                guard let record = parked.snapshot[id] else { throw BookFailure.missing }
                return .record(record)
            case let .save(request):
                if let committed = parked.committed { return .record(try committed.get()) }
                return .record(try commit(request))
            case .checkForChanges:
                return .notice(nil)
            case let .reauthenticate(typed):
                if let password, typed != password { throw BookFailure.notAllowed }
                return .notice(nil)
            }
        }
    }

    private func commit(_ request: SaveRequest) throws(BookFailure) -> BookRecord {
        guard let old = books[request.id] else { throw .missing }
        guard old.revision == request.expectedRevision else {
            throw .conflict(expected: request.expectedRevision, actual: old.revision)
        }
        let next = BookRecord(
            id: old.id, title: try BookValidation.title(request.title), revision: old.revision + 1,
            author: try request.author.map { raw throws(BookFailure) in try BookValidation.author(raw) } ?? old.author)
        books[old.id] = next
        return next
    }
}

/// Connects each account to a fresh `ScriptedRemote` seeded with that account's books.
public final class ScriptedConnector: CatalogConnector {
    private struct State {
        var remotes: [(account: String, remote: ScriptedRemote)] = []
        var failures: [String: BookFailure] = [:]
        var holdsConnections = false
        var heldConnections: [CheckedContinuation<Void, Never>] = []
        var heldWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public let books: [String: [BookRecord]]
    public let passwords: [String: String]
    private let state = Locked(State())

    public init(books: [String: [BookRecord]], passwords: [String: String] = [:]) {
        self.books = books
        self.passwords = passwords
    }

    public func accountNames() async throws -> [String] { books.keys.sorted() }

    public func requiresPassword(for account: String) -> Bool { passwords[account] != nil }

    public func connect(account: String, password: String?) async throws -> any BookRemote {
        if state.withLock({ $0.holdsConnections }) {
            // Connecting takes time while the user goes on typing: wait for the test.
            await withCheckedContinuation { continuation in
                let waiters = state.withLock { state in
                    state.heldConnections.append(continuation)
                    defer { state.heldWaiters.removeAll() }
                    return state.heldWaiters
                }
                waiters.forEach { $0.resume() }
            }
        }
        if let failure = state.withLock({ $0.failures[account] }) { throw failure }
        guard books[account] != nil else { throw BookFailure.missing }
        if let expected = passwords[account], expected != password { throw BookFailure.notAllowed }
        let remote = ScriptedRemote(books: books[account] ?? [], account: account, password: passwords[account])
        state.withLock { $0.remotes.append((account, remote)) }
        return remote
    }

    public func failConnections(to account: String, with failure: BookFailure?) {
        state.withLock { $0.failures[account] = failure }
    }

    /// From now on each connection waits for `releaseHeldConnection` before it opens.
    public func holdConnections() { state.withLock { $0.holdsConnections = true } }

    /// Suspends until a connection is waiting to be released.
    public func waitForHeldConnection() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.heldConnections.isEmpty { state.heldWaiters.append(continuation); return false }
                return true
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets the oldest waiting connection open.
    public func releaseHeldConnection() {
        let next = state.withLock { $0.heldConnections.isEmpty ? nil : $0.heldConnections.removeFirst() }
        next?.resume()
    }

    /// Every remote handed out, oldest first.
    public var remotes: [ScriptedRemote] { state.withLock { $0.remotes.map(\.remote) } }
    public var latest: ScriptedRemote { remotes.last! }
    public var connectionCount: Int { remotes.count }
}
