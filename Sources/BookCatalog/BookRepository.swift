import Foundation

public enum ReadPolicy: Sendable { case cached, refresh }

/// What a reconciliation found out about a save whose outcome was unknown.
public enum ReconciledSave: Sendable, Equatable {
    /// The save did commit; this is the record it produced (or a later one).
    case committed(BookRecord)
    /// The save did not commit; this is the record as it stands now.
    case notCommitted(current: BookRecord)
}

/// The app's only way to read and write books. It keeps a cache for one account session and
/// guarantees, for every interleaving of its calls:
/// - a load that began before or during a write never publishes into the cache;
/// - the cache never moves a book to a lower revision;
/// - a malformed answer from the remote (wrong id, revision not newer, empty title) is an
///   error, never a committed update;
/// - a failed or uncertain write leaves no value of that book cached.
/// Concurrent loads of one book share a single remote call when they start under the same
/// generation. Create a new repository for a new account session: the cache dies with it.
public actor BookRepository {
    private let remote: any BookRemote
    private var cache: [Int: BookRecord] = [:]
    /// Per-book write counters: a load may publish only if its book's counter did not move.
    private var generations: [Int: Int] = [:]
    /// Moves on every write or invalidation of any book: a search may admit its rows only
    /// if nothing moved while it ran.
    private var epoch = 0
    /// The newest revision this session has seen of each book, as a floor for search rows.
    private var newestSeen: [Int: BookRecord] = [:]
    private var inFlightLoads: [Int: InFlightLoad] = [:]
    private var nextLoadToken = 0

    private struct InFlightLoad {
        let generation: Int
        let token: Int
        let task: Task<BookRecord, any Error>
        var callers = 1
    }
    /// Tests wait on these to know a load has joined a shared call before they release it.
    private var callerWaiters: [(id: Int, callers: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(remote: any BookRemote) { self.remote = remote }

    // MARK: Reading

    public func book(id: Int, policy: ReadPolicy) async throws -> BookRecord {
        if policy == .cached, let value = cache[id] { return value }
        let generation = generations[id, default: 0]
        let loaded = try await sharedLoad(id: id, generation: generation)
        try validate(loaded, id: id)
        if generations[id, default: 0] == generation { admit(loaded) }
        return loaded
    }

    /// Searches the remote. Rows are never older than a revision this session has already
    /// seen; rows are admitted to the cache only if no write or invalidation ran meanwhile.
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        guard let searchable = remote as? any SearchableBookRemote else { throw BookFailure.unsupported }
        let startEpoch = epoch
        let page = try await searchable.search(query)
        for record in page.records {
            guard record.id > 0, record.revision > 0, !record.title.isEmpty else { throw BookFailure.invalidResponse }
        }
        guard page.total >= page.records.count + (page.records.isEmpty ? 0 : query.offset) else {
            throw BookFailure.invalidResponse
        }
        let fresh = page.records.map { record in
            if let seen = newestSeen[record.id], seen.revision > record.revision { return seen }
            return record
        }
        if epoch == startEpoch { fresh.forEach(admit) } else { fresh.forEach(remember) }
        return page.replacingRecords(fresh)
    }

    /// The cached value, if any, without touching the remote.
    public func cachedBook(id: Int) -> BookRecord? { cache[id] }

    // MARK: Writing

    public func update(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        let clean = try request.validated()
        let id = clean.id
        advance(id)
        cache.removeValue(forKey: id)
        do {
            let saved = try await remote.save(clean)
            try validate(saved, id: id)
            guard saved.revision > request.expectedRevision else { throw BookFailure.invalidResponse }
            advance(id)
            admit(saved)
            return saved
        } catch {
            advance(id)
            cache.removeValue(forKey: id)
            throw error
        }
    }

    /// Finds out whether a save whose outcome was unknown committed. Uses the store's record
    /// of operation ids when it has one; otherwise the save counts as committed only if the
    /// book is at exactly the next revision and holds exactly the saved fields.
    public func reconcile(_ request: SaveRequest) async throws -> ReconciledSave {
        let current = try await book(id: request.id, policy: .refresh)
        if let recorder = remote as? any SaveOutcomeRecordingRemote {
            let committed = try await recorder.committedRevision(of: request.operation)
            return committed == nil ? .notCommitted(current: current) : .committed(current)
        }
        let sent = try? request.validated()
        let matches = current.revision == request.expectedRevision + 1
            && current.title == sent?.title
            && (request.author == nil || current.author == sent?.author)
        return matches ? .committed(current) : .notCommitted(current: current)
    }

    // MARK: Freshness

    /// Asks the remote whether someone else committed; if so, forgets what the notice
    /// concerns so the next read goes to the store. Returns the notice for the caller to
    /// refresh what it shows.
    public func checkForChanges() async throws -> ChangeNotice? {
        guard let detecting = remote as? any ChangeDetectingRemote else { return nil }
        guard let notice = try await detecting.checkForChanges() else { return nil }
        invalidate(notice)
        return notice
    }

    /// Forgets cached values a change notice concerns, and stops loads already in flight
    /// for them from publishing.
    public func invalidate(_ notice: ChangeNotice) {
        let ids = notice.bookIDs ?? Set(cache.keys).union(inFlightLoads.keys)
        for id in ids {
            advance(id)
            cache.removeValue(forKey: id)
        }
    }

    // MARK: Rules

    private func sharedLoad(id: Int, generation: Int) async throws -> BookRecord {
        if let running = inFlightLoads[id], running.generation == generation {
            inFlightLoads[id]?.callers += 1
            resumeCallerWaiters(id: id)
            return try await running.task.value
        }
        nextLoadToken += 1
        let token = nextLoadToken
        let remote = self.remote
        let task = Task { try await remote.load(id: id) }
        inFlightLoads[id] = InFlightLoad(generation: generation, token: token, task: task)
        defer { if inFlightLoads[id]?.token == token { inFlightLoads[id] = nil } }
        return try await task.value
    }

    /// Suspends until `callers` callers await one shared in-flight load of `id`.
    func waitForSharedLoad(id: Int, callers: Int) async {
        if (inFlightLoads[id]?.callers ?? 0) >= callers { return }
        await withCheckedContinuation { callerWaiters.append((id, callers, $0)) }
    }

    private func resumeCallerWaiters(id: Int) {
        let count = inFlightLoads[id]?.callers ?? 0
        let ready = callerWaiters.filter { $0.id == id && $0.callers <= count }
        callerWaiters.removeAll { $0.id == id && $0.callers <= count }
        ready.forEach { $0.continuation.resume() }
    }

    private func advance(_ id: Int) {
        let old = generations[id, default: 0]
        precondition(old < Int.max)
        generations[id] = old + 1
        epoch += 1
    }

    private func validate(_ record: BookRecord, id: Int) throws {
        guard record.id == id, record.revision > 0, !record.title.isEmpty else {
            throw BookFailure.invalidResponse
        }
    }

    private func admit(_ record: BookRecord) {
        remember(record)
        if let old = cache[record.id], old.revision > record.revision { return }
        cache[record.id] = record
    }

    private func remember(_ record: BookRecord) {
        if let seen = newestSeen[record.id], seen.revision >= record.revision { return }
        newestSeen[record.id] = record
    }
}
