import Locking

/// What became of one book of a batch. Saving several books is not one atomic effect: each
/// book's save is its own compare-and-set, and each has its own outcome.
public enum BulkOutcome: Sendable, Equatable {
    /// Saved as this new revision.
    case saved(BookRecord)
    /// Nothing to do: the book already was as the change would make it (as this record).
    case unchanged(BookRecord)
    /// Someone else saved other fields since the batch read the book: saved as this revision,
    /// the change merged into theirs (`theirs` is the revision merged with).
    case merged(BookRecord, theirs: Int)
    /// Someone else changed these same fields since the batch read the book; nothing was
    /// saved, and the book is as they left it (`theirs`).
    case conflict(fields: [BookField], theirs: BookRecord)
    /// Not saved, for this reason.
    case failed(BookFailure)

    /// The word `--json` and the summary use: saved, unchanged, merged, conflict, failed.
    public var name: String {
        switch self {
        case .saved: "saved"
        case .unchanged: "unchanged"
        case .merged: "merged"
        case .conflict: "conflict"
        case .failed: "failed"
        }
    }

    /// The book's revision after this outcome: the new one, the current one, theirs; nil on failure.
    public var revision: Int? {
        switch self {
        case let .saved(record), let .unchanged(record), let .merged(record, _): record.revision
        case let .conflict(_, theirs): theirs.revision
        case .failed: nil
        }
    }

    /// Whether this outcome made a revision in the batch.
    public var madeRevision: Bool {
        switch self {
        case .saved, .merged: true
        case .unchanged, .conflict, .failed: false
        }
    }
}

/// One book's outcome in a batch.
public struct BookOutcome: Sendable, Equatable {
    public let id: Int
    public let outcome: BulkOutcome

    public init(id: Int, outcome: BulkOutcome) {
        self.id = id
        self.outcome = outcome
    }
}

/// How many books had each outcome.
public struct OutcomeCounts: Sendable, Equatable {
    public var saved = 0, unchanged = 0, merged = 0, conflicts = 0, failed = 0

    public init() {}

    public init(_ outcomes: [BookOutcome]) {
        for outcome in outcomes { add(outcome.outcome) }
    }

    public mutating func add(_ outcome: BulkOutcome) {
        switch outcome {
        case .saved: saved += 1
        case .unchanged: unchanged += 1
        case .merged: merged += 1
        case .conflict: conflicts += 1
        case .failed: failed += 1
        }
    }
}

/// What a batch did: its number (none for a dry run, or an all-or-nothing batch that saved
/// nothing), each book's outcome in the order they were taken, and the books it never took
/// because its session ended first.
public struct BatchReport: Sendable, Equatable {
    public let batch: BatchID?
    public let outcomes: [BookOutcome]
    public let notTaken: [Int]

    public init(batch: BatchID?, outcomes: [BookOutcome], notTaken: [Int] = []) {
        self.batch = batch
        self.outcomes = outcomes
        self.notTaken = notTaken
    }

    public var counts: OutcomeCounts { OutcomeCounts(outcomes) }

    /// The same report with its outcomes, and the books not taken, in the order of `ids` (the
    /// order the books were marked in; a batch saves them in another, `BulkEdit.savingOrder`).
    func ordered(as ids: [Int]) -> BatchReport {
        let place = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Each place is looked up once and the sort moves indices, not outcomes: sorting the
        // outcomes by a lookup in each comparison was a tenth of a bulk edit's client time.
        func inPlaceOrder<Element>(_ elements: [Element], id: (Element) -> Int) -> [Element] {
            let places = elements.map { place[id($0)] ?? Int.max }
            return elements.indices.sorted { places[$0] < places[$1] }.map { elements[$0] }
        }
        return BatchReport(
            batch: batch, outcomes: inPlaceOrder(outcomes, id: \.id), notTaken: inPlaceOrder(notTaken, id: { $0 }))
    }
}

/// Tells a running batch that the session it belongs to has ended (an account or library
/// switch): it stops before its next book. Whatever it committed stays committed and recorded
/// in its batch.
public final class BatchStop: Sendable {
    private struct State {
        var stopped = false
        /// What cancels the store's work in flight, while `cancelling(with:_:)` runs it.
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    /// How many more times `isStopped` says no before it says yes by itself (nil: never).
    private let answersBeforeStopping: Locked<Int?>

    public init() { answersBeforeStopping = Locked(nil) }

    /// A stop that stops once it has been asked `answers` times: for tests that stop a batch at
    /// a chosen book inside a store's transaction, where nothing else runs to call `stop()`.
    package init(stoppingAfter answers: Int) { answersBeforeStopping = Locked(answers) }

    /// Stops the batch, and cancels the store's work in flight if it gave a way to
    /// (`cancelling(with:_:)`). The cancel runs on this thread, once.
    public func stop() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.stopped = true
            defer { state.cancel = nil }
            return state.cancel
        }
        cancel?()
    }

    public var isStopped: Bool {
        let due = answersBeforeStopping.withLock { left -> Bool in
            guard let remaining = left else { return false }
            left = remaining - 1
            return remaining <= 0
        }
        if due { stop() }
        return state.withLock { $0.stopped }
    }

    /// Runs `body` (a store's work that takes many books at once, such as one statement for a
    /// whole chunk) with `cancel` called if the batch is stopped while it runs, so that the stop
    /// need not wait for it. `cancel` may come just as `body` ends: whoever runs `body` still
    /// asks `isStopped` before committing it. A stop that came before is `body`'s caller's to
    /// see; `cancel` is not called for it.
    public func cancelling<T>(with cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        state.withLock { $0.cancel = cancel }
        defer { state.withLock { $0.cancel = nil } }
        return try body()
    }
}
