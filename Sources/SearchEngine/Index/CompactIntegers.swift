/// Variable-length unsigned integers (LEB128: seven bits a byte, high bit = more follow).
/// The search index stores token codes and posting gaps this way: most are below 128, so a
/// million books cost about one byte per token instead of four.
package enum VarInt {
    @inline(__always)
    package static func length(_ value: UInt32) -> Int {
        value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5
    }

    @inline(__always)
    package static func write(_ value: UInt32, to bytes: UnsafeMutableBufferPointer<UInt8>, at offset: inout Int) {
        var value = value
        while value >= 0x80 {
            bytes[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            offset += 1
            value >>= 7
        }
        bytes[offset] = UInt8(value)
        offset += 1
    }

    /// Reads one value at `offset` and moves past it. Reads never leave `bytes`.
    @inline(__always)
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int) -> UInt32 {
        var byte = bytes[offset]
        offset += 1
        if byte < 0x80 { return UInt32(byte) }
        var value = UInt32(byte & 0x7F)
        var shift: UInt32 = 7
        repeat {
            byte = bytes[offset]
            offset += 1
            value |= UInt32(byte & 0x7F) &<< shift
            shift += 7
        } while byte >= 0x80 && shift < 35
        return value
    }
}

/// Unsigned integers of a fixed bit width chosen for the largest value, packed end to end:
/// a million ids below 2^20 take 2.5 MB instead of 8. Read-only; `PackedIntegerWriter` fills them.
package struct PackedIntegers: Sendable {
    package let count: Int
    package let width: Int
    package let words: IndexArray<UInt64>

    /// Views stored words; nil when they cannot hold `count` values of `width` bits.
    package init?(count: Int, width: Int, words: IndexArray<UInt64>) {
        guard count >= 0, (1...64).contains(width), words.count == Self.wordCount(count: count, width: width) else {
            return nil
        }
        self.count = count
        self.width = width
        self.words = words
    }

    /// One spare word lets `subscript` read two words without a bounds special case.
    package static func wordCount(count: Int, width: Int) -> Int { (count * width + 63) / 64 + 1 }

    package static func width(maximum: UInt64) -> Int { max(1, 64 - maximum.leadingZeroBitCount) }

    package subscript(index: Int) -> UInt64 {
        precondition(index >= 0 && index < count)
        return Self.read(words.buffer, index: index, width: width)
    }

    @inline(__always)
    package static func read(_ words: UnsafeBufferPointer<UInt64>, index: Int, width: Int) -> UInt64 {
        let bit = index &* width
        let word = bit >> 6, shift = bit & 63
        var value = words[word] >> UInt64(shift)
        if shift + width > 64 { value |= words[word + 1] << UInt64(64 - shift) }
        return width == 64 ? value : value & ((1 << UInt64(width)) - 1)
    }

    /// The words holding the values at `range`, for `IndexArray.verify`.
    package func wordRange(_ range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else { return 0..<0 }
        return (range.lowerBound * width) >> 6..<((range.upperBound * width) >> 6) + 1
    }

    package var byteCount: Int { words.byteCount }
}

/// Fills a `PackedIntegers` in memory of its own (see `BuildMemory`) while an index is built.
package struct PackedIntegerWriter {
    package let count: Int
    package let width: Int
    private let fill: UnsafeMutableBufferPointer<UInt64>
    /// The finished values (the same memory: read it once writing is done).
    package let packed: PackedIntegers

    package init(count: Int, maximum: UInt64, in memory: BuildMemory) {
        self.count = count
        width = PackedIntegers.width(maximum: maximum)
        let (fill, words) = memory.array(of: UInt64.self, count: PackedIntegers.wordCount(count: count, width: width))
        self.fill = fill
        packed = PackedIntegers(count: count, width: width, words: words)!
    }

    package subscript(index: Int) -> UInt64 {
        get {
            precondition(index >= 0 && index < count)
            return PackedIntegers.read(UnsafeBufferPointer(fill), index: index, width: width)
        }
        nonmutating set {
            precondition(index >= 0 && index < count)
            let bit = index &* width
            let word = bit >> 6, shift = bit & 63
            let mask: UInt64 = width == 64 ? ~0 : (1 << UInt64(width)) - 1
            let value = newValue & mask
            fill[word] = fill[word] & ~(mask << UInt64(shift)) | value << UInt64(shift)
            if shift + width > 64 {
                let high = UInt64(64 - shift)
                fill[word + 1] = fill[word + 1] & ~(mask >> high) | value >> high
            }
        }
    }
}

/// A set of ordinals as one bit each.
package struct Bitmap {
    package var words: [UInt64]

    package init(count: Int) { words = [UInt64](repeating: 0, count: (count + 63) / 64) }

    @inline(__always)
    package mutating func insert(_ ordinal: Int) { words[ordinal >> 6] |= 1 << UInt64(ordinal & 63) }

    @inline(__always)
    package func contains(_ ordinal: Int) -> Bool { words[ordinal >> 6] & (1 << UInt64(ordinal & 63)) != 0 }
}
