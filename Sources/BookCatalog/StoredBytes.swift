/// A title and author exactly as a store holds them, when one of them is not valid UTF-8.
/// SQLite keeps whatever bytes another program bound as TEXT; every other read decodes such
/// text with U+FFFD for each bad byte. Only `bookshelf export` and `import --restore` carry
/// these, so that a backup gives back every byte.
public struct StoredBytes: Sendable, Equatable {
    public let title: [UInt8]
    public let author: [UInt8]

    public init(title: [UInt8], author: [UInt8]) {
        self.title = title
        self.author = author
    }

    /// Hands each well-formed UTF-8 sequence of `bytes` (Unicode table 3-7) to `scalar` and
    /// each byte outside one to `invalidByte`, in order: together they give back `bytes`.
    /// A byte outside a well-formed sequence is always 0x80 or above.
    public static func decode(_ bytes: [UInt8], scalar: (Unicode.Scalar) -> Void, invalidByte: (UInt8) -> Void) {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let (length, second): (Int, ClosedRange<UInt8>) =
                switch lead {
                case 0x00...0x7F: (1, 0x80...0xBF)
                case 0xC2...0xDF: (2, 0x80...0xBF)
                case 0xE0: (3, 0xA0...0xBF)
                case 0xED: (3, 0x80...0x9F)
                case 0xE1...0xEF: (3, 0x80...0xBF)
                case 0xF0: (4, 0x90...0xBF)
                case 0xF1...0xF3: (4, 0x80...0xBF)
                case 0xF4: (4, 0x80...0x8F)
                default: (0, 0x80...0xBF)
                }
            var wellFormed = length > 0 && index + length <= bytes.count
            if wellFormed, length > 1 {
                wellFormed =
                    second.contains(bytes[index + 1])
                    && bytes[(index + 2)..<(index + length)].allSatisfy { (0x80...0xBF).contains($0) }
            }
            guard wellFormed else {
                invalidByte(lead)
                index += 1
                continue
            }
            var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0xFF >> (length + 1))
            for offset in 1..<max(length, 1) { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            // Well-formed by the ranges above, so always a scalar.
            scalar(Unicode.Scalar(value)!)
            index += length
        }
    }
}
