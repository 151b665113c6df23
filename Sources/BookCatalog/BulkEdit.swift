/// The use case of one change saved to many books, and of undoing it, over the repository.
///
/// Several saves are not one atomic effect, so the outcome is explicit per book: each book is
/// saved with its own compare-and-set against the revision the batch read, and ends saved,
/// unchanged, merged (someone else changed other fields since: merged per field by
/// `RecordMerge`, then saved against theirs), in conflict (they changed the same field) or
/// failed. Every revision the batch makes carries its batch number, so that it can be undone.
/// All or nothing, when asked, is one transaction of the store instead.
public struct BulkEdit: Sendable {
    public let repository: BookRepository

    /// How many times one book is merged and saved again while others keep saving it first;
    /// past that it fails as a conflict the batch could not get past.
    public static let mergeAttempts = 3
    /// The most books one batch takes.
    public static let maximumBooks = 1_000_000
    /// How many books a store that saves chunks (`ChunkSavingRemote`) saves in one
    /// transaction: each commit's flush is shared by this many books, and a writer beside the
    /// batch waits at most one chunk for the write lock. Bench: `bulk --count 1000000`.
    public static let booksPerTransaction = 1_000
    /// `booksPerTransaction`, but for tests that stop a batch between small chunks.
    private let booksPerChunk: Int

    public init(repository: BookRepository) {
        self.init(repository: repository, booksPerChunk: Self.booksPerTransaction)
    }

    package init(repository: BookRepository, booksPerChunk: Int) {
        self.repository = repository
        self.booksPerChunk = booksPerChunk
    }

    /// What `change` would do to each of `books` as read, saving nothing (a dry run): a book it
    /// would change is `.saved` with the fields it would have, at the revision read.
    public static func preview(_ change: BulkChange, of books: [BookRecord]) -> [BookOutcome] {
        books.map { base in
            switch Result(catching: { () throws(BookFailure) in try change.applied(to: base) }) {
            case let .success(mine):
                BookOutcome(id: base.id, outcome: sameFields(mine, base) ? .unchanged(base) : .saved(mine))
            case let .failure(failure): BookOutcome(id: base.id, outcome: .failed(failure))
            }
        }
    }

    /// Saves `change` to each of `books` (as read: each save names the revision given), one book
    /// after another in the order of their ids (`savingOrder`), in a batch begun before the
    /// first save (none when nothing is saved). `progress` hears each book's outcome as it is
    /// known. Stops before the next book once `stop` says so; the books not taken are in the
    /// report, which lists every book in the order of `books`.
    public func apply(
        _ change: BulkChange, to books: [BookRecord], stop: BatchStop = BatchStop(),
        progress: @Sendable (BookOutcome) -> Void = { _ in }
    ) async throws -> BatchReport {
        try Self.checkBatchSize(books.map(\.id))
        let byID = Dictionary(uniqueKeysWithValues: books.map { ($0.id, $0) })
        return try await run(Self.savingOrder(books).map(\.id), start: BatchStart(), stop: stop, progress: progress) {
            ids in
            ids.map { id in
                let base = byID[id]!
                do { return .save(base: base, mine: try change.applied(to: base)) } catch {
                    return .settled(.failed(Self.failure(error)))
                }
            }
        }.ordered(as: books.map(\.id))
    }

