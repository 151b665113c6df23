import BookCatalog
import Foundation

/// The fake store for race and ordering tests. Every call (a count too) parks until the test lets it go,
/// in two steps the test takes separately, as a real store's calls happen:
/// - the *store step* (`perform`): a read takes its snapshot of the store, a save performs
///   its compare-and-set (commits, or conflicts). This decides what later reads can see.
/// - the *answer step* (`release`): the caller gets its answer, or a failure.
///
/// Between the two anything can happen: another writer commits (`put`, `commitElsewhere`),
/// another call takes either of its steps, the test delivers a change notice or switches the
/// session. A read performed before a commit and answered after it is a lagging read.
///
/// A step the test does not take explicitly happens at a fixed moment: a read takes its
/// snapshot when it arrives (the worst case for staleness; `perform` takes it again, later);
/// a save commits when it is answered with `.deliver`, or on arrival with
/// `savesCommitOnArrival`. A save whose answer is lost before its store step (`.fail`) is
/// still queued at the store: `perform` can commit it afterwards.
///
/// The store keeps every committed revision of every book, so a test can derive what is true
/// from what committed when, never from what the code under test said. It has no operation
/// log, history or batches of its own kind; `keepingRecords` is the same store with them.
public actor SteppedRemote: SearchableBookRemote, ChangeDetectingRemote, ReauthenticatingRemote {
    public enum Call: Sendable, Equatable {
        case search(SearchQuery)
        /// The account's books counted (`bookCount`).
        case count
        case load(Int)
        case save(SaveRequest)
        /// A book's committed revisions (only through `keepingRecords`).
        case history(Int)
        case checkForChanges
        /// Signing a lost connection in again; `.deliver` checks the password.
        case reauthenticate(password: String)

        public var kind: CallKind {
            switch self {
            case .search: .search
            case .count: .count
            case .load: .load
            case .save: .save
            case .history: .history
            case .checkForChanges: .check
            case .reauthenticate: .reauthenticate
            }
        }
    }

    public enum CallKind: Sendable, Hashable { case search, count, load, save, history, check, reauthenticate }

    /// How the answer step answers.
    public enum Reply: Sendable {
        /// Answer with what the store step produced (running it now if it has not run).
        case deliver
        case page([BookRecord], total: Int)
        /// Answer a search with exactly this page (for what a page says besides its rows).
        case searchPage(SearchPage)
        /// Answer with this record, whatever the store holds (a wrong or malformed answer).
        case record(BookRecord)
        case notice(ChangeNotice?)
        /// Answer a count with this number, whatever the store holds.
        case count(Int)
        /// Fail; `.outcomeUnknown` is an answer lost on the way back.
        case fail(BookFailure)
        /// The remote noticed its task was cancelled and gave up.
        case cancelled
        /// Run the store step now (a save commits), then lose the answer with this failure.
        case commitThenFail(BookFailure)
        /// The connection was lost and only the account's password signs it in again.
        case passwordNeeded
    }

    /// What the store holds: each book's newest revision and every revision it committed.
    private struct Store: Sendable {
        var books: [Int: BookRecord] = [:]
        /// Oldest first.
        var revisions: [Int: [BookRevision]] = [:]

        mutating func commit(_ record: BookRecord, account: String?, operation: UUID?, batch: BatchID? = nil) {
            books[record.id] = record
            revisions[record.id, default: []].append(
                BookRevision(
                    record: record, account: account, savedAt: Date(timeIntervalSince1970: Double(record.revision)),
                    operation: operation, batch: batch))
        }
    }

    private enum Answer: Sendable {
        case page(SearchPage)
        case count(Int)
        case record(BookRecord)
        case revisions([BookRevision])
        case notice(ChangeNotice?)
    }

    private struct Pending {
        let call: Call
        /// What a read saw at its store step (at arrival until `perform` takes it again).
        var snapshot: Store
        var performed = false
        /// A save's compare-and-set, once its store step ran.
        var committed: Result<BookRecord, BookFailure>?
        /// Nil once answered: a save whose answer was lost before its step can still commit.
        var continuation: CheckedContinuation<Answer, any Error>?
    }

    private var store = Store()
    private var operations: [UUID: Int] = [:]
    /// The batch of each save sent in one (`RecordKeepingSteppedRemote`), by operation id.
    private var batchOfOperation: [UUID: BatchID] = [:]
    private var batchesBegun: [BatchStart] = []
    /// The account's password, which `reauthenticate` checks (nil: any password will do).
    public let password: String?
    public let account: String
    private let savesCommitOnArrival: Bool
    public private(set) var arrivals: [(number: Int, call: Call)] = []
    private var pending: [Int: Pending] = [:]
    private var waiters: [(kind: CallKind?, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var isClosed = false

    public init(
        books: [BookRecord] = [], account: String = "", password: String? = nil, savesCommitOnArrival: Bool = false
    ) {
        for record in books { store.commit(record, account: nil, operation: nil) }
        self.account = account
        self.password = password
        self.savesCommitOnArrival = savesCommitOnArrival
    }

    /// The store's truth: each book's newest committed revision.
    public var books: [Int: BookRecord] { store.books }

    /// Every revision of book `id` the store committed, oldest first.
    public func committedRevisions(of id: Int) -> [BookRecord] { (store.revisions[id] ?? []).map(\.record) }

    /// The same, as the store recorded them: who saved each, with which operation, in which batch.
    public func recordedRevisions(of id: Int) -> [BookRevision] { store.revisions[id] ?? [] }

    /// Another writer commits `record` exactly as given.
    public func put(_ record: BookRecord) { store.commit(record, account: nil, operation: nil) }

    /// Another writer commits a new title for book `id`, at the next revision, with new
    /// `details` or (nil) the book's as they are. To clear them pass `BookDetails.empty`: a bare
    /// `.none` here is the optional's nil.
    @discardableResult
    public func commitElsewhere(id: Int, title: String, details: BookDetails? = nil) -> BookRecord {
        guard let old = store.books[id] else { preconditionFailure("no book \(id)") }
        let next = BookRecord(
            id: id, title: title, revision: old.revision + 1, author: old.author, details: details ?? old.details)
        put(next)
        return next
    }

    /// A failover to a standby that had not replayed the newest commits of book `id`: the store
    /// holds `revision` again, and every later revision of it is gone, acknowledged or not.
    public func loseRevisions(of id: Int, after revision: Int) {
        let kept = (store.revisions[id] ?? []).filter { $0.record.revision <= revision }
        guard let newest = kept.last else { preconditionFailure("book \(id) has no revision \(revision)") }
        store.revisions[id] = kept
        store.books[id] = newest.record
    }

    /// The same store, which also keeps an operation log and answers history reads.
    public nonisolated var keepingRecords: RecordKeepingSteppedRemote { RecordKeepingSteppedRemote(self) }

    // MARK: Remote

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        guard case let .page(page) = try await park(.search(query)) else { throw BookFailure.invalidResponse }
        return page
    }

    public func bookCount() async throws -> Int {
        guard case let .count(count) = try await park(.count) else { throw BookFailure.invalidResponse }
        return count
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

    /// Book `id`'s committed revisions, newest first (served through `keepingRecords`).
    public func history(of id: Int) async throws -> [BookRevision] {
        guard case let .revisions(revisions) = try await park(.history(id)) else { throw BookFailure.invalidResponse }
        return revisions
    }

    /// The revision a save with this operation id committed, answered at once: the log is
    /// read where it is kept, with no answer to hold back.
    public func committedRevision(of operation: UUID) -> Int? { operations[operation] }

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

    /// Calls waiting for their answer, oldest first.
    public var parkedCalls: [(number: Int, call: Call)] {
        pending.filter { $0.value.continuation != nil }.keys.sorted().map { ($0, pending[$0]!.call) }
    }

    /// The newest call of `kind` waiting for its answer.
    public func newestParked(_ kind: CallKind) -> Int? {
        pending.filter { $0.value.continuation != nil && $0.value.call.kind == kind }.keys.max()
    }

    public func isParked(_ number: Int) -> Bool { pending[number]?.continuation != nil }

    /// Takes call `number`'s store step now: a read snapshots the store, a save performs its
    /// compare-and-set (its answer, released later, reports it).
    public func perform(_ number: Int) {
        guard var call = pending[number] else { preconditionFailure("call \(number) is not waiting") }
        precondition(!call.performed && call.committed == nil, "call \(number) already took its store step")
        switch call.call {
        case let .save(request): call.committed = Result { () throws(BookFailure) in try commit(request) }
        case .search, .count, .load, .history: call.snapshot = store
        case .checkForChanges, .reauthenticate: preconditionFailure("call \(number) has no store step")
        }
        call.performed = true
        pending[number] = call.continuation == nil ? nil : call
    }

    /// Takes call `number`'s answer step now, with `reply`.
    public func release(_ number: Int, _ reply: Reply) {
        guard var call = pending[number], let continuation = call.continuation else {
            preconditionFailure("call \(number) is not waiting for its answer")
        }
        let result = Result { try answer(&call, reply) }
        call.continuation = nil
        pending[number] = isQueuedSave(call) ? call : nil
        continuation.resume(with: result)
    }

    /// Fails every call waiting for its answer (end of a test, so no continuation leaks).
    public func failAll() {
        for (number, _) in parkedCalls { release(number, .fail(.storeUnavailable("test over"))) }
    }

    /// Fails every waiting call and every call that arrives from now on: an effect started
    /// just before the end of a test may reach the store only after `failAll`.
    public func close() {
        isClosed = true
        failAll()
    }

    // MARK: Steps

    private func park(_ call: Call) async throws -> Answer {
        if isClosed { throw BookFailure.storeUnavailable("test over") }
        let number = arrivals.count + 1
        arrivals.append((number, call))
        return try await withCheckedThrowingContinuation { continuation in
            var arrived = Pending(call: call, snapshot: store, continuation: continuation)
            if savesCommitOnArrival, case let .save(request) = call {
                arrived.committed = Result { () throws(BookFailure) in try commit(request) }
            }
            pending[number] = arrived
            let ready = waiters.filter { arrivalCount(of: $0.kind) >= $0.count }
            waiters.removeAll { arrivalCount(of: $0.kind) >= $0.count }
            ready.forEach { $0.continuation.resume() }
        }
    }

    /// A save answered before its store step ran: the request may still reach the store.
    private func isQueuedSave(_ call: Pending) -> Bool {
        if case .save = call.call { call.committed == nil } else { false }
    }

    private func answer(_ call: inout Pending, _ reply: Reply) throws -> Answer {
        switch reply {
        case let .page(records, total): return .page(SearchPage(records: records, total: total))
        case let .searchPage(page): return .page(page)
        case let .record(record): return .record(record)
        case let .notice(notice): return .notice(notice)
        case let .count(count): return .count(count)
        case let .fail(failure): throw failure
        case .passwordNeeded: throw PasswordNeededAgain(account: account)
        case .cancelled: throw CancellationError()
        case let .commitThenFail(failure):
            guard case let .save(request) = call.call else { preconditionFailure("only saves commit") }
            if call.committed == nil { call.committed = Result { () throws(BookFailure) in try commit(request) } }
            throw failure
        case .deliver:
            return try delivered(&call)
        }
    }

    /// The answer the store step produced, taking that step now if it has not been taken.
    private func delivered(_ call: inout Pending) throws -> Answer {
        let snapshot = call.snapshot
        switch call.call {
        case let .search(query):
            // Every book matches: the matching rule has tests of its own, and a test that
            // needs chosen rows answers with `.page`.
            let records = snapshot.books.values.sorted { $0.id < $1.id }
            let page = records.dropFirst(query.offset).prefix(query.limit)
            return .page(SearchPage(records: Array(page), total: records.count))
        case .count:
            return .count(snapshot.books.count)
        case let .load(id):
            guard let record = snapshot.books[id] else { throw BookFailure.missing }
            return .record(record)
        case let .history(id):
            guard let revisions = snapshot.revisions[id] else { throw BookFailure.missing }
            return .revisions(revisions.reversed())
        case let .save(request):
            if call.committed == nil { call.committed = Result { () throws(BookFailure) in try commit(request) } }
            return .record(try call.committed!.get())
        case .checkForChanges:
            return .notice(nil)
        case let .reauthenticate(typed):
            if let password, typed != password { throw BookFailure.notAllowed }
            return .notice(nil)
        }
    }

    private func commit(_ request: SaveRequest) throws(BookFailure) -> BookRecord {
        guard let old = store.books[request.id] else { throw .missing }
        guard old.revision == request.expectedRevision else {
            throw .conflict(expected: request.expectedRevision, actual: old.revision)
        }
        let next = BookRecord(
            id: old.id, title: try BookValidation.title(request.title), revision: old.revision + 1,
            author: try request.author.map { raw throws(BookFailure) in try BookValidation.author(raw) } ?? old.author,
            details: try request.details.map { raw throws(BookFailure) in try raw.validated() } ?? old.details)
        store.commit(next, account: account, operation: request.operation, batch: batchOfOperation[request.operation])
        operations[request.operation] = next.revision
        return next
    }

    // MARK: Batches (served through `keepingRecords`)

    /// Begins a batch, answered at once: the number is the store's to give, with nothing to hold back.
    public func beginBatch(_ start: BatchStart) -> BatchID {
        batchesBegun.append(start)
        return BatchID(batchesBegun.count)
    }

    /// The batches begun, oldest first (batch n is at n - 1).
    public var batches: [BatchStart] { batchesBegun }

    /// A save of `batch`: parked and stepped as any save is.
    public func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        guard batch.number >= 1, batch.number <= batchesBegun.count else { throw BookFailure.notAllowed }
        batchOfOperation[request.operation] = batch
        return try await save(request)
    }

    /// Every save at once or none, committed on arrival as one transaction is: the orderings that
    /// matter are the batch's read against the other writers, which the test steps as it likes.
    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) -> AllOrNothingResult {
        let before = (store, operations)
        var refused: [Int: BookFailure] = [:]
        let batch = BatchID(batchesBegun.count + 1)
        for request in requests {
            batchOfOperation[request.operation] = batch
            do throws(BookFailure) { _ = try commit(request) } catch { refused[request.id] = error }
        }
        guard refused.isEmpty else {
            (store, operations) = before
            return .refused(refused)
        }
        batchesBegun.append(start)
        return .committed(batch, requests.map { store.books[$0.id]! })
    }

    /// The revisions `batch` made, answered at once from the store's record of every revision.
    public func revisions(ofBatch batch: BatchID) -> [BatchRevision] {
        store.revisions.keys.sorted().flatMap { id -> [BatchRevision] in
            let revisions = store.revisions[id]!
            return revisions.filter { $0.batch == batch }.map { made in
                // As the stores pair them: the revision just before, if the history has it.
                BatchRevision(
                    before: revisions.first { $0.record.revision == made.record.revision - 1 }?.record,
                    after: made.record)
            }
        }
    }
}

