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

    public init(repository: BookRepository) { self.repository = repository }

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
    /// after another, in a batch begun before the first save (none when nothing is saved).
    /// `progress` hears each book's outcome as it is known. Stops before the next book once
    /// `stop` says so; the books not taken are in the report.
    public func apply(
        _ change: BulkChange, to books: [BookRecord], stop: BatchStop = BatchStop(),
        progress: @Sendable (BookOutcome) -> Void = { _ in }
    ) async throws -> BatchReport {
        try Self.checkBatchSize(books.map(\.id))
        let byID = Dictionary(uniqueKeysWithValues: books.map { ($0.id, $0) })
        return try await run(books.map(\.id), start: BatchStart(), stop: stop, progress: progress) { id in
            let base = byID[id]!
            do { return .save(base: base, mine: try change.applied(to: base)) } catch {
                return .settled(.failed(Self.failure(error)))
            }
        }
    }

    /// Saves `change` to every one of `books` in one transaction of the store, or to none. A
    /// book someone else changed since it was read is merged and the whole is tried again; if
    /// any book conflicts or fails, nothing is saved, no batch is made, and the report lists
    /// those books (the others are not taken).
    public func applyAllOrNothing(_ change: BulkChange, to books: [BookRecord]) async throws -> BatchReport {
        try Self.checkBatchSize(books.map(\.id))
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
        let order = books.map(\.id)
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
            switch try await repository.saveAll(requests, inNewBatch: BatchStart()) {
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
            span[id] = BatchRevision(
                before: known.before.revision < revision.before.revision ? known.before : revision.before,
                after: known.after.revision > revision.after.revision ? known.after : revision.after)
        }
        let ids = span.keys.sorted()
        try Self.checkBatchSize(ids)
        let repository = self.repository
        return try await run(ids, start: BatchStart(undoes: batch), stop: stop, progress: progress) { id in
            let made = span[id]!
            let current: BookRecord
            do { current = try await repository.book(id: id, policy: .refresh) } catch {
                return .settled(.failed(Self.failure(error)))
            }
            // Theirs is the book now, mine the book before the batch, over what the batch made.
            let revert = RecordMerge(base: made.after, theirs: current, mine: made.before)
            guard revert.conflicts.isEmpty else {
                return .settled(.conflict(fields: revert.conflicts, theirs: current))
            }
            return .save(base: current, mine: revert.merged)
        }
    }

    // MARK: One book at a time

    /// What to do with one book: save `mine` over `base`, or nothing (its outcome is known).
    enum Plan {
        case save(base: BookRecord, mine: BookRecord)
        case settled(BulkOutcome)
    }

    private func run(
        _ ids: [Int], start: BatchStart, stop: BatchStop, progress: @Sendable (BookOutcome) -> Void,
        plan: (Int) async -> Plan
    ) async throws -> BatchReport {
        var batch: BatchID?
        var outcomes: [BookOutcome] = []
        for (index, id) in ids.enumerated() {
            if stop.isStopped { return BatchReport(batch: batch, outcomes: outcomes, notTaken: Array(ids[index...])) }
            let outcome: BulkOutcome
            switch await plan(id) {
            case let .settled(known):
                outcome = known
            case let .save(base, mine):
                outcome = try await settle(base: base, mine: mine) {
                    if let batch { return batch }
                    let begun = try await repository.beginBatch(start)
                    batch = begun
                    return begun
                }
            }
            let done = BookOutcome(id: id, outcome: outcome)
            outcomes.append(done)
            progress(done)
        }
        return BatchReport(batch: batch, outcomes: outcomes)
    }

    /// Saves one book, merging as long as someone else saved other fields first. Only the
    /// batch's beginning throws: it comes before any save, so nothing of the batch is lost.
    private func settle(base read: BookRecord, mine wanted: BookRecord, batch: () async throws -> BatchID)
        async throws -> BulkOutcome
    {
        var (base, mine, merged) = (read, wanted, false)
        for _ in 1...Self.mergeAttempts {
            if Self.sameFields(mine, base) { return .unchanged(base) }
            let request = Self.request(saving: mine, over: base)
            let number = try await batch()
            let theirs: BookRecord
            do {
                let saved = try await repository.save(request, inBatch: number)
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
