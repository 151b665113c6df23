@testable import PostgresCatalog
import Testing

/// The floor the sessions of one connector share, as two sessions' workers would use it.
@Suite("The shared freshness floor")
struct WALFloorTests {
    @Test("positions only raise it, from any session")
    func onlyRises() {
        let floor = WALFloor()
        floor.raise(to: WALPosition(value: 30))
        floor.raise(to: WALPosition(value: 20))
        floor.learnPrimary(WALPosition(value: 10), ticket: floor.ticket())
        #expect(floor.required == WALPosition(value: 30))
    }

    @Test("a save whose position is unknown holds every read on the primary until a later position clears it")
    func unknownUntilAPositionReadAfterIt() {
        let floor = WALFloor()
        // Session B asks the primary for its position before session A's save commits...
        let earlier = floor.ticket()
        // ...A's save commits and its position cannot be read...
        floor.learnPrimary(nil, ticket: floor.ticket())
        #expect(floor.required == nil)
        // ...and B's answer, older than A's save, arrives: it raises the floor but clears nothing.
        floor.learnPrimary(WALPosition(value: 50), ticket: earlier)
        #expect(floor.required == nil)
        // A position asked for after the save is newer than it.
        floor.learnPrimary(WALPosition(value: 60), ticket: floor.ticket())
        #expect(floor.required == WALPosition(value: 60))
    }
}
