@testable import BookCatalog
import CatalogSimulation
import TestTags
import Testing

/// Every order of every step of a few calls, as a real store can produce them: each call
/// starts at the repository, reaches the store at a later step (a read takes its snapshot,
/// a save commits or conflicts) and answers at a later one still; another writer commits
/// and the repository is told (a change notice) between any two steps; a save may answer,
/// lose its answer after its step ("outcome unknown"), or fail before reaching the store.
///
/// After every step the cache is checked against the store's own history, never against
/// values the repository produced:
/// - it is empty or holds a record the store really committed at that revision;
/// - it is never older than a revision already handed out to a caller, named by a
///   conflict, or stored when the last notice arrived;
/// - it never goes down.
@Suite("Repository, every step of every call", .tags(.exhaustive))
struct RepositoryStagedTests {
    enum Operation: Hashable, CustomStringConvertible {
        case load(Int), save(Int), notice

        /// Save n edits revision n: the second save succeeds only after the first committed.
        var expectedRevision: Int { if case let .save(n) = self { n } else { 0 } }
        var steps: Int { self == .notice ? 1 : 3 }
        var description: String {
            switch self {
            case let .load(n): "L\(n)"
            case let .save(n): "S\(n)"
            case .notice: "N"
            }
        }
    }

    enum Fate: CaseIterable { case answered, lostAfterStep, failedBeforeStore }

    struct Step: Hashable, CustomStringConvertible {
        let operation: Operation
        /// 0: the call starts; 1: it reaches the store; 2: it answers. A notice has one step.
        let phase: Int
        var description: String { operation == .notice ? "N" : "\(operation)\(["start", "store", "answer"][phase])" }
    }

    static let original = BookRecord(id: 1, title: "Zero", revision: 1, author: "Ada")

    @Test("one load, two saves and a notice naming no books: every order of every step, every fate")
    func oneLoadTwoSavesUnspecifiedNotice() async {
        await exhaust(loads: 1, saves: 2, notice: .unspecified, expectedOrders: 16_800)
    }

    @Test("one load, two saves and a notice naming the book: every order of every step, every fate")
    func oneLoadTwoSavesNamedNotice() async {
        await exhaust(loads: 1, saves: 2, notice: ChangeNotice(bookIDs: [1]), expectedOrders: 16_800)
    }

    @Test("two loads, one save and a notice: every order of every step, every fate")
    func twoLoadsOneSaveAndANotice() async {
        await exhaust(loads: 2, saves: 1, notice: .unspecified, expectedOrders: 16_800)
    }

