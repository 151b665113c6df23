import BookCatalog
import Foundation
import Testing

/// Operation ids are time-ordered (RFC 9562's version 7), so that a store keying its committed
/// saves by them adds each at the end of its index, and unique all the same.
@Suite struct OperationIDTests {
    /// The id's 48-bit time as the RFC lays it out: the first twelve hexadecimal digits.
    static func milliseconds(_ id: UUID) -> UInt64 {
        UInt64(id.uuidString.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)!
    }

    @Test func anIdCarriesItsMillisecondVersionSevenAndTheRFCsVariant() {
        // 2026-12-07 14:00:00.123 UTC, worked out by hand: 1_796_652_000 s and 123 ms.
        let id = UUID.timeOrdered(at: Date(timeIntervalSince1970: 1_796_652_000.123))
        #expect(Self.milliseconds(id) == 1_796_652_000_123)
        let hex = Array(id.uuidString)
        #expect(hex[14] == "7")
        #expect(["8", "9", "A", "B"].contains(hex[19]))
    }

    @Test func laterIdsSortAfterEarlierOnesAsTextAndNoTwoAreAlike() {
        let start = Date(timeIntervalSince1970: 1_796_652_000)
        let ids = (0..<1_000).map { UUID.timeOrdered(at: start.addingTimeInterval(Double($0) / 100)) }
        let texts = ids.map(\.uuidString)
        #expect(texts == texts.sorted())
        #expect(Set(ids).count == ids.count)
        let sameMoment = (0..<1_000).map { _ in UUID.timeOrdered(at: start) }
        #expect(Set(sameMoment).count == sameMoment.count)
    }

    @Test func aSaveRequestsOwnOperationIsTimeOrdered() {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let request = SaveRequest(id: 1, title: "Dune", expectedRevision: 1)
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect((before...after).contains(Self.milliseconds(request.operation)))
        #expect((before...after + 1).contains(Self.milliseconds(request.rebased(onto: 2).operation)))
    }
}