    /// Saves `change` to every one of `books` in one transaction of the store, or to none. A
    /// book someone else changed since it was read is merged and the whole is tried again; if
    /// any book conflicts or fails, nothing is saved, no batch is made, and the report lists
    /// those books (the others are not taken).
    public func applyAllOrNothing(_ change: BulkChange, to marked: [BookRecord]) async throws -> BatchReport {
        try Self.checkBatchSize(marked.map(\.id))
        let books = Self.savingOrder(marked)
        var pending: [(base: BookRecord, mine: BookRecord, merged: Bool)] = []
        var settled: [Int: BulkOutcome] = [:]
        for base in books {
            do {
                let mine = try change.applied(to: base)
                if Self.sameFields(mine, base) {
                    settled[base.id] = .unchanged(base)
                } else {
                    pending.append((base, mine, false))
                }
            } catch { settled[base.id] = .failed(Self.failure(error)) }
        }
        let order = marked.map(\.id)
        func refused() -> BatchReport {
            let listed = order.filter { id in
                switch settled[id] {
                case .conflict, .failed: true
                default: false
                }
            }
            return BatchReport(
                batch: nil, outcomes: listed.map { BookOutcome(id: $0, outcome: settled[$0]!) },
                notTaken: order.filter { !listed.contains($0) })
        }
        if settled.values.contains(where: { if case .failed = $0 { true } else { false } }) { return refused() }
        for attempt in 1...Self.mergeAttempts {
            guard !pending.isEmpty else { break }
            let requests = pending.map { Self.request(saving: $0.mine, over: $0.base) }
            let answer: AllOrNothingResult
            do {
                answer = try await repository.saveAll(requests, inNewBatch: BatchStart())
            } catch BookFailure.outcomeUnknown {
                // The answer was lost (a connection cut during COMMIT): found out from the store.
                guard let committed = try await committedBatch(of: requests) else {
                    for book in pending { settled[book.base.id] = .failed(Self.lostBeforeCommit) }
                    return refused()
                }
                answer = .committed(committed.batch, committed.saved)
            }
            switch answer {
            case let .committed(batch, saved):
                let byID = Dictionary(uniqueKeysWithValues: saved.map { ($0.id, $0) })
                for book in pending {
                    guard let record = byID[book.base.id] else { throw BookFailure.invalidResponse }
                    settled[book.base.id] = book.merged ? .merged(record, theirs: book.base.revision) : .saved(record)
                }
                return BatchReport(batch: batch, outcomes: order.map { BookOutcome(id: $0, outcome: settled[$0]!) })
            case let .refused(reasons):
                guard !reasons.isEmpty else { throw BookFailure.invalidResponse }
                var next: [(base: BookRecord, mine: BookRecord, merged: Bool)] = []
                for book in pending {
                    let id = book.base.id
                    guard let reason = reasons[id] else {
                        next.append(book)
                        continue
                    }
                    guard case let .conflict(_, actual) = reason else {
                        settled[id] = .failed(reason)
                        continue
                    }
                    guard attempt < Self.mergeAttempts else {
                        settled[id] = .failed(.conflict(expected: book.base.revision, actual: actual))
                        continue
                    }
                    let theirs: BookRecord
                    do { theirs = try await repository.book(id: id, policy: .refresh) } catch {
                        settled[id] = .failed(Self.failure(error))
                        continue
                    }
                    let merge = RecordMerge(base: book.base, theirs: theirs, mine: book.mine)
                    if !merge.conflicts.isEmpty {
                        settled[id] = .conflict(fields: merge.conflicts, theirs: theirs)
                    } else if Self.sameFields(merge.merged, theirs) {
                        settled[id] = .unchanged(theirs)
                    } else {
                        next.append((theirs, merge.merged, true))
                    }
                }
                if settled.values.contains(where: Self.refusesAll) { return refused() }
                pending = next
            }
        }
        return BatchReport(batch: nil, outcomes: order.map { BookOutcome(id: $0, outcome: settled[$0]!) })
    }

    /// Why each book of an all-or-nothing batch failed whose transaction was found not to have
    /// committed after its answer was lost.
    static let lostBeforeCommit = BookFailure.storeUnavailable(
        "the connection was lost before the batch committed; nothing of it was saved")

    /// Whether the all-or-nothing save of `requests`, whose answer was lost, committed, and if so
    /// its batch and what each book became. It was one transaction, so the first request's
    /// operation id tells for all (`BookRepository.reconcile`); the book's history names the
    /// batch, whose revisions give every book's. Still `outcomeUnknown` when the store cannot
    /// say which batch it was (no history).
    private func committedBatch(of requests: [SaveRequest]) async throws -> (batch: BatchID, saved: [BookRecord])? {
        let probe = requests[0]
        if case .notCommitted = try await repository.reconcile(probe) { return nil }
        do {
            let history = try await repository.history(id: probe.id)
            guard let batch = history.first(where: { $0.operation == probe.operation })?.batch else {
                throw BookFailure.outcomeUnknown
            }
            let revisions = try await repository.revisions(ofBatch: batch)
            let after = Dictionary(revisions.map { ($0.after.id, $0.after) }, uniquingKeysWith: { $1 })
            return (batch, requests.compactMap { after[$0.id] })
        } catch {
            throw BookFailure.outcomeUnknown
        }
    }

