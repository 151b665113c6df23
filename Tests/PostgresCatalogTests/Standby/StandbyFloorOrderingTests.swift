@testable import PostgresCatalog
import Testing

/// The session's floor (`StandbyReads`) against a replicated store acted out step by step:
/// one book on a primary whose commits two standbys replay one at a time, each at its own
/// pace. Every call the floor rule makes on a connection is a step, and another writer's
/// commit, the standbys' replays and the loss of the standby in use (the next read reaches the
/// other, as libpq does with several hosts) are placed before every combination of steps. The oracle is the store's own history: no
/// read answers from a state older than one the session has seen (its own save, a change
/// check, an earlier answer), so the user's own save is never missing from a later read.
@Suite("Standby reads: the session's floor under every ordering")
struct StandbyFloorOrderingTests {
    enum Event: Hashable {
        /// Another writer commits on the primary.
        case theirCommit
        /// Standby 0 or 1 replays one more commit, if it has one.
        case replay(Int)
        /// The connection to the standby in use breaks; the next connect reaches the other.
        case switchStandby
    }

    enum Action {
        case read, save, changeCheck
    }

    /// The script of the session; between its steps the events land.
    static let script: [Action] = [.read, .read, .save, .read, .changeCheck, .read]
    /// Call points the events are placed at: the first 13 calls of a run, which reach into
    /// its last reads.
    static let points = 13

    @Test("no read is older than what the session has seen, whatever commits and replays land between steps")
    func everyOrdering() throws {
        var runs = 0
        var servedByStandbyAfterSave = 0
        var fellBack = 0
        let points = 0..<Self.points
        for theirs in points {
            for first in points {
                for second in first..<Self.points {
                    for other in points {
                        for switchAt in points {
                            let schedule: [(Int, Event)] = [
                                (theirs, .theirCommit), (first, .replay(0)), (second, .replay(0)),
                                (other, .replay(1)), (switchAt, .switchStandby),
                            ]
                            let outcome = try Self.run(schedule)
                            runs += 1
                            servedByStandbyAfterSave += outcome.standbyAnswersAfterSave
                            fellBack += outcome.fallBacks
                        }
                    }
                }
            }
        }
        #expect(runs == 13 * 91 * 13 * 13)
        // The orderings reach both ways of answering, or the oracle proved little.
        #expect(servedByStandbyAfterSave > 0)
        #expect(fellBack > 0)
    }

    struct Outcome {
        var standbyAnswersAfterSave = 0
        var fallBacks = 0
    }

    /// One ordering: the script, with each event applied just before the call point it names.
    static func run(_ schedule: [(Int, Event)]) throws -> Outcome {
        let world = ReplicatedBook(schedule: schedule)
        let primary = FakeReplicaConnection(world: world, standby: nil)
        let reads = StandbyReads<FakeReplicaConnection>(wait: .zero, password: nil) { _ in
            FakeReplicaConnection(world: world, standby: world.reachableStandby)
        }
        // The newest position the session has seen, by the scenario alone.
        var seen = 0
        var ownSave: Int?
        var outcome = Outcome()
        for action in script {
            switch action {
            case .save:
                world.step()
                world.commits.append("mine")
                ownSave = world.commits.count
                seen = max(seen, world.commits.count)
                reads.learnPrimaryPosition(primary)
            case .changeCheck:
                // The check sees every commit so far on the primary, theirs included.
                world.step()
                seen = max(seen, world.commits.count)
                reads.learnPrimaryPosition(primary)
                reads.changeCheckPassed()
            case .read:
                let answer =
                    try reads.readOnStandby { try $0.read() }?.value ?? reads.readOnPrimary(primary) { try $0.read() }
                let route = try #require(reads.lastRoute.withLock { $0 })
                #expect(
                    answer.position >= seen,
                    "\(schedule): answered from \(answer.position) after seeing \(seen) (\(route))")
                if let ownSave {
                    #expect(answer.position >= ownSave, "\(schedule): the own save is missing (\(route))")
                    #expect(answer.title != "first", "\(schedule)")
                    if route.servedByStandby { outcome.standbyAnswersAfterSave += 1 }
                }
                if route.fellBack { outcome.fallBacks += 1 }
                seen = max(seen, answer.position)
            }
        }
        return outcome
    }
}

/// One book's history on a primary, and how far a standby has replayed it. Position k is the
/// state after the k-th commit. Every call on a connection first lets the events scheduled
/// for that call point land.
final class ReplicatedBook {
    var commits: [String] = []
    /// How far each standby has replayed.
    var replayed = [0, 0]
    /// The standby a new connection reaches.
    var reachableStandby = 0
    /// Bumped when the standby in use goes away: connections made before are broken.
    var standbyEpoch = 0
    private var point = 0
    private let schedule: [(Int, StandbyFloorOrderingTests.Event)]

    init(schedule: [(Int, StandbyFloorOrderingTests.Event)]) {
        self.schedule = schedule
    }

    func step() {
        for (at, event) in schedule where at == point {
            switch event {
            case .theirCommit: commits.append("theirs")
            case let .replay(standby): replayed[standby] = min(replayed[standby] + 1, commits.count)
            case .switchStandby:
                reachableStandby = 1 - reachableStandby
                standbyEpoch += 1
            }
        }
        point += 1
    }

    func title(at position: Int) -> String {
        position == 0 ? "first" : commits[position - 1]
    }
}

/// A connection to the primary (`standby` nil) or to one of the standbys.
final class FakeReplicaConnection: ReplicaConnection {
    let world: ReplicatedBook
    let standby: Int?
    private let epoch: Int

    init(world: ReplicatedBook, standby: Int?) {
        self.world = world
        self.standby = standby
        epoch = world.standbyEpoch
    }

    var isBroken: Bool { standby != nil && epoch != world.standbyEpoch }
    var answeredAsStandby: Bool { standby != nil }
    var server: String { standby.map { "standby \($0)" } ?? "primary" }

    private var visible: Int { standby.map { world.replayed[$0] } ?? world.commits.count }

    func walPosition() throws -> WALPosition {
        world.step()
        guard !isBroken else { throw ClusterFailure("the standby went away") }
        return WALPosition(value: UInt64(visible))
    }

    /// Where an idle connection is found dead: a step of its own, so the standby in use can
    /// go away between two reads and the next one reach the other.
    func absorbPendingInput() -> Bool {
        world.step()
        return !isBroken
    }

    /// A read: the book as this server holds it now, and from which position.
    func read() throws -> (title: String, position: Int) {
        world.step()
        guard !isBroken else { throw ClusterFailure("the standby went away") }
        return (world.title(at: visible), visible)
    }
}
