import BookCatalog
import Locking
import TerminalSafeText

/// How far a running batch has got: written by the batch as each book's outcome is known, read
/// by the screen (through `BatchState`) without waiting. It belongs to one batch of one session:
/// a new session drops the batch, and with it the meter, so nothing of it shows there.
final class BatchMeter: Sendable {
    private let tally = Locked((done: 0, counts: OutcomeCounts()))

    func record(_ outcome: BookOutcome) {
        tally.withLock {
            $0.done += 1
            $0.counts.add(outcome.outcome)
        }
    }

    var reading: (done: Int, counts: OutcomeCounts) { tally.withLock { $0 } }
}

/// The saves of a batch, as the runner calls them: an effect's body.
typealias BatchSaves = @Sendable () async throws -> BatchReport

/// A batch this session started: running, then its report.
struct BulkBatch {
    let stop = BatchStop()
    let meter = BatchMeter()
    let total: Int
    let allOrNothing: Bool
    /// What the change was, for the summary ("Add tags").
    let change: String
    /// The books' titles as read, for the outcome list (a failed book has no record of its own).
    let titles: [Int: String]
    /// How the store's revisions read (a merge's and a conflict's reason say one).
    var revisions = RevisionStyle.counter
    /// Each book as the batch read it, and as the change makes it: a conflict opens with these.
    let plans: [Int: (base: BookRecord, mine: BookRecord)]
    /// Marked books that could not be read.
    let unreadable: [BookOutcome]
    /// The batch this one undoes, if it is an undo.
    var undoes: BatchID?
    var report: BatchReport?
    var error: String?
    var isListOpen = false
    var selection = 0

    var isRunning: Bool { report == nil && error == nil }

    /// Every book's outcome, the ones that could not be read first.
    var outcomes: [BookOutcome] { unreadable + (report?.outcomes ?? []) }

    var state: BatchState {
        var state = BatchState(total: total + unreadable.count, allOrNothing: allOrNothing, change: change)
        state.isRunning = isRunning
        state.error = error
        state.isListOpen = isListOpen
        state.undoes = undoes
        if let report {
            state.batch = report.batch
            state.counts = OutcomeCounts(outcomes)
            state.done = outcomes.count
            state.notTaken = report.notTaken.count
            state.savedNothing = allOrNothing && report.batch == nil
            state.rows = outcomes.map { BatchOutcomeRow($0, title: titles[$0.id] ?? "", revisions: revisions) }
            state.selection = state.rows.isEmpty ? nil : min(selection, state.rows.count - 1)
        } else {
            let reading = meter.reading
            state.done = reading.done + unreadable.count
            state.counts = reading.counts
            for outcome in unreadable { state.counts.add(outcome.outcome) }
        }
        return state
    }
}

/// One row of a batch's outcome list.
public struct BatchOutcomeRow: Equatable, Sendable {
    public let id: Int
    public let title: String
    /// saved, unchanged, merged, conflict or failed.
    public let outcome: String
    /// Why (a failure, the fields in conflict, what it merged with), when there is more to say.
    public let reason: String?
    public var isConflict: Bool { outcome == "conflict" }

    init(_ book: BookOutcome, title: String, revisions: RevisionStyle = .counter) {
        id = book.id
        outcome = book.outcome.name
        switch book.outcome {
        case let .saved(record), let .unchanged(record): self.title = record.title
        case let .merged(record, _): self.title = record.title
        case let .conflict(_, theirs): self.title = theirs.title
        case .failed: self.title = title
        }
        switch book.outcome {
        case .saved, .unchanged: reason = nil
        case let .merged(_, theirs): reason = "merged with \(revisions.basis(theirs)), which changed other fields"
        case let .conflict(fields, theirs):
            reason =
                "someone else changed the \(fields.map { $0.label.lowercased() }.joined(separator: ", ")) "
                + "(\(revisions.text(theirs.revision)))"
        case let .failed(failure): reason = failure.description
        }
    }
}

/// A batch as the screen shows it: its progress while it runs, then its summary and the list.
public struct BatchState: Equatable, Sendable {
    /// How many books it takes.
    public var total: Int
    public var allOrNothing: Bool
    public var change: String
    public var done = 0
    public var counts = OutcomeCounts()
    public var isRunning = true
    /// The catalog's number for it (none when nothing was saved).
    public var batch: BatchID?
    /// The batch it undoes, if it is an undo.
    public var undoes: BatchID?
    /// All or nothing, and something conflicted or failed: nothing was saved.
    public var savedNothing = false
    /// Books it never took (it stopped first).
    public var notTaken = 0
    /// Why the batch could not run (or could not finish: what it committed stays committed).
    public var error: String?
    public var rows: [BatchOutcomeRow] = []
    /// The outcome list is open, with this row chosen.
    public var isListOpen = false
    public var selection: Int?

    /// "118 saved, 3 unchanged, 2 conflicts": the outcomes there were, in the order of the command line's.
    public var summary: String {
        let parts = [
            (counts.saved, "saved", "saved"), (counts.unchanged, "unchanged", "unchanged"),
            (counts.merged, "merged", "merged"), (counts.conflicts, "conflict", "conflicts"),
            (counts.failed, "failed", "failed"),
        ].filter { $0.0 > 0 }.map { "\(NumberText.grouped($0.0)) \($0.0 == 1 ? $0.1 : $0.2)" }
        return parts.isEmpty ? "nothing done" : parts.joined(separator: ", ")
    }

