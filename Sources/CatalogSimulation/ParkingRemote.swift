import BookCatalog

/// A remote for race tests: every call parks until the test releases it with a chosen
/// outcome, so completion order is decided by the test, never by timing.
///
/// The stored record is real state: a save released with `.deliver` performs the
/// compare-and-set at that moment (or on arrival, with `commitSavesOnArrival`, so a test can
/// hold a committed write's response back). A load snapshots the record when it arrives,
/// which is the worst case for staleness.
public actor ParkingRemote: BookRemote {
    public enum Outcome: Sendable {
        /// Answer as the store would.
        case deliver
        /// Fail without committing anything.
        case fail(BookFailure)
        /// Commit the save, then lose the answer.
        case commitThenFail(BookFailure)
        /// Answer with this record instead of the truth.
        case malformed(BookRecord)
    }

    public enum Kind: Sendable, Equatable { case load, save(title: String, expected: Int) }

    public struct Call {
        public let kind: Kind
        public let snapshot: BookRecord
        public var committed: Result<BookRecord, BookFailure>?
        public let continuation: CheckedContinuation<BookRecord, any Error>
    }

    public private(set) var stored: BookRecord
    private let commitSavesOnArrival: Bool
    private var parked: [Int: Call] = [:]
    private var arrivals = 0
    private var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(_ record: BookRecord, commitSavesOnArrival: Bool = false) {
        stored = record
        self.commitSavesOnArrival = commitSavesOnArrival
    }

    public var callCount: Int { arrivals }

    public func load(id: Int) async throws -> BookRecord {
        try await park(.load)
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await park(.save(title: title, expected: expectedRevision))
    }

    /// Suspends until `count` calls have arrived in all.
    public func waitForArrivals(_ count: Int) async {
        if arrivals >= count { return }
        await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
    }

    /// Completes the call that arrived `number`-th (1-based).
    public func release(_ number: Int, _ outcome: Outcome) {
        guard var call = parked.removeValue(forKey: number) else { preconditionFailure("call \(number) is not parked") }
        switch outcome {
        case .deliver:
            if call.committed == nil { call.committed = commit(call) }
            call.continuation.resume(with: call.committed!.mapError { $0 as any Error })
        case let .fail(failure):
            precondition(call.committed == nil, "a committed save cannot fail without committing")
            call.continuation.resume(throwing: failure)
        case let .commitThenFail(failure):
            if call.committed == nil { call.committed = commit(call) }
            call.continuation.resume(throwing: failure)
        case let .malformed(record):
            call.continuation.resume(returning: record)
        }
    }

    private func park(_ kind: Kind) async throws -> BookRecord {
        arrivals += 1
        let number = arrivals
        return try await withCheckedThrowingContinuation { continuation in
            var call = Call(kind: kind, snapshot: stored, committed: nil, continuation: continuation)
            if commitSavesOnArrival, case .save = kind { call.committed = commit(call) }
            parked[number] = call
            let ready = arrivalWaiters.filter { $0.count <= arrivals }
            arrivalWaiters.removeAll { $0.count <= arrivals }
            ready.forEach { $0.continuation.resume() }
        }
    }

    private func commit(_ call: Call) -> Result<BookRecord, BookFailure> {
        switch call.kind {
        case .load:
            return .success(call.snapshot)
        case let .save(title, expected):
            guard stored.revision == expected else {
                return .failure(.conflict(expected: expected, actual: stored.revision))
            }
            stored = BookRecord(id: stored.id, title: title, revision: stored.revision + 1, author: stored.author)
            return .success(stored)
        }
    }
}
