@testable import BookCatalog
import CatalogSimulation
import TestTags
import Testing

/// Every interleaving of two loads and two saves of one book — every order in which they
/// start and complete, and every outcome of each — checked against the repository rules
/// after every event:
/// - the cache holds nothing, or exactly what the store holds (so no load that began before
///   or during a write published, and no failed or uncertain write left a stale value);
/// - the cached revision never goes below one cached earlier;
/// - a save that succeeded answered the revision after its base.
@Suite("Repository, exhaustively", .tags(.exhaustive))
struct RepositoryExhaustiveTests {
    enum Operation: CaseIterable, Hashable {
        case firstLoad, secondLoad, firstSave, secondSave

        var isLoad: Bool { self == .firstLoad || self == .secondLoad }
        /// The first save edits revision 1; the second edits revision 2, so it succeeds
        /// only when the first committed before it.
        var base: Int { self == .firstSave ? 1 : 2 }
        var title: String { self == .firstSave ? "One" : "Two" }
    }

    enum Event: Hashable { case start(Operation), finish(Operation) }

    static let original = BookRecord(id: 1, title: "Zero", revision: 1)

    @Test("two loads and two saves: every order, every outcome")
    func everyInterleaving() async throws {
        let orders = Self.interleavings(of: Operation.allCases)
        let loadOutcomes: [SteppedRemote.Reply] = [.deliver, .fail(.storeUnavailable("down"))]
        let saveOutcomes: [SteppedRemote.Reply] = [
            .deliver, .fail(.storeUnavailable("down")), .commitThenFail(.outcomeUnknown),
        ]
        var cases = 0
        for order in orders {
            for l1 in loadOutcomes {
                for l2 in loadOutcomes {
                    for s1 in saveOutcomes {
                        for s2 in saveOutcomes {
                            let outcomes: [Operation: SteppedRemote.Reply] = [
                                .firstLoad: l1, .secondLoad: l2, .firstSave: s1, .secondSave: s2,
                            ]
                            try await Self.run(order, outcomes: outcomes)
                            cases += 1
                        }
                    }
                }
            }
        }
        print("Repository exhaustive check: \(cases) cases (\(orders.count) interleavings x 36 outcome sets)")
        #expect(cases == 2520 * 36)
    }

    /// All sequences of start/finish events in which each operation starts before it finishes.
    static func interleavings(of operations: [Operation]) -> [[Event]] {
        var result: [[Event]] = []
        func extend(_ prefix: [Event], notStarted: [Operation], running: [Operation]) {
            if notStarted.isEmpty && running.isEmpty { result.append(prefix); return }
            for operation in notStarted {
                extend(
                    prefix + [.start(operation)], notStarted: notStarted.filter { $0 != operation },
                    running: running + [operation])
            }
            for operation in running {
                extend(
                    prefix + [.finish(operation)], notStarted: notStarted, running: running.filter { $0 != operation })
            }
        }
        extend([], notStarted: operations, running: [])
        return result
    }

    /// Plays one case. Models the repository's per-book generation to know when a load will
    /// join a shared in-flight call, and asserts that it does.
    static func run(_ order: [Event], outcomes: [Operation: SteppedRemote.Reply]) async throws {
        let (remote, repository) = steppedRepository(original)
        var generation = 0
        var calls = 0
        var callOf: [Operation: Int] = [:]
        var callGeneration: [Int: Int] = [:]
        var opsOnCall: [Int: [Operation]] = [:]
        var released: Set<Int> = []
        var tasks: [Operation: Task<BookRecord, any Error>] = [:]
        var highestCached = 0

        for event in order {
            switch event {
            case let .start(operation) where operation.isLoad:
                tasks[operation] = Task { try await repository.book(id: 1, policy: .refresh) }
                let shared = callGeneration.first { call, callGen in
                    !released.contains(call) && callGen == generation && opsOnCall[call]!.allSatisfy(\.isLoad)
                }?.key
                if let shared {
                    opsOnCall[shared]!.append(operation)
                    callOf[operation] = shared
                    await repository.waitForSharedLoad(id: 1, callers: opsOnCall[shared]!.count)
                } else {
                    calls += 1
                    callOf[operation] = calls
                    callGeneration[calls] = generation
                    opsOnCall[calls] = [operation]
                    await remote.waitForArrivals(calls)
                }
            case let .start(operation):
                tasks[operation] = Task {
                    try await repository.update(id: 1, title: operation.title, expectedRevision: operation.base)
                }
                calls += 1
                callOf[operation] = calls
                callGeneration[calls] = -1
                opsOnCall[calls] = [operation]
                generation += 1
                await remote.waitForArrivals(calls)
            case let .finish(operation):
                let call = callOf[operation]!
                guard !released.contains(call) else { break }
                released.insert(call)
                let owner = opsOnCall[call]!.first!
                let storedBefore = await remote.books[1]!
                await remote.release(call, outcomes[owner]!)
                for waiting in opsOnCall[call]! {
                    let result = await tasks[waiting]!.result
                    try check(result, of: waiting, outcome: outcomes[owner]!, storedBefore: storedBefore)
                }
                if !owner.isLoad { generation += 1 }
            }

            let cached = await repository.cachedBook(id: 1)
            let stored = await remote.books[1]!
            if let cached {
                #expect(
                    cached == stored, "cache holds \(cached) but the store holds \(stored) after \(event) in \(order)")
                #expect(
                    cached.revision >= highestCached,
                    "cache moved back to \(cached.revision) after \(event) in \(order)")
                highestCached = max(highestCached, cached.revision)
            }
        }
        #expect(
            calls == (await remote.arrivalCount()),
            "loads shared calls differently than the generation rule says in \(order)")
    }

    static func check(
        _ result: Result<BookRecord, any Error>, of operation: Operation,
        outcome: SteppedRemote.Reply, storedBefore: BookRecord
    ) throws {
        switch (outcome, result) {
        case (.deliver, .success(let record)) where !operation.isLoad:
            #expect(record.revision == operation.base + 1 && record.title == operation.title)
            #expect(storedBefore.revision == operation.base)
        case (.deliver, .failure(let error)) where !operation.isLoad:
            #expect(error as? BookFailure == .conflict(expected: operation.base, actual: storedBefore.revision))
        case (.deliver, .success(let record)):
            #expect(record.revision >= 1 && record.id == 1)
        case (.deliver, .failure(let error)):
            Issue.record("a delivered load failed: \(error)")
        case (.fail(let failure), .failure(let error)), (.commitThenFail(let failure), .failure(let error)):
            #expect(error as? BookFailure == failure)
        default:
            Issue.record("\(operation) with \(outcome) answered \(result)")
        }
    }
}