    /// What the status line says of it.
    public var headline: String {
        if isRunning { return "\(change): \(NumberText.grouped(done)) of \(NumberText.grouped(total)) books" }
        if let error { return "\(change) stopped: \(error). \(summary)" }
        if savedNothing { return "\(change), all or nothing: nothing was saved (\(summary))" }
        let name = (batch.map { "Batch \($0)" } ?? "No batch") + (undoes.map { ", undo of batch \($0)" } ?? "")
        return "\(name): \(summary)" + (notTaken > 0 ? ", \(NumberText.grouped(notTaken)) not taken" : "")
    }
}

extension BookshelfModel {
    /// Saves the bulk editor's change to the marked books as read, in a batch: a save per book,
    /// an outcome per book, or (all or nothing) one transaction. The batch belongs to this
    /// session: a switch stops it before its next book. The search stays usable meanwhile.
    /// Returns the request number, or nil when the change cannot run.
    @discardableResult
    public func runBulkEdit() -> Int? {
        guard let repository, let editor = bulkPart.editor, editor.state.canRun, let books = editor.books,
            case let .success(change) = editor.change, bulkPart.batch?.isRunning != true
        else { return nil }
        var plans: [Int: (base: BookRecord, mine: BookRecord)] = [:]
        for book in books {
            if let mine = try? change.applied(to: book) { plans[book.id] = (book, mine) }
        }
        let batch = BulkBatch(
            total: books.count, allOrNothing: editor.state.allOrNothing, change: editor.state.kind.label,
            titles: Dictionary(books.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first }),
            revisions: revisions, plans: plans, unreadable: editor.unreadable)
        bulkPart.batch = batch
        bulkPart.editor = nil
        // The status line says the batch from now on, not how the books were marked.
        bulkPart.markNote = nil
        let (stop, meter) = (batch.stop, batch.meter)
        let allOrNothing = batch.allOrNothing
        return launchBatch {
            let edit = BulkEdit(repository: repository)
            if allOrNothing { return try await edit.applyAllOrNothing(change, to: books) }
            return try await edit.apply(change, to: books, stop: stop) { meter.record($0) }
        }
    }

    /// Undoes the batch this session ran last (the list's): each book it saved reverted as a
    /// new revision, in a batch of its own, with the same outcomes, progress and list; it
    /// belongs to this session as the batch did. Returns the request number, or nil while the
    /// batch runs or when it saved nothing.
    @discardableResult
    public func undoLastBatch() -> Int? {
        guard let repository, let last = bulkPart.batch, !last.isRunning, let undone = last.report?.batch else {
            return nil
        }
        var batch = BulkBatch(
            total: last.outcomes.filter(\.outcome.madeRevision).count, allOrNothing: false,
            change: "Undo of batch \(undone)", titles: last.titles, revisions: revisions, plans: [:], unreadable: [])
        // The list stays as it was: open, it shows the undo's progress, then its outcomes.
        batch.isListOpen = last.isListOpen
        batch.undoes = undone
        bulkPart.batch = batch
        let (stop, meter) = (batch.stop, batch.meter)
        return launchBatch {
            try await BulkEdit(repository: repository).undo(undone, stop: stop) { meter.record($0) }
        }
    }

    /// Runs the saves of the batch just begun through the runner: its report or its error lands
    /// in the batch (of this session only, as every answer), and the search is asked again,
    /// since the books saved may have left or joined it.
    private func launchBatch(_ saves: @escaping BatchSaves) -> Int {
        defer { changed() }
        return launch(
            .bulkRun,
            Effect(
                .bulkEdit, saves,
                publish: { [self] report, _ in
                    bulkPart.batch?.report = report
                    _ = startSearch(.refresh)
                    return nil
                },
                fail: { [self] error, _ in
                    bulkPart.batch?.error = Self.message(for: error)
                    _ = startSearch(.refresh)
                    return nil
                }))
    }

    /// Opens (or closes) the list of the batch's outcomes.
    public func toggleBatchOutcomes() {
        guard bulkPart.batch != nil else { return }
        bulkPart.batch?.isListOpen.toggle()
        changed()
    }

    public func closeBatchOutcomes() {
        bulkPart.batch?.isListOpen = false
        changed()
    }

    /// Walks the outcome list.
    public func moveBatchSelection(by delta: Int) {
        guard let batch = bulkPart.batch, !batch.outcomes.isEmpty else { return }
        bulkPart.batch?.selection = min(max(0, batch.selection + delta), batch.outcomes.count - 1)
        changed()
    }
}

extension BookshelfModel {
    /// Opens the chosen book of the outcome list: a conflict in the editor, with the ordinary
    /// conflict banner over what the batch tried to save (one book at a time: the list closes,
    /// F9 opens it again for the next); any other book as the editor opens it. Returns the
    /// request number.
    @discardableResult
    public func openBatchOutcome() -> Int? {
        guard let batch = bulkPart.batch, !batch.isRunning, batch.selection < batch.outcomes.count else { return nil }
        let chosen = batch.outcomes[batch.selection]
        bulkPart.batch?.isListOpen = false
        defer { changed() }
        if case .conflict = chosen.outcome, let plan = batch.plans[chosen.id] {
            return openConflict(base: plan.base, mine: BookDraft(plan.mine))
        }
        return open(bookID: chosen.id)
    }
}