    /// Reverts each book `batch` changed, as a new revision in a new batch (which can be undone
    /// in turn), with the same compare-and-set. A book changed since the batch has only the
    /// batch's own fields reverted, merged per field; where the later change touched the same
    /// field, it is a conflict, and the book is left as it is.
    public func undo(
        _ batch: BatchID, stop: BatchStop = BatchStop(), progress: @Sendable (BookOutcome) -> Void = { _ in }
    ) async throws -> BatchReport {
        let revisions = try await repository.revisions(ofBatch: batch)
        // A batch saves each book once; were there several, the first's before and the last's after.
        var span: [Int: BatchRevision] = [:]
        for revision in revisions {
            let id = revision.after.id
            guard let known = span[id] else {
                span[id] = revision
                continue
            }
            let earlier = known.after.revision < revision.after.revision ? known : revision
            let later = earlier == known ? revision : known
            span[id] = BatchRevision(before: earlier.before, after: later.after)
        }
        let ids = span.keys.sorted()
        try Self.checkBatchSize(ids)
        let repository = self.repository
        return try await run(ids, start: BatchStart(undoes: batch), stop: stop, progress: progress) { ids in
            // The books as they are now, read for the whole chunk at once.
            let read: Result<[Int: Result<BookRecord, BookFailure>], BookFailure>
            do {
                read = .success(try await repository.books(ids: ids.filter { span[$0]!.before != nil }))
            } catch {
                read = .failure(Self.failure(error))
            }
            return ids.map { id in
                let made = span[id]!
                guard let before = made.before else { return .settled(.failed(.unrecordedBeforeBatch)) }
                let current: BookRecord
                switch read.flatMap({ $0[id] ?? .failure(.missing) }) {
                case let .failure(failure): return .settled(.failed(failure))
                case let .success(book): current = book
                }
                // Theirs is the book now, mine the book before the batch, over what the batch made.
                let revert = RecordMerge(base: made.after, theirs: current, mine: before)
                guard revert.conflicts.isEmpty else {
                    return .settled(.conflict(fields: revert.conflicts, theirs: current))
                }
                return .save(base: current, mine: revert.merged)
            }
        }
    }

    // MARK: One book at a time

    /// What to do with one book: save `mine` over `base`, or nothing (its outcome is known).
    enum Plan {
        case save(base: BookRecord, mine: BookRecord)
        case settled(BulkOutcome)
    }

    /// `plan` says what to do with each book of a chunk (one book, on a store that saves one at
    /// a time), in the chunk's order, just before the chunk is saved.
    private func run(
        _ ids: [Int], start: BatchStart, stop: BatchStop, progress: @Sendable (BookOutcome) -> Void,
        plan: ([Int]) async -> [Plan]
    ) async throws -> BatchReport {
        var batch: BatchID?
        let begin = { () async throws -> BatchID in
            if let batch { return batch }
            let begun = try await repository.beginBatch(start)
            batch = begun
            return begun
        }
        var outcomes: [BookOutcome] = []
        let chunk = repository.savesChunks ? booksPerChunk : 1
        var index = 0
        while index < ids.count {
            if stop.isStopped { return BatchReport(batch: batch, outcomes: outcomes, notTaken: Array(ids[index...])) }
            let taken: [BookOutcome]
            if chunk == 1 {
                taken = [BookOutcome(id: ids[index], outcome: try await settle(plan([ids[index]])[0], batch: begin))]
            } else {
                taken = try await settle(
                    ids[index..<min(index + chunk, ids.count)], stop: stop, batch: begin, plan: plan)
            }
            for done in taken {
                outcomes.append(done)
                progress(done)
            }
            index += taken.count
            if taken.isEmpty { break }
        }
        if index < ids.count {
            return BatchReport(batch: batch, outcomes: outcomes, notTaken: Array(ids[index...]))
        }
        return BatchReport(batch: batch, outcomes: outcomes)
    }

    private func settle(_ plan: Plan, batch: () async throws -> BatchID) async throws -> BulkOutcome {
        switch plan {
        case let .settled(known): known
        case let .save(base, mine): try await settle(base: base, mine: mine, batch: batch)
        }
    }

    /// The books of `ids` saved as one chunk (`ChunkSavingRemote`), each with its own outcome:
    /// a book the chunk could not save as read goes on as one book alone does (merged and saved
    /// again, or reconciled), before the next chunk. Once `stop` says so (the store asks it as
    /// its `chunkStopping` says), the books after the last one taken are not in the answer.
    private func settle(
        _ ids: ArraySlice<Int>, stop: BatchStop, batch: () async throws -> BatchID, plan: ([Int]) async -> [Plan]
    ) async throws -> [BookOutcome] {
        let plans = Array(zip(ids, await plan(Array(ids))))
        var saving: [(base: BookRecord, mine: BookRecord, request: SaveRequest)] = []
        for case let (_, .save(base, mine)) in plans where !Self.sameFields(mine, base) {
            saving.append((base, mine, Self.request(saving: mine, over: base)))
        }
        var results: [ChunkSaveResult] = []
        var thrown: BookFailure?
        if !saving.isEmpty {
            let number = try await batch()
            do {
                results = try await repository.save(saving.map(\.request), inBatch: number, until: stop)
            } catch {
                thrown = Self.failure(error)
            }
        }
        var outcomes: [BookOutcome] = []
        var next = 0
        for (id, plan) in plans {
            guard case let .save(base, mine) = plan, !Self.sameFields(mine, base) else {
                outcomes.append(BookOutcome(id: id, outcome: try await settle(plan, batch: batch)))
                continue
            }
            defer { next += 1 }
            let first: ChunkSaveResult
            if let thrown {
                // Nothing of the chunk committed (or, unknown, it is found out book by book).
                if stop.isStopped { break }
                guard thrown == .outcomeUnknown else {
                    outcomes.append(
                        BookOutcome(id: id, outcome: try await settle(base: base, mine: mine, batch: batch)))
                    continue
                }
                first = .failure(.outcomeUnknown)
            } else {
                guard next < results.count else { break }
                first = results[next]
            }
            let outcome = try await settle(
                base: base, mine: mine, batch: batch, first: (saving[next].request, first))
            outcomes.append(BookOutcome(id: id, outcome: outcome))
        }
        return outcomes
    }

