@testable import BookCatalog
import CatalogSimulation
import Testing

/// A save the store acknowledged and then lost (a failover to a standby that had not replayed
/// it), against one read of the same book, in every order of their steps. The expectation comes
/// from the scenario alone: a read proves the loss when it began after the save was acknowledged
/// and read the store after the failover; an earlier read proves nothing, since it may have been
/// overtaken by the save. Whatever the order, the loss is reported exactly once, the latest by the
/// next load, and the session's floor then comes down to what the store has.
@Suite("Repository, lost saves")
struct RepositoryLostSaveTests {
    enum Step: CaseIterable, Hashable {
        case saveStarts, saveCommits, saveAnswers, failover, readStarts, readReads, readAnswers

        /// The steps that must come before this one.
        var after: [Step] {
            switch self {
            case .saveStarts, .readStarts: []
            case .saveCommits: [.saveStarts]
            case .saveAnswers: [.saveCommits]
            case .failover: [.saveCommits]
            case .readReads: [.readStarts]
            case .readAnswers: [.readReads]
            }
        }
    }

    enum Read: CaseIterable { case load, search }

    static let original = BookRecord(id: 1, title: "Before", revision: 1, author: "Ada")
    static let mine = BookRecord(id: 1, title: "Mine", revision: 2, author: "Ada")

    /// Every order of the steps that keeps each step after those it needs.
    static func orders() -> [[Step]] {
        var result: [[Step]] = []
        func extend(_ done: [Step]) {
            if done.count == Step.allCases.count { result.append(done); return }
            for step in Step.allCases where !done.contains(step) && step.after.allSatisfy(done.contains) {
                extend(done + [step])
            }
        }
        extend([])
        return result
    }

    @Test("a save lost in a failover, against a load or a search: every order of their steps", arguments: Read.allCases)
    func everyOrder(read: Read) async throws {
        let orders = Self.orders()
        for order in orders { try await Self.run(order, read: read) }
        // The save's answer and the failover in either order, each interleaved with the read's three steps.
        #expect(orders.count == 2 * 35)
    }

    static func run(_ order: [Step], read: Read) async throws {
        let (remote, repository) = steppedRepository(original)
        var save: Task<BookRecord, any Error>?
        var reading: Task<Int, any Error>?
        var saveCall = 0
        var readCall = 0
        for step in order {
            switch step {
            case .saveStarts:
                save = Task {
                    try await repository.save(SaveRequest(id: 1, title: "Mine", author: "Ada", expectedRevision: 1))
                }
                await remote.waitForArrivals(1, of: .save)
                saveCall = await remote.call(1, of: .save).number
            case .saveCommits:
                await remote.perform(saveCall)
            case .saveAnswers:
                await remote.release(saveCall, .deliver)
                #expect(try await save?.value == mine)
            case .failover:
                await remote.loseRevisions(of: 1, after: 1)
            case .readStarts:
                let kind: SteppedRemote.CallKind = read == .load ? .load : .search
                reading = Task {
                    switch read {
                    case .load: try await repository.book(id: 1, policy: .refresh).revision
                    case .search: try await repository.search(SearchQuery(text: "")).records[0].revision
                    }
                }
                await remote.waitForArrivals(1, of: kind)
                readCall = await remote.call(1, of: kind).number
            case .readReads:
                await remote.perform(readCall)
            case .readAnswers:
                await remote.release(readCall, .deliver)
                _ = try await reading?.value
            }
        }
        let proves =
            order.firstIndex(of: .readStarts)! > order.firstIndex(of: .saveAnswers)!
            && order.firstIndex(of: .readReads)! > order.firstIndex(of: .failover)!
        let reported = repository.lostSaves.take()
        let lost = LostSave(saved: mine, current: original)
        #expect(reported == (proves ? [lost] : []), "\(read) \(order)")

        // The next load began after everything: it proves the loss if the read did not.
        let next = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(read == .load ? 2 : 1, of: .load)
        let nextCall = await remote.newestParked(.load)!
        await remote.release(nextCall, .deliver)
        #expect(try await next.value == original)
        #expect(repository.lostSaves.take() == (proves ? [] : [lost]), "reported once: \(read) \(order)")
        #expect(repository.newestSeen.newest(of: 1) == original, "the floor comes down: \(read) \(order)")
        #expect(await repository.cachedBook(id: 1) == original, "\(read) \(order)")
    }

    @Test("a store that lost someone else's revision is not a lost save of this session")
    func someoneElsesRevision() async throws {
        let (remote, repository) = steppedRepository(Self.original)
        await remote.commitElsewhere(id: 1, title: "Theirs")
        let first = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(1, of: .load)
        await remote.release(1, .deliver)
        #expect(try await first.value.revision == 2)
        await remote.loseRevisions(of: 1, after: 1)
        let second = Task { try await repository.book(id: 1, policy: .refresh) }
        await remote.waitForArrivals(2, of: .load)
        await remote.release(2, .deliver)
        _ = try await second.value
        #expect(repository.lostSaves.take() == [])
        #expect(repository.newestSeen.newest(of: 1)?.revision == 2, "without a save of its own the floor holds")
    }
}
