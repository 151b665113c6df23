import Foundation

extension UUID {
    /// A new operation id, ordered by the time it was made (RFC 9562's version 7): the
    /// Unix time in milliseconds in its first 48 bits, then random bits. A store that keys its
    /// committed saves by operation id (SQLite's `committed_saves`) then adds each at the end
    /// of its index, as text too (the hexadecimal digits sort as the number), where a random id
    /// wrote a page anywhere in it for every save. Bench: `bookshelf-bench bulk --count 1000000`.
    ///
    /// The random bits come from the system's generator (`getrandom`): `UUID()` opens and reads
    /// /dev/urandom for each id, three system calls for every book of a bulk edit.
    public static func timeOrdered(at now: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var generator = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (generator.next(), generator.next())) { Array($0) }
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562's variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
