/// Splits a BibTeX file into its entries (`@book{…}`, `@string(…)`), a chunk at a time. Text
/// between entries is a comment, as BibTeX reads it, and so is a line starting with `%`. An
/// entry ends where its opening brace (or parenthesis) is matched, counting braces; quotes
/// count only directly in the entry's body, where a parenthesis entry may hold a `)` in one.
/// An `@` not followed by a name and a bracket is not an entry: it is handed over as a record
/// that the reader passes over.
struct BibTeXFramer: RecordFramer {
    private enum Phase {
        case between
        case comment
        /// After `@`: the entry's type, then its opening bracket.
        case type
        /// Inside the entry, which `)` closes (else `}`).
        case body(parenthesis: Bool)
    }

    private(set) var line = 1
    private var phase = Phase.between
    private var depth = 0
    private var inQuote = false
    /// At the start of a line (for `%` comments).
    private var lineStart = true

    mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool) -> (FramerEvent, Int) {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            switch phase {
            case .between:
                if byte == UInt8(ascii: "@") {
                    phase = .type
                    lineStart = false
                    return (.recordStart, index)
                }
                if byte == UInt8(ascii: "%"), lineStart { phase = .comment }
                lineStart = byte == UInt8(ascii: "\n") || (lineStart && (byte == 0x20 || byte == 0x09))
                index += 1
            case .comment:
                if byte == UInt8(ascii: "\n") {
                    phase = .between
                    lineStart = true
                }
                index += 1
            case .type:
                // Past the `@` the record was started at.
                if index == start, byte == UInt8(ascii: "@") {
                    index += 1
                    continue
                }
                if isNameByte(byte) || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "(") {
                    phase = .body(parenthesis: byte == UInt8(ascii: "("))
                    depth = 0
                    inQuote = false
                    index += 1
                    continue
                }
                // Not an entry: the record ends before this byte, which is read again between entries.
                phase = .between
                if byte == UInt8(ascii: "\n") { line -= 1 }
                return (.recordEnd, index)
            case let .body(parenthesis):
                index += 1
                switch byte {
                case UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "}"):
                    if depth == 0 {
                        if !parenthesis {
                            phase = .between
                            return (.recordEnd, index)
                        }
                    } else {
                        depth -= 1
                    }
                case UInt8(ascii: "\"") where depth == 0: inQuote.toggle()
                case UInt8(ascii: ")") where parenthesis && depth == 0 && !inQuote:
                    phase = .between
                    return (.recordEnd, index)
                default: break
                }
            }
        }
        guard isFinal else { return (.needMore, index) }
        switch phase {
        case .between, .comment: return (.finished, index)
        case .type, .body:
            // An entry cut off by the end of the file: its reader says so.
            phase = .between
            return (.recordEnd, index)
        }
    }

    private func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}
