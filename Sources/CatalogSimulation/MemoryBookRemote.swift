import BookCatalog
import Foundation
import Locking

/// An in-memory catalog shared by any number of `MemoryBookRemote`s, one per account, so
/// two "people" can edit the same book and meet a real conflict. For tests and demos.
public final class MemoryCatalog: Sendable {
    struct StoredBook {
        var record: BookRecord
        var scope: String
    }

    struct State {
        var books: [Int: StoredBook] = [:]
        var accounts: [String: Account] = [:]
        var nextID = 1
        /// Bumped by every committed save; remotes compare it to notice others' commits.
        var commitCount = 0
        var committedOperations: [UUID: Int] = [:]
        /// Every committed revision of each book, oldest first.
        var history: [Int: [BookRevision]] = [:]
        /// False while the "server" is down: every call fails as an unreachable store's does.
        var isReachable = true
        /// Every batch begun, by number: the account that began it, in its scope.
        var batches: [Int: Account] = [:]

        /// Records `record` as the book's newest revision.
        mutating func recordRevision(_ record: BookRecord, account: String?, operation: UUID?, batch: BatchID? = nil) {
            history[record.id, default: []].append(
                BookRevision(record: record, account: account, savedAt: Date(), operation: operation, batch: batch))
        }
    }

    private let state = Locked(State())

    public init() {}

    public func addAccount(_ account: Account) {
        state.withLock { $0.accounts[account.name] = account }
    }

    public func account(named name: String) -> Account? {
        state.withLock { $0.accounts[name] }
    }

    public var accounts: [Account] {
        state.withLock { $0.accounts.values.sorted { $0.name < $1.name } }
    }

    /// Adds a book at revision 1 and returns it. `details` are kept as given (already canonical).
    @discardableResult
    public func addBook(title: String, author: String = "", details: BookDetails = .empty, scope: String) -> BookRecord
    {
        state.withLock { state in
            let record = BookRecord(id: state.nextID, title: title, revision: 1, author: author, details: details)
            state.nextID += 1
            state.books[record.id] = StoredBook(record: record, scope: scope)
            state.recordRevision(record, account: nil, operation: nil)
            return record
        }
    }

    /// Adds `books` to `scope` in one commit, as another program's import does: every remote
    /// notices it at its next change check.
    public func importBooks(_ books: [(title: String, author: String)], scope: String) {
        state.withLock { state in
            for (title, author) in books {
                let record = BookRecord(id: state.nextID, title: title, revision: 1, author: author)
                state.nextID += 1
                state.books[record.id] = StoredBook(record: record, scope: scope)
                state.recordRevision(record, account: nil, operation: nil)
            }
            state.commitCount += 1
        }
    }

    /// How many books `scope` holds, as a store counts them for the header.
    public func bookCount(scope: String) -> Int {
        state.withLock { state in state.books.values.filter { $0.scope == scope }.count }
    }

    /// Puts a record in place exactly as given (fixtures with chosen ids and revisions).
    public func put(_ record: BookRecord, scope: String) {
        state.withLock { state in
            state.books[record.id] = StoredBook(record: record, scope: scope)
            // A book put in place starts its history at the revision it is put at.
            state.history[record.id] = []
            state.recordRevision(record, account: nil, operation: nil)
            state.nextID = max(state.nextID, record.id + 1)
        }
    }

    var commitCount: Int { state.withLock { $0.commitCount } }

    /// Takes the catalog down (every call of every remote fails with `storeUnavailable`, as a
    /// lost server's do) or brings it back.
    public var isReachable: Bool {
        get { state.withLock { $0.isReachable } }
        set { state.withLock { $0.isReachable = newValue } }
    }

    func withState<T>(_ body: (inout State) throws(BookFailure) -> T) throws(BookFailure) -> T {
        try state.withLock { state throws(BookFailure) in
            guard state.isReachable else { throw .storeUnavailable("the test took the catalog down") }
            return try body(&state)
        }
    }
}