    private func exhaust(loads: Int, saves: Int, notice: ChangeNotice, expectedOrders: Int) async {
        let operations = (1...loads).map(Operation.load) + (1...saves).map(Operation.save) + [.notice]
        let orders = Self.orders(of: operations)
        #expect(orders.count == expectedOrders)
        let fateSets = Self.fateSets(saves: saves)
        var cases = 0
        var violations: [String] = []
        for order in orders {
            for fates in fateSets {
                violations += await Self.play(order, fates: fates, notice: notice)
                cases += 1
                if violations.count > 20 { break }
            }
            if violations.count > 20 { break }
        }
        print(
            "Repository staged check (\(loads) loads, \(saves) saves, notice \(notice.bookIDs == nil ? "unspecified" : "named")): \(cases) cases (\(orders.count) orders x \(fateSets.count) fate sets)"
        )
        #expect(
            violations.isEmpty, "\(violations.count) violations, first: \(violations.prefix(5).joined(separator: "\n"))"
        )
        #expect(cases == orders.count * fateSets.count)
    }

    static func fateSets(saves: Int) -> [[Int: Fate]] {
        var sets: [[Int: Fate]] = [[:]]
        for save in 1...saves {
            sets = sets.flatMap { set in Fate.allCases.map { set.merging([save: $0]) { $1 } } }
        }
        return sets
    }

    /// Every sequence of steps in which each operation's steps come in order.
    static func orders(of operations: [Operation]) -> [[Step]] {
        var result: [[Step]] = []
        var next = [Operation: Int]()
        var prefix: [Step] = []
        func extend() {
            var extended = false
            for operation in operations where next[operation, default: 0] < operation.steps {
                extended = true
                let phase = next[operation, default: 0]
                prefix.append(Step(operation: operation, phase: phase))
                next[operation] = phase + 1
                extend()
                next[operation] = phase
                prefix.removeLast()
            }
            if !extended { result.append(prefix) }
        }
        extend()
        return result
    }

    /// Plays one order; returns what went wrong, if anything.
    static func play(_ order: [Step], fates: [Int: Fate], notice: ChangeNotice) async -> [String] {
        let (remote, repository) = steppedRepository(original)
        var problems: [String] = []
        func fail(_ text: String) { problems.append("\(text) after \(order) with \(fates)") }

        var calls = 0
        var callOf: [Operation: Int] = [:]
        var tasks: [Operation: Task<BookRecord, any Error>] = [:]
        // Loads that joined another load's call: their steps are that call's.
        var joined: [Operation: Operation] = [:]
        var answeredCalls: Set<Int> = []
        // Moves whenever the repository's rule says a new load must not join an older one.
        var invalidations = 0
        var invalidationsAtStart: [Operation: Int] = [:]
        var snapshotAtStore: [Operation: Int] = [:]
        var floor = 0
        var highestCached = 0

        for step in order {
            let operation = step.operation
            switch (operation, step.phase) {
            case (.notice, _):
                let theirs = await remote.commitElsewhere(id: 1, title: "Elsewhere")
                await repository.invalidate(notice)
                floor = max(floor, theirs.revision)
                invalidations += 1

            case (.load, 0):
                tasks[operation] = Task { try await repository.book(id: 1, policy: .refresh) }
                let running = callOf.first { other, call in
                    if case .load = other, joined[other] == nil, !answeredCalls.contains(call),
                        invalidationsAtStart[other] == invalidations
                    {
                        return true
                    }
                    return false
                }?.key
                if let running {
                    joined[operation] = running
                    let callers = 1 + joined.values.filter { $0 == running }.count
                    await repository.waitForSharedLoad(id: 1, callers: callers)
                } else {
                    calls += 1
                    callOf[operation] = calls
                    invalidationsAtStart[operation] = invalidations
                    await remote.waitForArrivals(calls)
                }
            case (.load, 1):
                guard joined[operation] == nil else { break }
                await remote.perform(callOf[operation]!)
                snapshotAtStore[operation] = await remote.books[1]!.revision
            case (.load, _):
                guard joined[operation] == nil else { break }
                let call = callOf[operation]!
                await remote.release(call, .deliver)
                answeredCalls.insert(call)
                let expected = await remote.committedRevisions(of: 1)[snapshotAtStore[operation]! - 1]
                for waiting in [operation] + joined.filter({ $0.value == operation }).map(\.key) {
                    switch await tasks[waiting]!.result {
                    case let .success(record):
                        if record != expected {
                            fail("\(waiting) answered \(record), the store held \(expected) when it read")
                        }
                        floor = max(floor, record.revision)
                    case let .failure(error):
                        fail("\(waiting) failed with \(error)")
                    }
                }

            case (.save, 0):
                let request = SaveRequest(
                    id: 1, title: "Save \(operation.expectedRevision)", author: "Ada",
                    expectedRevision: operation.expectedRevision)
                tasks[operation] = Task { try await repository.save(request) }
                calls += 1
                callOf[operation] = calls
                invalidations += 1
                await remote.waitForArrivals(calls)
            case (.save, 1):
                guard case let .save(n) = operation, fates[n] != .failedBeforeStore else { break }
                let before = await remote.books[1]!.revision
                await remote.perform(callOf[operation]!)
                snapshotAtStore[operation] = before
            case (.save(let n), _):
                let call = callOf[operation]!
                let fate = fates[n]!
                switch fate {
                case .answered: await remote.release(call, .deliver)
                case .lostAfterStep: await remote.release(call, .fail(.outcomeUnknown))
                case .failedBeforeStore: await remote.release(call, .fail(.storeUnavailable("down")))
                }
                invalidations += 1
                let result = await tasks[operation]!.result
                let storeBefore = snapshotAtStore[operation]
                switch (fate, result) {
                case let (.answered, .success(record)):
                    let committed = await remote.committedRevisions(of: 1)[record.revision - 1]
                    if storeBefore != operation.expectedRevision || record != committed {
                        fail(
                            "\(operation) answered \(record), but the store committed \(committed) with the store at \(storeBefore ?? 0)"
                        )
                    }
                    floor = max(floor, record.revision)
                case let (.answered, .failure(error)):
                    let expected = BookFailure.conflict(expected: operation.expectedRevision, actual: storeBefore ?? 0)
                    if storeBefore == operation.expectedRevision || error as? BookFailure != expected {
                        fail("\(operation) failed with \(error), the store was at \(storeBefore ?? 0)")
                    }
                    floor = max(floor, storeBefore ?? 0)
                case let (.lostAfterStep, .failure(error)):
                    if error as? BookFailure != .outcomeUnknown { fail("\(operation) failed with \(error)") }
                case let (.failedBeforeStore, .failure(error)):
                    if error as? BookFailure != .storeUnavailable("down") { fail("\(operation) failed with \(error)") }
                default:
                    fail("\(operation) with fate \(fate) answered \(result)")
                }
            }

            if let cached = await repository.cachedBook(id: 1) {
                let committed = await remote.committedRevisions(of: 1)[cached.revision - 1]
                if cached != committed {
                    fail("cache holds \(cached), the store committed \(committed) at that revision (at \(step))")
                }
                if cached.revision < floor {
                    fail("cache holds revision \(cached.revision) below \(floor), already known (at \(step))")
                }
                if cached.revision < highestCached {
                    fail("cache went back from \(highestCached) to \(cached.revision) (at \(step))")
                }
                highestCached = max(highestCached, cached.revision)
            }
        }
        if problems.isEmpty, calls != (await remote.arrivalCount()) {
            fail(
                "the loads shared calls differently than the rule says: \(calls) predicted, \(await remote.arrivalCount()) made"
            )
        }
        return problems
    }
}
