import Foundation
@testable import PostgresCatalog
import Testing

/// The rules `StandbyReads` keeps about a standby that lags or is not there, against a fake
/// server the test moves by hand and a clock that moves only when the test or a position
/// query moves it: a read given up stops waiting at once, the wait is paid once and the standby
/// is asked again only after a change check, and a connection that lands on a primary is given
/// up and standbys are tried again after a delay that doubles.
@Suite("Standby reads: lag paid once, standbys tried again")
struct StandbyLagRuleTests {
    /// A clock the test owns; each position query moves it on by `tick`.
    final class FakeClock {
        var now = ContinuousClock.now
        var tick: Duration = .milliseconds(1)
    }

    /// A server: its position, whether it is a standby, and what was asked of it.
    final class FakeServer: ReplicaConnection {
        let clock: FakeClock
        var position: UInt64
        var isStandby: Bool
        var positionQueries = 0
        var reads = 0
        var isBroken = false
        /// Called on each position query, before it answers (to abandon a read mid-wait).
        var onPositionQuery: ((Int) -> Void)?

        init(clock: FakeClock, position: UInt64, isStandby: Bool) {
            self.clock = clock
            self.position = position
            self.isStandby = isStandby
        }

        var server: String { isStandby ? "standby" : "primary" }
        var answeredAsStandby: Bool { isStandby }
        func absorbPendingInput() -> Bool { !isBroken }

        func walPosition() throws -> WALPosition {
            positionQueries += 1
            onPositionQuery?(positionQueries)
            clock.now += clock.tick
            return WALPosition(value: position)
        }

        func read() -> UInt64 {
            reads += 1
            return position
        }
    }

    struct Setting {
        let clock = FakeClock()
        let primary: FakeServer
        let standby: FakeServer
        let reads: StandbyReads<FakeServer>
        let connects: () -> Int

        /// How many connections the reads opened.
        final class Count { var value = 0 }

        init(wait: Duration) {
            let clock = self.clock
            let primary = FakeServer(clock: clock, position: 10, isStandby: false)
            let standby = FakeServer(clock: clock, position: 10, isStandby: true)
            (self.primary, self.standby) = (primary, standby)
            let count = Count()
            connects = { count.value }
            // libpq's prefer-standby: the standby while it is one, else the primary.
            reads = StandbyReads<FakeServer>(wait: wait, password: nil, now: { clock.now }) { _ in
                count.value += 1
                return standby.isStandby ? standby : primary
            }
        }

        /// One read as the session makes it: the standby's answer, else the primary's.
        func read(abandoned: ReadAbandonment? = nil) throws -> (position: UInt64, byStandby: Bool) {
            if let answer = try reads.readOnStandby(abandoned: abandoned, { $0.read() }) {
                return (answer.value, true)
            }
            return (try reads.readOnPrimary(primary) { $0.read() }, false)
        }

        /// A save committed on the primary: the floor moves past the standby.
        func save() {
            primary.position += 1
            reads.learnPrimaryPosition(primary)
        }
    }

    @Test("a read abandoned while it waits stops at once and reads nowhere")
    func abandonedReadStopsWaiting() throws {
        let setting = Setting(wait: .milliseconds(200))
        #expect(try setting.read().byStandby)
        setting.save()
        let abandonment = ReadAbandonment()
        let queriesBefore = setting.standby.positionQueries
        setting.standby.onPositionQuery = { count in
            if count == queriesBefore + 3 { abandonment.abandon() }
        }
        #expect(throws: CancellationError.self) { try setting.read(abandoned: abandonment) }
        #expect(setting.standby.positionQueries == queriesBefore + 3)
        #expect(setting.primary.reads == 0 && setting.standby.reads == 1)
        // One already given up before it reaches the worker asks nothing at all.
        #expect(throws: CancellationError.self) { try setting.read(abandoned: abandonment) }
        #expect(setting.standby.positionQueries == queriesBefore + 3)
    }

