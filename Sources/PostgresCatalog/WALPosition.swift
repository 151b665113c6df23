/// A position in PostgreSQL's write-ahead log (an LSN), as the server writes it: two
/// hexadecimal numbers of at most 32 bits each, `16/B374D848`. Positions only grow, so the
/// highest one a session has seen is how fresh any later answer must be.
struct WALPosition: Comparable, Sendable, CustomStringConvertible {
    let value: UInt64

    static let start = WALPosition(value: 0)

    init(value: UInt64) {
        self.value = value
    }

    /// Nil for anything that is not an LSN as the server writes it: the text comes from a
    /// store, and a wrong floor would make reads wait or go back in time.
    init?(_ text: String) {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(\.isHexDigit) }),
            let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16)
        else { return nil }
        value = high << 32 | low
    }

    var description: String {
        String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.value < rhs.value }
}