/// A `SteppedRemote` seen as a store that also keeps an operation log (so an uncertain save
/// is reconciled by asking it) and a history of each book (a two-step read like any other).
/// The plain `SteppedRemote` offers neither, as a store without them does, so the code's
/// fallbacks for such stores stay under test.
public struct RecordKeepingSteppedRemote: SearchableBookRemote, ChangeDetectingRemote, ReauthenticatingRemote,
    SaveOutcomeRecordingRemote, HistoryKeepingRemote, BatchRecordingRemote
{
    public let stepped: SteppedRemote

    public init(_ stepped: SteppedRemote) { self.stepped = stepped }

    public func search(_ query: SearchQuery) async throws -> SearchPage { try await stepped.search(query) }
    public func bookCount() async throws -> Int { try await stepped.bookCount() }
    public func load(id: Int) async throws -> BookRecord { try await stepped.load(id: id) }
    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await stepped.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    public func save(_ request: SaveRequest) async throws -> BookRecord { try await stepped.save(request) }
    public func checkForChanges() async throws -> ChangeNotice? { try await stepped.checkForChanges() }
    public func reauthenticate(password: String) async throws { try await stepped.reauthenticate(password: password) }
    public func committedRevision(of operation: UUID) async throws -> Int? {
        await stepped.committedRevision(of: operation)
    }
    public func history(of id: Int) async throws -> [BookRevision] { try await stepped.history(of: id) }
    public func beginBatch(_ start: BatchStart) async throws -> BatchID { await stepped.beginBatch(start) }
    public func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        try await stepped.save(request, inBatch: batch)
    }
    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        await stepped.saveAll(requests, inNewBatch: start)
    }
    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        await stepped.revisions(ofBatch: batch)
    }
}