    @Test(
        "typing on while the standby is behind costs one wait: a read after reads given up mid-wait waits what is left")
    func supersededReadsShareOneWait() throws {
        let wait = Duration.milliseconds(200)
        let setting = Setting(wait: wait)
        #expect(try setting.read().byStandby)
        setting.save()
        let began = setting.clock.now
        // Three keys, each searched and given up 50 ms into its wait, when the next key comes.
        for _ in 0..<3 {
            let abandonment = ReadAbandonment()
            let pressed = setting.clock.now
            setting.standby.onPositionQuery = { _ in
                if setting.clock.now - pressed >= .milliseconds(50) { abandonment.abandon() }
            }
            #expect(throws: CancellationError.self) { try setting.read(abandoned: abandonment) }
        }
        setting.standby.onPositionQuery = nil
        let left = wait - (setting.clock.now - began)
        // The last key's read waits only what is left of the one wait, then the primary answers.
        let pressed = setting.clock.now
        #expect(try setting.read() == (11, false))
        let waited = setting.clock.now - pressed
        #expect(waited >= left && waited <= left + setting.clock.tick, "waited \(waited), \(left) left of the wait")
        // And the standby counts as behind: the next read asks it nothing.
        let asked = setting.standby.positionQueries
        #expect(try setting.read() == (11, false))
        #expect(setting.standby.positionQueries == asked)
    }

    @Test("after a read waited out the standby, reads go to the primary until a change check lets one ask")
    func behindStandbyIsAskedOncePerCheck() throws {
        let setting = Setting(wait: .milliseconds(20))
        #expect(try setting.read().byStandby)
        setting.save()
        // Waits out the 20 ms (1 ms per question), then the primary answers.
        #expect(try setting.read() == (11, false))
        let asked = setting.standby.positionQueries
        #expect(asked > 10)
        #expect(setting.reads.lastRoute.withLock { $0 }?.waitedForReplay == true)
        for _ in 0..<5 {
            #expect(try setting.read() == (11, false))
            #expect(setting.reads.lastRoute.withLock { $0 }?.waitedForReplay == false)
        }
        #expect(setting.standby.positionQueries == asked, "a read after the fall-back asked the standby")
        // A change check: the next read asks once; still behind, so the primary answers.
        setting.reads.changeCheckPassed()
        #expect(try setting.read() == (11, false))
        #expect(setting.standby.positionQueries == asked + 1)
        #expect(try setting.read() == (11, false))
        #expect(setting.standby.positionQueries == asked + 1)
        // Caught up: the read after the next check is the standby's again.
        setting.standby.position = 11
        setting.reads.changeCheckPassed()
        #expect(try setting.read() == (11, true))
    }

    @Test("a standby connection that lands on a primary is given up; standbys are tried after 1, 2, 4, 8, 8 s")
    func primaryLandingIsRetriedWithBackoff() throws {
        let setting = Setting(wait: .milliseconds(20))
        setting.standby.isStandby = false
        setting.clock.tick = .zero
        #expect(try setting.read() == (10, false))
        #expect(setting.reads.lastRoute.withLock { $0 }?.fellBack == false)
        #expect(setting.connects() == 1)
        var expectedConnects = 1
        for delay in [1, 2, 4, 8, 8] {
            setting.clock.now += .seconds(delay) - .milliseconds(1)
            _ = try setting.read()
            #expect(setting.connects() == expectedConnects, "tried again before \(delay) s")
            setting.clock.now += .milliseconds(1)
            _ = try setting.read()
            expectedConnects += 1
            #expect(setting.connects() == expectedConnects, "not tried again after \(delay) s")
        }
        // The standby is back: the next try keeps it.
        setting.standby.isStandby = true
        setting.clock.now += .seconds(8)
        #expect(try setting.read().byStandby)
    }

    @Test("a standby promoted while in use is given up: its answers are a primary's")
    func promotedStandbyIsGivenUp() throws {
        let setting = Setting(wait: .milliseconds(20))
        #expect(try setting.read().byStandby)
        setting.save()
        // Promoted: it takes writes of its own, and its position passes the floor.
        setting.standby.isStandby = false
        setting.standby.position = 12
        let read = try setting.read()
        #expect(!read.byStandby)
        #expect(setting.standby.reads == 1)
    }
}
