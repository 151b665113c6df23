/// The text encodings an import file may come in. Every reader works on UTF-8, so the bytes of
/// any other encoding are turned into UTF-8 as they are read, a chunk at a time
/// (`TextDecodingReader`).
public enum TextEncoding: String, Sendable, Equatable {
    case utf8 = "UTF-8"
    /// UTF-8 that began with a byte order mark (EF BB BF), which is not part of the text.
    case utf8WithByteOrderMark = "UTF-8 with a byte order mark"
    case utf16LittleEndian = "UTF-16 (little-endian, with a byte order mark)"
    case utf16BigEndian = "UTF-16 (big-endian, with a byte order mark)"
    /// Latin-1: what LibraryThing's export often is. Each byte is the character of its value.
    case isoLatin1 = "ISO-8859-1"

    /// The encoding a file's first bytes say by their byte order mark, and how many bytes the
    /// mark takes; UTF-8 (no mark) otherwise. UTF-16 needs its mark: without one it cannot be
    /// told from other text.
    static func byteOrderMark(of bytes: some Collection<UInt8>) -> (TextEncoding, markBytes: Int) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8WithByteOrderMark, 3) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LittleEndian, 2) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BigEndian, 2) }
        return (.utf8, 0)
    }

    /// True when `bytes` are UTF-8, allowing a character cut short at their end (the next chunk
    /// holds the rest of it).
    static func isUTF8(_ bytes: some Collection<UInt8>, cutShortAtEnd: Bool) -> Bool {
        let array = Array(bytes)
        if String(validating: array, as: UTF8.self) != nil { return true }
        guard cutShortAtEnd else { return false }
        // A sequence is at most 4 bytes: drop up to 3 trailing bytes of an unfinished one.
        for cut in 1...3 where array.count > cut {
            let tail = array[array.count - cut]
            // Only a lead byte (11xxxxxx) may begin the part that was cut.
            guard tail & 0xC0 != 0x80 else { continue }
            guard tail & 0xC0 == 0xC0 else { return false }
            return String(validating: array.dropLast(cut), as: UTF8.self) != nil
        }
        return false
    }

    /// `bytes` read as ISO-8859-1, as UTF-8 text: every byte is the scalar of its value.
    static func latin1String(_ bytes: some Sequence<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}

/// Reads a file's chunks in one encoding and gives them as UTF-8, a chunk at a time, keeping
/// across chunks only what a character cut in two needs (a byte of a UTF-16 code unit, a high
/// surrogate). A UTF-16 sequence that is not well formed (a lone surrogate) becomes the byte FF,
/// which is never UTF-8, so the record holding it is reported as not valid text rather than
/// changed quietly.
struct TextDecodingReader {
    let encoding: TextEncoding
    private let read: () throws -> [UInt8]
    /// A mark still to be dropped from the first chunk.
    private var markBytes: Int
    private var pendingByte: UInt8?
    private var pendingHighSurrogate: UInt16?
    private var ended = false

    init(encoding: TextEncoding, markBytes: Int, read: @escaping () throws -> [UInt8]) {
        self.encoding = encoding
        self.markBytes = markBytes
        self.read = read
    }

    /// The next chunk as UTF-8; empty at the end.
    mutating func next() throws -> [UInt8] {
        while !ended {
            var chunk = try read()
            if chunk.isEmpty {
                ended = true
                return finish()
            }
            if markBytes > 0 {
                let dropped = min(markBytes, chunk.count)
                chunk.removeFirst(dropped)
                markBytes -= dropped
            }
            let decoded = decode(chunk)
            if !decoded.isEmpty { return decoded }
        }
        return []
    }

    private mutating func decode(_ chunk: [UInt8]) -> [UInt8] {
        switch encoding {
        case .utf8, .utf8WithByteOrderMark: return chunk
        case .isoLatin1:
            var utf8: [UInt8] = []
            utf8.reserveCapacity(chunk.count + chunk.count / 8)
            for byte in chunk {
                if byte < 0x80 {
                    utf8.append(byte)
                } else {
                    utf8.append(0xC0 | byte >> 6)
                    utf8.append(0x80 | byte & 0x3F)
                }
            }
            return utf8
        case .utf16LittleEndian, .utf16BigEndian:
            var utf8: [UInt8] = []
            utf8.reserveCapacity(chunk.count)
            var index = 0
            if let first = pendingByte, let second = chunk.first {
                pendingByte = nil
                index = 1
                codeUnit(first, second, into: &utf8)
            }
            while index + 1 < chunk.count {
                codeUnit(chunk[index], chunk[index + 1], into: &utf8)
                index += 2
            }
            if index < chunk.count { pendingByte = chunk[index] }
            return utf8
        }
    }

    private mutating func codeUnit(_ first: UInt8, _ second: UInt8, into utf8: inout [UInt8]) {
        let unit =
            encoding == .utf16LittleEndian
            ? UInt16(second) << 8 | UInt16(first) : UInt16(first) << 8 | UInt16(second)
        if let high = pendingHighSurrogate {
            pendingHighSurrogate = nil
            if (0xDC00..<0xE000).contains(unit) {
                let value = 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(unit - 0xDC00)
                append(Unicode.Scalar(value)!, to: &utf8)
                return
            }
            utf8.append(0xFF)
        }
        switch unit {
        case 0xD800..<0xDC00: pendingHighSurrogate = unit
        case 0xDC00..<0xE000: utf8.append(0xFF)
        default: append(Unicode.Scalar(UInt32(unit))!, to: &utf8)
        }
    }

    private func append(_ scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
        utf8.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// What is left at the end: half a code unit or a lone high surrogate is not text.
    private mutating func finish() -> [UInt8] {
        var tail: [UInt8] = []
        if pendingHighSurrogate != nil { tail.append(0xFF) }
        if pendingByte != nil { tail.append(0xFF) }
        pendingHighSurrogate = nil
        pendingByte = nil
        return tail
    }
}
