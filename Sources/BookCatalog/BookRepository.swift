import Foundation

public enum ReadPolicy: Sendable { case cached, refresh }

/// What a reconciliation found out about a save whose outcome was unknown.
public enum ReconciledSave: Sendable, Equatable {
    /// The save did commit, and this is the record it produced: the book as it stands now.
    case committed(BookRecord)
    /// The save did commit as `revision`, and someone else has saved since: `current` is
    /// theirs, never to be taken for the saver's own record.
    case committedThenChanged(revision: Int, current: BookRecord)
    /// The save did not commit; this is the record as it stands now.
    case notCommitted(current: BookRecord)
}

/// The app's only way to read and write books. It keeps a cache for one account session and
/// guarantees, for every interleaving of its calls:
/// - a load that began before or during a write never publishes into the cache;
/// - the cache never moves a book to a lower revision;
/// - a malformed answer from the remote (wrong id, revision not newer, empty title, details
///   not as a store keeps them) is an error, never a committed update;
/// - a failed or uncertain write leaves no value of that book cached;
/// - nothing enters the cache that is older than a revision the repository has already seen
///   or been told about (by a load, a search, a save's answer or a conflict), whichever path
///   it comes from;
/// - a change notice stops every read that started before it from entering the cache, and
///   a notice that names no books does so for every book;
/// - a read that began after a save of this session was acknowledged, and finds the book at an
///   older revision, is believed: the save is lost (`LostSave`), the book's floor goes down to
///   what the store has, and the loss waits in `lostSaves` for the model to tell the user.
/// Concurrent loads of one book share a single remote call when they start under the same
/// generation. Create a new repository for a new account session: the cache dies with it.
public actor BookRepository {
    private let remote: any SearchableBookRemote
    /// The optional capabilities of this session's remote, asked once when it began (a
    /// remote's capabilities are its type's, and do not change under a session).
    private let operationLog: (any SaveOutcomeRecordingRemote)?
    private let historyKeeper: (any HistoryKeepingRemote)?
    private let changeFeed: (any ChangeDetectingRemote)?
    private let batchLog: (any BatchRecordingRemote)?
    private var cache: [Int: BookRecord] = [:]
    /// Per-book write counters: a read may publish only if its book's counter did not move.
    private var generations: [Int: Int] = [:]
    /// Moved by a change notice that names no books: it concerns every book at once.
    private var allBooksGeneration = 0
    /// Saves of each book that have not answered yet. A read that starts while one runs may
    /// see the store before or after that save's commit, so it never publishes.
    private var writesInFlight: [Int: Int] = [:]
    /// Moves on every write or invalidation of any book: a search may admit its rows only
    /// if nothing moved while it ran.
    private var epoch = 0
    /// The newest record this session has seen of each book: the floor for search rows here,
    /// and for everything the model publishes (it reads this without awaiting the actor).
    public nonisolated let newestSeen = SeenRevisions()
    /// The highest revision of each book known to exist: seen in any answer, or named by a
    /// conflict. The cache never admits anything below it.
    private var knownRevision: [Int: Int] = [:]
    /// The newest save of each book that this session made and the store acknowledged.
    private var acknowledged: [Int: BookRecord] = [:]
    /// Saves of this session the store has since lost, for the model to take.
    public nonisolated let lostSaves = LostSaves()
    /// The reads of every acknowledged save after the remote reconnected, while they run.
    private var verification: Task<Void, Never>?
    private var inFlightLoads: [Int: InFlightLoad] = [:]
    private var nextLoadToken = 0

    /// Where a book's invalidation counters stood when a read began.
    private struct Stamp: Equatable {
        let book: Int
        let allBooks: Int
    }

    private struct InFlightLoad {
        let stamp: Stamp
        let token: Int
        let task: Task<BookRecord, any Error>
        var callers = 1
    }
    /// Tests wait on these to know a load has joined a shared call before they release it.
    private var callerWaiters: [(id: Int, callers: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(remote: any SearchableBookRemote) {
        self.remote = remote
        operationLog = remote as? any SaveOutcomeRecordingRemote
        historyKeeper = remote as? any HistoryKeepingRemote
        changeFeed = remote as? any ChangeDetectingRemote
        batchLog = remote as? any BatchRecordingRemote
    }

    // MARK: Reading

    public func book(id: Int, policy: ReadPolicy) async throws -> BookRecord {
        if policy == .cached, let value = cache[id] { return value }
        let started = stamp(id)
        let mayAdmit = writesInFlight[id, default: 0] == 0
        let loaded = try await sharedLoad(id: id, stamp: started)
        try validate(loaded, id: id)
        if mayAdmit && stamp(id) == started {
            believe(loaded)
            admit(loaded)
        } else {
            remember(loaded)
        }
        return loaded
    }

    /// `book(id:policy: .refresh)` for each of `ids`, read in one call where the remote reads a
    /// chunk of books at once (`ChunkSavingRemote.load(ids:)`), one book at a time otherwise:
    /// each book's record, or why it has none (`missing`: the store does not have it for this
    /// account; `invalidResponse`: what it answered is not a record). Each book is admitted as a
    /// single load's would be: only if no write or notice concerning it ran meanwhile. Throws when
    /// the read as a whole failed.
    public func books(ids: [Int]) async throws -> [Int: Result<BookRecord, BookFailure>] {
        guard let chunks = remote as? any ChunkSavingRemote else {
            var found: [Int: Result<BookRecord, BookFailure>] = [:]
            for id in ids {
                do { found[id] = .success(try await book(id: id, policy: .refresh)) } catch {
                    found[id] = .failure(error as? BookFailure ?? .storeUnavailable(String(describing: error)))
                }
            }
            return found
        }
        guard Set(ids).count == ids.count else { throw BookFailure.invalidResponse }
        var started: [Int: (stamp: Stamp, mayAdmit: Bool)] = [:]
        for id in ids { started[id] = (stamp(id), writesInFlight[id, default: 0] == 0) }
        let loaded = try await chunks.load(ids: ids)
        var found = Dictionary(
            uniqueKeysWithValues: ids.map { ($0, Result<BookRecord, BookFailure>.failure(.missing)) })
        for record in loaded {
            // An id not asked for, or twice: the answer is not the one asked for.
            guard let (stamp, mayAdmit) = started.removeValue(forKey: record.id) else {
                throw BookFailure.invalidResponse
            }
            guard (try? validate(record, id: record.id)) != nil else {
                found[record.id] = .failure(.invalidResponse)
                continue
            }
            found[record.id] = .success(record)
            if mayAdmit && self.stamp(record.id) == stamp {
                believe(record)
                admit(record)
            } else {
                remember(record)
            }
        }
        return found
    }

    /// Searches the remote. Rows are never older than a revision this session has already
    /// seen; rows are admitted to the cache only if no write or invalidation ran meanwhile.
    public func search(_ query: SearchQuery) async throws -> SearchPage {
        let startEpoch = epoch
        let mayAdmit = writesInFlight.isEmpty
        let page = try await remote.search(query)
        for record in page.records {
            guard record.id > 0, Self.isWellFormed(record) else { throw BookFailure.invalidResponse }
        }
        guard page.total >= page.records.count + (page.records.isEmpty ? 0 : query.offset) else {
            throw BookFailure.invalidResponse
        }
        let current = mayAdmit && epoch == startEpoch
        if current { page.records.forEach(believe) }
        let fresh = page.records.map(newestSeen.raise)
        if current { fresh.forEach(admit) } else { fresh.forEach(remember) }
        return page.replacingRecords(fresh)
    }

    /// How many books this account sees, counted exactly by the store. A count is a number,
    /// not records: it teaches the cache and the freshness floor nothing.
    public func bookCount() async throws -> Int {
        let count = try await remote.bookCount()
        guard count >= 0 else { throw BookFailure.invalidResponse }
        return count
    }

    /// The cached value, if any, without touching the remote.
    public func cachedBook(id: Int) -> BookRecord? { cache[id] }

    // MARK: Writing

    public func update(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        let remote = self.remote
        return try await write(request) { try await remote.save($0) }
    }

    /// `save(_:)`, the new revision recorded as `batch`'s (`BatchRecordingRemote`).
    public func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        let batches = try batchRecorder()
        return try await write(request) { try await batches.save($0, inBatch: batch) }
    }

    private func write(_ request: SaveRequest, by send: (SaveRequest) async throws -> BookRecord) async throws
        -> BookRecord
    {
        let clean = try request.validated()
        let id = clean.id
        advance(id)
        cache.removeValue(forKey: id)
        writesInFlight[id, default: 0] += 1
        let started = stamp(id)
        defer { endWrite(id) }
        do {
            let saved = try await send(clean)
            try validate(saved, id: id)
            guard saved.revision > request.expectedRevision else { throw BookFailure.invalidResponse }
            // Another write or a notice since this one began: the answer may already be old.
            let mayAdmit = stamp(id) == started
            advance(id)
            acknowledge(saved)
            if mayAdmit { admit(saved) } else { remember(saved) }
            return saved
        } catch {
            if case let .conflict(_, actual) = error as? BookFailure { learn(revision: actual, of: id) }
            advance(id)
            cache.removeValue(forKey: id)
            throw error
        }
    }

    // MARK: Batches

    public func beginBatch(_ start: BatchStart) async throws -> BatchID {
        try await batchRecorder().beginBatch(start)
    }

    /// Whether the remote saves a chunk of a batch in one transaction (`ChunkSavingRemote`);
    /// otherwise `save(_:inBatch:until:)` saves one book at a time.
    public nonisolated var savesChunks: Bool { remote is any ChunkSavingRemote }

    /// `save(_:inBatch:)` for each of `requests` in order, as one chunk (`ChunkSavingRemote`),
    /// or one after another on a remote without chunks, asking `stop` before each book (or, on a
    /// chunk that is one statement, before it and its commit): one result per book taken. Each
    /// book is written as any save writes it: no read that began before its answer publishes,
    /// and a saved record is acknowledged. A throw (only from a chunk) means no book of it
    /// committed, or, `outcomeUnknown`, that nobody knows.
    public func save(_ requests: [SaveRequest], inBatch batch: BatchID, until stop: BatchStop) async throws
        -> [ChunkSaveResult]
    {
        guard let chunks = remote as? any ChunkSavingRemote else {
            var results: [ChunkSaveResult] = []
            for request in requests {
                if stop.isStopped { break }
                do { results.append(.success(try await save(request, inBatch: batch))) } catch {
                    results.append(.failure(error as? BookFailure ?? .storeUnavailable(String(describing: error))))
                }
            }
            return results
        }
        let clean = try requests.map { try $0.validated() }
        let ids = clean.map(\.id)
        guard Set(ids).count == ids.count else { throw BookFailure.invalidResponse }
        var started: [Stamp] = []
        for id in ids {
            advance(id)
            cache.removeValue(forKey: id)
            writesInFlight[id, default: 0] += 1
            started.append(stamp(id))
        }
        defer { ids.forEach(endWrite) }
        let results: [ChunkSaveResult]
        do {
            results = try await chunks.save(clean, inBatch: batch, until: stop)
        } catch {
            ids.forEach(advance)
            throw error
        }
        guard results.count <= clean.count else { throw BookFailure.invalidResponse }
        for (index, result) in results.enumerated() {
            let (request, id) = (clean[index], ids[index])
            switch result {
            case let .success(saved):
                guard saved.id == id, Self.isWellFormed(saved), saved.revision > request.expectedRevision else {
                    ids.forEach(advance)
                    throw BookFailure.invalidResponse
                }
            case let .failure(reason):
                if case let .conflict(_, actual) = reason { learn(revision: actual, of: id) }
            }
        }
        for (index, id) in ids.enumerated() {
            let mayAdmit = stamp(id) == started[index]
            advance(id)
            guard index < results.count, case let .success(saved) = results[index] else {
                cache.removeValue(forKey: id)
                continue
            }
            acknowledge(saved)
            if mayAdmit { admit(saved) } else { remember(saved) }
        }
        return results
    }

    /// Every save in one transaction of a new batch, or none (`BatchRecordingRemote.saveAll`).
    /// The books are written as any save writes them: no read that began before the answer
    /// publishes, and the saved records are acknowledged, as one save's is.
    public func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        let batches = try batchRecorder()
        let clean = try requests.map { try $0.validated() }
        let ids = clean.map(\.id)
        guard Set(ids).count == ids.count else { throw BookFailure.invalidResponse }
        for id in ids {
            advance(id)
            cache.removeValue(forKey: id)
            writesInFlight[id, default: 0] += 1
        }
        defer { ids.forEach(endWrite) }
        let result: AllOrNothingResult
        do {
            result = try await batches.saveAll(clean, inNewBatch: start)
        } catch {
            ids.forEach(advance)
            throw error
        }
        ids.forEach(advance)
        switch result {
        case let .committed(_, saved):
            let expected = Dictionary(uniqueKeysWithValues: clean.map { ($0.id, $0.expectedRevision) })
            guard saved.count == clean.count,
                saved.allSatisfy({ Self.isWellFormed($0) && $0.revision > expected[$0.id] ?? Int.max })
            else { throw BookFailure.invalidResponse }
            for record in saved {
                acknowledge(record)
                remember(record)
            }
        case let .refused(reasons):
            for (id, reason) in reasons {
                if case let .conflict(_, actual) = reason { learn(revision: actual, of: id) }
            }
        }
        return result
    }

    /// The revisions `batch` made of the books this account sees, checked as history is: each
    /// a book's later revision than the one before it (the next one where revisions count
    /// saves; a later time where they are a `last_modified`, as in a Calibre library).
    public func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] {
        let revisions = try await batchRecorder().revisions(ofBatch: batch)
        for revision in revisions {
            let after = revision.after
            guard Self.isWellFormed(after) else { throw BookFailure.invalidResponse }
            if let before = revision.before {
                guard before.id == after.id, after.revision > before.revision, Self.isWellFormed(before) else {
                    throw BookFailure.invalidResponse
                }
            }
            remember(after)
        }
        return revisions
    }

    private func batchRecorder() throws -> any BatchRecordingRemote {
        guard let batches = batchLog else { throw BookFailure.unsupported }
        return batches
    }

    // MARK: Uncertain saves

    /// Finds out whether a save whose outcome was unknown committed. Uses the store's record
    /// of operation ids when it has one; otherwise the save counts as committed only if the
    /// book is at exactly the next revision and holds exactly the saved fields.
    ///
    /// The log is asked before the book is read: a save that commits between the two reads
    /// then shows in the record, never as "committed" beside the record from before it.
    public func reconcile(_ request: SaveRequest) async throws -> ReconciledSave {
        if let recorder = operationLog {
            let committed = try await recorder.committedRevision(of: request.operation)
            if let committed { learn(revision: committed, of: request.id) }
            let current = try await book(id: request.id, policy: .refresh)
            guard let committed else { return .notCommitted(current: current) }
            // A store that answers with a record older than the commit it just reported
            // leaves the outcome as unknown as it was.
            guard current.revision >= committed else { throw BookFailure.outcomeUnknown }
            if current.revision == committed { acknowledge(current) }
            return current.revision == committed
                ? .committed(current) : .committedThenChanged(revision: committed, current: current)
        }
        let current = try await book(id: request.id, policy: .refresh)
        let sent = try? request.validated()
        let matches =
            current.revision == request.expectedRevision + 1
            && current.title == sent?.title
            && (request.author == nil || current.author == sent?.author)
            && (request.details == nil || current.details == sent?.details)
        if matches { acknowledge(current) }
        return matches ? .committed(current) : .notCommitted(current: current)
    }

    // MARK: History

    /// The book's committed revisions, newest first, straight from the store (history is
    /// never cached). Teaches the repository the newest revision, like any answer does.
    public func history(id: Int) async throws -> [BookRevision] {
        guard let keeping = historyKeeper else { throw BookFailure.unsupported }
        let revisions = try await keeping.history(of: id).validatedHistory(of: id)
        guard revisions.allSatisfy({ Self.hasCanonicalDetails($0.record) }) else { throw BookFailure.invalidResponse }
        if let newest = revisions.first { learn(revision: newest.revision, of: id) }
        return revisions
    }

    // MARK: Freshness

    /// Asks the remote whether someone else committed; if so, forgets what the notice
    /// concerns so the next read goes to the store. Returns the notice for the caller to
    /// refresh what it shows.
    ///
    /// A notice that says the remote reconnected (a restart, or a failover to a promoted
    /// standby) starts `verifyAcknowledgedSaves` and answers without waiting for it: the check
    /// never waits behind reads.
    public func checkForChanges() async throws -> ChangeNotice? {
        guard let detecting = changeFeed else { return nil }
        guard let notice = try await detecting.checkForChanges() else { return nil }
        invalidate(notice)
        if notice.reconnected { verifyAcknowledgedSaves() }
        return notice
    }

    /// Reads again, one after another in a task of its own, each book whose save this session
    /// made and the store acknowledged, whether or not anything shows it: a read that finds an
    /// older revision proves that save lost (`believe`), so every save a failover lost is found
    /// and waits in `lostSaves`, though the user read nothing. A read that fails proves nothing;
    /// the next reconnect, or the next read of the book, tries again. Runs after any verification
    /// still running, so two never race for the same books.
    private func verifyAcknowledgedSaves() {
        let ids = acknowledged.keys.sorted()
        guard !ids.isEmpty else { return }
        let previous = verification
        verification = Task {
            await previous?.value
            for id in ids { _ = try? await self.book(id: id, policy: .refresh) }
        }
    }

    /// Returns once the reads `checkForChanges` started after a reconnect have answered.
    public func acknowledgedSavesVerified() async {
        await verification?.value
    }

    /// Forgets cached values a change notice concerns, and stops every read already in
    /// flight for them (loads and searches) from publishing. A notice that names no books
    /// concerns all of them, cached or not.
    public func invalidate(_ notice: ChangeNotice) {
        epoch += 1
        guard let ids = notice.bookIDs else {
            allBooksGeneration += 1
            cache.removeAll()
            return
        }
        for id in ids {
            advance(id)
            cache.removeValue(forKey: id)
        }
    }

    // MARK: Rules

    private func sharedLoad(id: Int, stamp: Stamp) async throws -> BookRecord {
        if let running = inFlightLoads[id], running.stamp == stamp {
            inFlightLoads[id]?.callers += 1
            resumeCallerWaiters(id: id)
            return try await running.task.value
        }
        nextLoadToken += 1
        let token = nextLoadToken
        let remote = self.remote
        let task = Task { try await remote.load(id: id) }
        inFlightLoads[id] = InFlightLoad(stamp: stamp, token: token, task: task)
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

    private func stamp(_ id: Int) -> Stamp {
        Stamp(book: generations[id, default: 0], allBooks: allBooksGeneration)
    }

    private func endWrite(_ id: Int) {
        let remaining = writesInFlight[id, default: 1] - 1
        writesInFlight[id] = remaining > 0 ? remaining : nil
    }

    private func advance(_ id: Int) {
        let old = generations[id, default: 0]
        precondition(old < Int.max)
        generations[id] = old + 1
        epoch += 1
    }

    private func validate(_ record: BookRecord, id: Int) throws {
        guard record.id == id, Self.isWellFormed(record) else { throw BookFailure.invalidResponse }
    }

    /// What every record a store answers with must be, whichever call answered it.
    private static func isWellFormed(_ record: BookRecord) -> Bool {
        record.revision > 0 && !record.title.isEmpty && hasCanonicalDetails(record)
    }

    /// The details as a store keeps them: the rules give them back unchanged. Others (a tag
    /// list out of order, an ISBN-10, a year out of range) came from no store that keeps the rules.
    private static func hasCanonicalDetails(_ record: BookRecord) -> Bool {
        record.details.isEmpty || (try? record.details.validated()) == record.details
    }

    private func admit(_ record: BookRecord) {
        let floor = knownRevision[record.id, default: 0]
        remember(record)
        guard record.revision >= floor else { return }
        if let old = cache[record.id], old.revision > record.revision { return }
        cache[record.id] = record
    }

    private func acknowledge(_ saved: BookRecord) {
        if let newer = acknowledged[saved.id], newer.revision > saved.revision { return }
        acknowledged[saved.id] = saved
    }

    /// `record` came from a read that began after every save of its book by this session was
    /// answered: if it is older than one of them, that save is lost, and the store is believed.
    private func believe(_ record: BookRecord) {
        guard let saved = acknowledged[record.id], record.revision < saved.revision else { return }
        acknowledged[record.id] = nil
        knownRevision[record.id] = record.revision
        cache.removeValue(forKey: record.id)
        newestSeen.replace(with: record)
        lostSaves.append(LostSave(saved: saved, current: record))
    }

    private func remember(_ record: BookRecord) {
        learn(revision: record.revision, of: record.id)
        newestSeen.note(record)
    }

    /// Notes that `revision` of a book exists: a cached value older than it is stale now.
    private func learn(revision: Int, of id: Int) {
        knownRevision[id] = max(knownRevision[id, default: 0], revision)
        if let cached = cache[id], cached.revision < revision { cache.removeValue(forKey: id) }
    }
}