/// One account's view of a `MemoryCatalog`. It enforces the same rules a real store does:
/// only the account's scope is visible, readers cannot save, saves are compare-and-set.
public actor MemoryBookRemote: SearchableBookRemote, ChangeDetectingRemote, SaveOutcomeRecordingRemote,
    AccountAwareRemote,
    HistoryKeepingRemote, BatchRecordingRemote
{
    public static let defaultScope = "main"

    public let catalog: MemoryCatalog
    public nonisolated let account: Account
    public private(set) var loads = 0
    private var lastSeenCommitCount: Int
    private var ownCommits = 0
    /// How the next all-or-nothing save loses its answer, if it does (`loseNextAllOrNothingAnswer`).
    private var nextAllOrNothingLoss: AnswerLoss?

    /// Where a save's answer is lost, as a connection dies: before the transaction committed
    /// (nothing of it did), or after (all of it did); either way the caller hears `outcomeUnknown`.
    public enum AnswerLoss: Sendable { case beforeCommit, afterCommit }

    /// The next `saveAll` loses its answer `where`, then the remote answers as before.
    public func loseNextAllOrNothingAnswer(_ loss: AnswerLoss) { nextAllOrNothingLoss = loss }

    public init(catalog: MemoryCatalog, account: Account) {
        self.catalog = catalog
        self.account = account
        self.lastSeenCommitCount = catalog.commitCount
    }

    /// A private catalog holding `records`, seen by one editor.
    public init(_ records: [Int: BookRecord]) {
        let catalog = MemoryCatalog()
        let account = Account(name: "editor", role: .editor, scope: Self.defaultScope)
        catalog.addAccount(account)
        for record in records.values { catalog.put(record, scope: Self.defaultScope) }
        self.init(catalog: catalog, account: account)
    }

    public func load(id: Int) async throws -> BookRecord {
        loads += 1
        let scope = account.scope
        return try catalog.withState { state throws(BookFailure) in
            guard let stored = state.books[id], stored.scope == scope else { throw .missing }
            return stored.record
        }
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ unchecked: SaveRequest) async throws -> BookRecord {
        let request = try unchecked.validated()
        let account = self.account
        let saved = try catalog.withState { state throws(BookFailure) in
            try Self.commit(request, by: account, in: &state, batch: nil)
        }
        ownCommits += 1
        return saved
    }

    /// One compare-and-set, as a store's statement makes it.
    private static func commit(
        _ request: SaveRequest, by account: Account, in state: inout MemoryCatalog.State, batch: BatchID?
    )
        throws(BookFailure) -> BookRecord
    {
        guard let stored = state.books[request.id], stored.scope == account.scope else { throw .missing }
        guard account.role == .editor else { throw .notAllowed }
        let old = stored.record
        guard old.revision == request.expectedRevision else {
            throw .conflict(expected: request.expectedRevision, actual: old.revision)
        }
        guard old.revision < Int.max else { throw .revisionExhausted }
        // Details are written all together, or (nil) kept as they are.
        let next = BookRecord(
            id: old.id, title: request.title, revision: old.revision + 1, author: request.author ?? old.author,
            details: request.details ?? old.details)
        state.books[old.id]?.record = next
        state.commitCount += 1
        state.committedOperations[request.operation] = next.revision
        state.recordRevision(next, account: account.name, operation: request.operation, batch: batch)
        return next
    }

    // MARK: BatchRecordingRemote

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        let account = self.account
        return try catalog.withState { state throws(BookFailure) in
            guard account.role == .editor else { throw .notAllowed }
            if let undone = start.undoes, state.batches[undone.number]?.scope != account.scope { throw .missing }
            let number = (state.batches.keys.max() ?? 0) + 1
            state.batches[number] = account
            return BatchID(number)
        }
    }

    public func save(_ unchecked: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        let request = try unchecked.validated()
        let account = self.account
        let saved = try catalog.withState { state throws(BookFailure) in
            guard state.batches[batch.number]?.name == account.name else { throw .notAllowed }
            return try Self.commit(request, by: account, in: &state, batch: batch)
        }
        ownCommits += 1
        return saved
    }

    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        let loss = nextAllOrNothingLoss
        nextAllOrNothingLoss = nil
        if loss == .beforeCommit { throw BookFailure.outcomeUnknown }
        let clean = try requests.map { try $0.validated() }
        let account = self.account
        let result = try catalog.withState { state throws(BookFailure) -> AllOrNothingResult in
            guard account.role == .editor else { throw .notAllowed }
            let before = state
            let batch = BatchID((state.batches.keys.max() ?? 0) + 1)
            state.batches[batch.number] = account
            var refused: [Int: BookFailure] = [:]
            var saved: [BookRecord] = []
            for request in clean {
                do throws(BookFailure) {
                    saved.append(try Self.commit(request, by: account, in: &state, batch: batch))
                } catch {
                    refused[request.id] = error
                }
            }
            guard refused.isEmpty else {
                state = before
                return .refused(refused)
            }
            return .committed(batch, saved)
        }
        if case let .committed(_, saved) = result { ownCommits += saved.count }
        if loss == .afterCommit { throw BookFailure.outcomeUnknown }
        return result
    }

    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        let scope = account.scope
        return try catalog.withState { state throws(BookFailure) in
            guard state.batches[batch.number]?.scope == scope else { throw .missing }
            return state.history.keys.sorted().flatMap { id -> [BatchRevision] in
                guard state.books[id]?.scope == scope, let revisions = state.history[id] else { return [] }
                return revisions.filter { $0.batch == batch }.map { made in
                    // As the stores pair them: the revision just before, if the history has it.
                    BatchRevision(
                        before: revisions.first { $0.record.revision == made.record.revision - 1 }?.record,
                        after: made.record)
                }
            }
        }
    }

    public func bookCount() async throws -> Int { catalog.bookCount(scope: account.scope) }

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        let terms = SearchTerms(query.text)
        let scope = account.scope
        let visible = try catalog.withState { state throws(BookFailure) in
            state.books.values.filter { $0.scope == scope }.map(\.record)
        }
        let matches = visible.filter { terms.matchesEverything || terms.matches($0) }
            .map { (key: terms.sortKey($0), record: $0) }
            .sorted { $0.key < $1.key }
            .map(\.record)
        let page = matches.dropFirst(query.offset).prefix(query.limit)
        let shown = Array(page)
        return SearchPage(
            records: shown,
            totalCount: TotalCount(
                counted: matches.count, offset: query.offset, shown: shown.count,
                hasMore: query.offset + shown.count < matches.count),
            source: .memory)
    }

    public func checkForChanges() async throws -> ChangeNotice? {
        let now = try catalog.withState { state throws(BookFailure) in state.commitCount }
        defer { lastSeenCommitCount = now; ownCommits = 0 }
        return now - lastSeenCommitCount > ownCommits ? .unspecified : nil
    }

    public func committedRevision(of operation: UUID) async throws -> Int? {
        try catalog.withState { state throws(BookFailure) in state.committedOperations[operation] }
    }

    public func history(of id: Int) async throws -> [BookRevision] {
        let scope = account.scope
        return try catalog.withState { state throws(BookFailure) in
            guard let stored = state.books[id], stored.scope == scope else { throw .missing }
            return (state.history[id] ?? []).reversed()
        }
    }
}
