/// Finds RFC 4180 records as `BookImport.CSVReader` reads them, a chunk at a time, keeping
/// nothing but its state: a record ends at a line break outside quotes, and a malformed record
/// (a quote inside an unquoted field, text after a closing quote) ends at the next line break
/// whatever it holds, where the reader resumes. Blank lines between records are passed over.
/// It counts each field's bytes as it goes, so a field past `maximumFieldBytes` is refused as
/// soon as the bytes read pass the limit, before the rest of it is read.
struct CSVFramer: RecordFramer {
    private enum State {
        case betweenRecords
        case fieldStart
        case unquoted
        case quoted
        /// A quote inside a quoted field: doubled (a quote) or the field's end.
        case quoteInQuoted
        /// Malformed: the record ends at the next line break.
        case restOfLine
    }

    private(set) var line = 1
    private var state = State.betweenRecords
    /// The bytes of the field being read, as the file writes them (its enclosing quotes apart).
    private var fieldBytes = 0
    private var refused = false
    let maximumFieldBytes: Int

    init(maximumFieldBytes: Int = BookImportStream.maximumFieldBytes) {
        self.maximumFieldBytes = maximumFieldBytes
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), lf = UInt8(ascii: "\n"),
        cr = UInt8(ascii: "\r")

    mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool) -> (FramerEvent, Int) {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            switch state {
            case .betweenRecords:
                if byte == Self.lf {
                    line += 1
                    index += 1
                    continue
                }
                if byte == Self.cr {
                    if index + 1 == bytes.count, !isFinal { return (.needMore, index) }
                    if index + 1 < bytes.count, bytes[index + 1] == Self.lf {
                        index += 1
                        continue
                    }
                }
                state = .fieldStart
                fieldBytes = 0
                refused = false
                return (.recordStart, index)
            case .fieldStart:
                fieldBytes = 0
                switch byte {
                case Self.quote: state = .quoted
                case Self.comma: break
                case Self.lf: return recordEnd(after: index)
                default:
                    state = .unquoted
                    continue
                }
            case .unquoted:
                switch byte {
                case Self.comma: state = .fieldStart
                case Self.lf: return recordEnd(after: index)
                case Self.quote: state = .restOfLine
                default:
                    // A CR before the line break is the break's: it is counted, but only other
                    // bytes are checked, so a field is never refused for the break's CR.
                    if byte == Self.cr {
                        fieldBytes += 1
                    } else if let refusal = count() {
                        return (refusal, index)
                    }
                }
            case .quoted:
                if byte == Self.quote {
                    // Counted when it turns out doubled: a closing quote is not the field's.
                    state = .quoteInQuoted
                } else {
                    // Counted first: after a refusal the same byte is scanned again.
                    if let refusal = count() { return (refusal, index) }
                    if byte == Self.lf { line += 1 }
                }
            case .quoteInQuoted:
                switch byte {
                case Self.quote:
                    // A doubled quote: both its bytes, as the file holds them.
                    if let refusal = count(2) { return (refusal, index) }
                    state = .quoted
                case Self.comma: state = .fieldStart
                case Self.lf: return recordEnd(after: index)
                case Self.cr:
                    if index + 1 == bytes.count {
                        if !isFinal { return (.needMore, index) }
                    } else if bytes[index + 1] != Self.lf {
                        state = .restOfLine
                    }
                default: state = .restOfLine
                }
            case .restOfLine:
                if byte == Self.lf { return recordEnd(after: index) }
            }
            index += 1
        }
        guard isFinal else { return (.needMore, index) }
        if case .betweenRecords = state { return (.finished, index) }
        state = .betweenRecords
        return (.recordEnd, index)
    }

    /// Counts `bytes` bytes of the field; the refusal when they pass the limit (once a record).
    private mutating func count(_ bytes: Int = 1) -> FramerEvent? {
        guard fieldBytes + bytes > maximumFieldBytes, !refused else {
            fieldBytes += bytes
            return nil
        }
        refused = true
        return .refused(BookImportStream.fieldTooLong)
    }

    /// The record ends with the line break at `index`.
    private mutating func recordEnd(after index: Int) -> (FramerEvent, Int) {
        line += 1
        state = .betweenRecords
        return (.recordEnd, index + 1)
    }
}