    /// Saves one book, merging as long as someone else saved other fields first. Only the
    /// batch's beginning throws: it comes before any save, so nothing of the batch is lost.
    ///
    /// `first` is the answer to the first save of `mine` over `read` when a chunk already sent it.
    private func settle(
        base read: BookRecord, mine wanted: BookRecord, batch: () async throws -> BatchID,
        first: (request: SaveRequest, answer: ChunkSaveResult)? = nil
    ) async throws -> BulkOutcome {
        var (base, mine, merged) = (read, wanted, false)
        var answered = first
        for _ in 1...Self.mergeAttempts {
            if Self.sameFields(mine, base) { return .unchanged(base) }
            let request = answered?.request ?? Self.request(saving: mine, over: base)
            let sent = answered?.answer
            answered = nil
            let number = sent == nil ? try await batch() : nil
            let theirs: BookRecord
            do {
                let saved =
                    if let sent { try sent.get() } else { try await repository.save(request, inBatch: number!) }
                return merged ? .merged(saved, theirs: base.revision) : .saved(saved)
            } catch BookFailure.conflict {
                do { theirs = try await repository.book(id: base.id, policy: .refresh) } catch {
                    return .failed(Self.failure(error))
                }
            } catch BookFailure.outcomeUnknown {
                let found: ReconciledSave
                do { found = try await repository.reconcile(request) } catch { return .failed(Self.failure(error)) }
                switch found {
                case let .committed(record):
                    return merged ? .merged(record, theirs: base.revision) : .saved(record)
                case let .committedThenChanged(revision, _):
                    // What committed is what was sent: mine, at the revision the store reported.
                    let record = BookRecord(
                        id: mine.id, title: mine.title, revision: revision, author: mine.author, details: mine.details)
                    return merged ? .merged(record, theirs: base.revision) : .saved(record)
                case let .notCommitted(current):
                    guard current.revision != base.revision else { continue }
                    theirs = current
                }
            } catch {
                return .failed(Self.failure(error))
            }
            let merge = RecordMerge(base: base, theirs: theirs, mine: mine)
            guard merge.conflicts.isEmpty else { return .conflict(fields: merge.conflicts, theirs: theirs) }
            (base, mine, merged) = (theirs, merge.merged, true)
        }
        if Self.sameFields(mine, base) { return .unchanged(base) }
        return .failed(.conflict(expected: read.revision, actual: base.revision))
    }

    // MARK: Rules

    static func request(saving mine: BookRecord, over base: BookRecord) -> SaveRequest {
        SaveRequest(
            id: base.id, title: mine.title, author: mine.author, details: mine.details, expectedRevision: base.revision)
    }

    /// `books` in the order a batch saves them: by id, the order the store keeps its rows and
    /// their history in, so that the books of one transaction share pages (in the order a search
    /// ranked them, each book of a chunk wrote pages of its own, about three times as many).
    /// Bench: `bookshelf-bench bulk --count 1000000`.
    static func savingOrder(_ books: [BookRecord]) -> [BookRecord] { books.sorted { $0.id < $1.id } }

    static func sameFields(_ one: BookRecord, _ other: BookRecord) -> Bool {
        one.title == other.title && one.author == other.author && one.details == other.details
    }

    private static func refusesAll(_ outcome: BulkOutcome) -> Bool {
        switch outcome {
        case .conflict, .failed: true
        default: false
        }
    }

    private static func checkBatchSize(_ ids: [Int]) throws {
        guard ids.count <= maximumBooks else {
            throw BookFailure.storeUnavailable("a batch takes at most \(maximumBooks) books, not \(ids.count)")
        }
        guard Set(ids).count == ids.count else { throw BookFailure.invalidResponse }
    }

    static func failure(_ error: any Error) -> BookFailure {
        error as? BookFailure ?? .storeUnavailable(String(describing: error))
    }
}
