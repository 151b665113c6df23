import BookCatalog

/// What a `RecordFramer` found, scanning a file's bytes in order.
enum FramerEvent: Equatable {
    /// A record begins at the index returned with it.
    case recordStart
    /// The record ends just before the index returned with it.
    case recordEnd
    /// The record being read cannot be kept (a field of it is past its limit): it is a problem,
    /// and the framer goes on to find its end, which is passed over.
    case refused(String)
    /// The bytes end where the file may go on: scan again once more are there.
    case needMore
    /// The file is read to its end.
    case finished
    /// The file's structure is broken there (not a record of it): nothing after can be read.
    case broken(String)
}

/// Finds where a format's records begin and end, a chunk at a time, keeping nothing but its own
/// state: so a record too long to keep can be passed over without holding it.
protocol RecordFramer {
    /// The 1-based line of the last index scanned.
    var line: Int { get }
    /// Scans `bytes` from `start` to the next event; returns it and the index scanning reached
    /// (for `recordStart`, the record's first byte; for `recordEnd`, just after its last).
    /// `isFinal`: no bytes come after these.
    mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool) -> (FramerEvent, Int)
}

/// Makes books of a format's records, one whole record at a time.
protocol RecordFormat {
    /// Shown the file's first chunk before any record (a check of the whole file's form).
    /// Returns false when the file cannot be read as this format.
    mutating func begin(first: UnsafeBufferPointer<UInt8>, into collector: inout BookImport.Collector) -> Bool
    /// Reads one record (its bytes, the line it starts on), collecting its book or problems.
    /// Returns false when nothing after it can be read (a header that is not the format's).
    mutating func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector)
        -> Bool
    /// Called once the file is read to its end (a file with no header is said here).
    mutating func finish(into collector: inout BookImport.Collector)
    /// False while a record refused for its size would leave the rest unreadable (a header).
    var readsPastARefusedRecord: Bool { get }
    /// Why a record past `BookImportStream.maximumRecordBytes` is refused.
    var tooLongReason: String { get }
}

extension RecordFormat {
    mutating func begin(first: UnsafeBufferPointer<UInt8>, into collector: inout BookImport.Collector) -> Bool {
        true
    }
    mutating func finish(into collector: inout BookImport.Collector) {}
    var readsPastARefusedRecord: Bool { true }
    var tooLongReason: String { BookImportStream.recordTooLong }
}

/// Splits a file into lines: each line that is not blank is a record (without its line end).
struct LineFramer: RecordFramer {
    private(set) var line = 1
    private var inLine = false

    mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isFinal: Bool) -> (FramerEvent, Int) {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if inLine {
                if byte == UInt8(ascii: "\n") {
                    inLine = false
                    return (.recordEnd, index)
                }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\n") {
                line += 1
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\r") {
                // Whether a CR is a blank line's end is in the bytes to come.
                if index + 1 == bytes.count, !isFinal { return (.needMore, index) }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    index += 1
                    continue
                }
            }
            inLine = true
            return (.recordStart, index)
        }
        guard isFinal else { return (.needMore, index) }
        if inLine {
            inLine = false
            return (.recordEnd, index)
        }
        return (.finished, index)
    }
}
