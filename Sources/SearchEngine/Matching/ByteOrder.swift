import Foundation

/// The byte order of folded keys and tokens (SQLite's BINARY collation, and the index's
/// order), by `memcmp`. The generic comparison of two collections goes element by element
/// through the collection protocols, several times slower in the sorts and scans that
/// catching up, building and the books-table search do over thousands to millions of keys.
package enum ByteOrder {
    /// Negative when `a` sorts first, zero when equal, positive when `b` does.
    @inline(__always)
    package static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let x = a.baseAddress, let y = b.baseAddress {
            let order = memcmp(x, y, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Result order within a rank: key bytes, then id.
    @inline(__always)
    package static func precedes(
        _ a: UnsafeBufferPointer<UInt8>, _ aID: Int, _ b: UnsafeBufferPointer<UInt8>, _ bID: Int
    )
        -> Bool
    {
        let order = compare(a, b)
        return order == 0 ? aID < bID : order < 0
    }

    /// The first eight bytes of `key` as a big-endian number, zero-padded: when two keys'
    /// prefixes differ, they are in the keys' order (a key that ends sooner pads with zeros and
    /// sorts first, as `compare` has it); when they are equal, the keys must be compared.
    package static func prefix(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(index < key.count ? key[index] : 0) }
        return prefix
    }

    package static func precedes(_ a: [UInt8], _ aID: Int, _ b: [UInt8], _ bID: Int) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in precedes(x, aID, y, bID) } }
    }
}
