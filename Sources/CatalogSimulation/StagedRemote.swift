import BookCatalog
import Foundation

/// A remote whose every call happens in two steps the test chooses, as a real store's do:
/// a load reads the store at one step (`perform`) and answers at a later one (`answer`); a
/// save commits (or conflicts) at one step and answers at a later one, so answers can arrive
/// in any order relative to commits. Between any two steps another writer can commit
/// (`commitElsewhere`). The store keeps its whole history, so a test can derive what is
/// true from what committed when, never from what the code under test said.
public actor StagedRemote: SearchableBookRemote, SaveOutcomeRecordingRemote {
    public enum Answer: Sendable {
        /// Answer with what the performed step produced (a read's snapshot, a save's record
        /// or its conflict).
        case asPerformed
        /// The answer is lost: the caller learns nothing about whether a save committed.
        case unknown
        /// Fail; only for a call whose step never ran (it never reached the store).
        case fail(BookFailure)

        public var isUnknown: Bool { if case .unknown = self { true } else { false } }
    }

    private enum Kind { case load, save(SaveRequest), search(SearchQuery) }

    private struct Call {
        let kind: Kind
        var performed: Result<StepResult, BookFailure>?
        /// Nil once the call has answered; a save whose answer was lost can still commit later.
        var continuation: CheckedContinuation<StepResult, any Error>?
    }

    private enum StepResult: Sendable {
        case record(BookRecord)
        case page(SearchPage)
    }

    /// Every committed revision, oldest first: `history[r - 1]` is revision r.
    public private(set) var history: [BookRecord]
    /// Operation ids of committed saves, with the revision each produced.
    private var operations: [UUID: Int] = [:]
    private var calls: [Int: Call] = [:]
    private var arrivals = 0
    private var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(_ record: BookRecord) {
        precondition(record.revision == 1, "history starts at revision 1")
        history = [record]
    }

    public var stored: BookRecord { history[history.count - 1] }
    public var callCount: Int { arrivals }

    // MARK: Remote

    public func load(id: Int) async throws -> BookRecord {
        guard case let .record(record) = try await arrive(.load) else { throw BookFailure.invalidResponse }
        return record
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        guard case let .record(record) = try await arrive(.save(request)) else { throw BookFailure.invalidResponse }
        return record
    }

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        guard case let .page(page) = try await arrive(.search(query)) else { throw BookFailure.invalidResponse }
        return page
    }

    public func committedRevision(of operation: UUID) async throws -> Int? { operations[operation] }

    // MARK: Test control

    /// Suspends until `count` calls have arrived in all.
    public func waitForArrivals(_ count: Int) async {
        if arrivals >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    /// Runs call `number`'s store step now: a read takes its snapshot, a save its
    /// compare-and-set.
    public func perform(_ number: Int) {
        guard var call = calls[number] else { preconditionFailure("call \(number) is not waiting") }
        precondition(call.performed == nil, "call \(number) already performed")
        switch call.kind {
        case .load:
            call.performed = .success(.record(stored))
        case let .search(query):
            let page = history.count > 0 && query.offset == 0 ? [stored] : []
            call.performed = .success(.page(SearchPage(records: page, total: 1)))
        case let .save(request):
            call.performed = commit(request).map(StepResult.record)
        }
        calls[number] = call.continuation == nil ? nil : call
    }

    /// Sends call `number`'s answer now. A call whose answer is lost before its step can
    /// still perform it later, as a request still queued at a server can.
    public func answer(_ number: Int, _ answer: Answer) {
        guard var call = calls[number], let continuation = call.continuation else {
            preconditionFailure("call \(number) is not waiting")
        }
        call.continuation = nil
        calls[number] = call.performed == nil && answer.isUnknown ? call : nil
        switch answer {
        case .asPerformed:
            guard let performed = call.performed else { preconditionFailure("call \(number) answered before its step") }
            continuation.resume(with: performed.mapError { $0 as any Error })
        case .unknown:
            continuation.resume(throwing: BookFailure.outcomeUnknown)
        case let .fail(failure):
            precondition(call.performed == nil, "a call that reached the store cannot fail as if it had not")
            continuation.resume(throwing: failure)
        }
    }

    /// Another writer commits a new revision.
    @discardableResult
    public func commitElsewhere(title: String) -> BookRecord {
        let next = BookRecord(id: stored.id, title: title, revision: stored.revision + 1, author: stored.author)
        history.append(next)
        return next
    }

    private func arrive(_ kind: Kind) async throws -> StepResult {
        arrivals += 1
        let number = arrivals
        return try await withCheckedThrowingContinuation { continuation in
            calls[number] = Call(kind: kind, performed: nil, continuation: continuation)
            let ready = arrivalWaiters.filter { $0.count <= arrivals }
            arrivalWaiters.removeAll { $0.count <= arrivals }
            ready.forEach { $0.continuation.resume() }
        }
    }

    private func commit(_ request: SaveRequest) -> Result<BookRecord, BookFailure> {
        guard request.id == stored.id else { return .failure(.missing) }
        guard stored.revision == request.expectedRevision else {
            return .failure(.conflict(expected: request.expectedRevision, actual: stored.revision))
        }
        let next = BookRecord(
            id: stored.id, title: request.title, revision: stored.revision + 1,
            author: request.author ?? stored.author)
        history.append(next)
        operations[request.operation] = next.revision
        return .success(next)
    }
}
