/// Splits one JSON document into the members of its outermost array (CSL-JSON: `[{…}, {…}]`)
/// or object (LibraryThing: `{"id": {…}, "id": {…}}`; each record is a member, `"id": {…}`),
/// a chunk at a time, so a file of a million books never sits in memory whole. It follows only
/// strings and brackets to find where each member ends; the record's reader checks the rest.
struct JSONDocumentFramer: RecordFramer {
    enum Outer: Equatable {
        case array, object
    }

    private enum Phase {
        /// Before the outermost bracket.
        case opening
        /// After the bracket or a comma: a member or (first only) the closing bracket.
        case beforeMember(first: Bool)
        /// Inside a member.
        case inMember
        /// After a member: a comma or the closing bracket.
        case afterMember
        /// After the closing bracket: only whitespace may follow.
        case closed
        /// The file ended inside a member, which was handed over: the document is never closed.
        case cutShort
    }

    let outer: Outer
    private(set) var line = 1
    private var phase = Phase.opening
    private var depth = 0
    private var inString = false
    private var escaped = false

    init(outer: Outer) { self.outer = outer }

    private var openByte: UInt8 { outer == .array ? UInt8(ascii: "[") : UInt8(ascii: "{") }
    private var closeByte: UInt8 { outer == .array ? UInt8(ascii: "]") : UInt8(ascii: "}") }
    private var what: String { outer == .array ? "an array" : "an object" }

    mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool) -> (FramerEvent, Int) {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if case .inMember = phase {
                if let end = scanMember(bytes, &index) { return (.recordEnd, end) }
                continue
            }
            if byte == UInt8(ascii: "\n") { line += 1 }
            if BookImport.isJSONWhitespace(byte) {
                index += 1
                continue
            }
            switch phase {
            case .opening:
                guard byte == openByte else {
                    return (
                        .broken(
                            "the file must hold \(what) of books, opening with '\(Character(Unicode.Scalar(openByte)))'"
                        ), index
                    )
                }
                phase = .beforeMember(first: true)
                index += 1
            case let .beforeMember(first):
                if first, byte == closeByte {
                    phase = .closed
                    index += 1
                    continue
                }
                if byte == closeByte || byte == UInt8(ascii: ",") {
                    return (
                        .broken("bad JSON: a member is missing between commas or before the closing bracket"), index
                    )
                }
                phase = .inMember
                depth = 0
                inString = false
                escaped = false
                return (.recordStart, index)
            case .afterMember:
                if byte == UInt8(ascii: ",") {
                    phase = .beforeMember(first: false)
                } else if byte == closeByte {
                    phase = .closed
                } else {
                    return (
                        .broken("bad JSON: expected ',' or '\(Character(Unicode.Scalar(closeByte)))' after a member"),
                        index
                    )
                }
                index += 1
            case .closed:
                return (.broken("bad JSON: unexpected text after the end of \(what)"), index)
            case .inMember, .cutShort:
                return (.broken("bad JSON: \(what) is never closed"), index)
            }
        }
        guard isFinal else { return (.needMore, index) }
        switch phase {
        case .closed: return (.finished, index)
        case .opening: return (.broken("the file is empty; expected \(what) of books"), index)
        case .inMember:
            // The member runs to the end of the file: its reader says what is wrong with it,
            // and the next scan that the document is never closed.
            phase = .cutShort
            return (.recordEnd, index)
        case .cutShort:
            return (.broken("bad JSON: \(what) is never closed"), index)
        case .beforeMember, .afterMember:
            return (.broken("bad JSON: \(what) is never closed"), index)
        }
    }

    /// Scans inside a member; the index just after it when it ends there (at depth 0, before a
    /// comma or the outer closing bracket, which are left for the next scan).
    private mutating func scanMember(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Int? {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 {
                    phase = .afterMember
                    return index
                }
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 0 {
                    phase = .afterMember
                    return index
                }
            default: break
            }
            index += 1
        }
        return nil
    }
}
