import BookCatalog

/// What a `RecordFramer` found, scanning a file's bytes in order.
enum FramerEvent: Equatable {
    /// A record begins at the index returned with it.
    case recordStart
    /// The record ends just before the index returned with it.
    case recordEnd
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
    /// Reads one record (its bytes, the line it starts on), collecting its book or problems.
    /// Returns false when nothing after it can be read (a header that is not the format's).
    mutating func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector)
        -> Bool
    /// Called once the file is read to its end (a file with no header is said here).
    mutating func finish(into collector: inout BookImport.Collector)
}

extension RecordFormat {
    mutating func finish(into collector: inout BookImport.Collector) {}
}

/// Reads a file of records (TSV lines, JSON array elements, BibTeX entries) a chunk at a time:
/// the bytes held are one chunk and the record being read. A record longer than
/// `BookImportStream.maximumRecordBytes` is a problem as soon as that many of its bytes are
/// read, and the rest of it is passed over unkept; the records after it are still read.
struct RecordStream<Framer: RecordFramer, Format: RecordFormat> {
    private var framer: Framer
    private(set) var format: Format
    private let read: () throws -> [UInt8]
    private var buffer: [UInt8] = []
    private var position = 0
    private var recordStart: Int?
    private var recordLine = 1
    /// Passing over a record refused for its size.
    private var discarding = false
    private var atEnd = false
    private var done = false
    private(set) var collector = BookImport.Collector()
    private var taken = 0
    private(set) var bytesRead = 0
    private(set) var peakBufferedBytes = 0
    let maximumRecordBytes: Int

    init(
        framer: Framer, format: Format, maximumRecordBytes: Int = BookImportStream.maximumRecordBytes,
        read: @escaping () throws -> [UInt8]
    ) {
        self.framer = framer
        self.format = format
        self.read = read
        self.maximumRecordBytes = maximumRecordBytes
    }

    var summary: ImportSummary { collector.summary }
    var line: Int { framer.line }

    mutating func next() throws -> BookImportEvent? {
        while true {
            if taken < collector.events.count {
                let event = collector.events[taken]
                taken += 1
                if taken == collector.events.count {
                    collector.events.removeAll(keepingCapacity: true)
                    taken = 0
                }
                return event
            }
            if done { return nil }
            try step()
        }
    }

    private mutating func step() throws {
        let from = position, isFinal = atEnd
        let (event, index) = buffer.withUnsafeBufferPointer { framer.advance($0, from: from, isFinal: isFinal) }
        position = index
        switch event {
        case .recordStart:
            recordStart = index
            recordLine = framer.line
        case .recordEnd:
            if let start = recordStart, !discarding {
                if index - start > maximumRecordBytes {
                    collector.reject(line: recordLine, BookImportStream.recordTooLong)
                } else {
                    let line = recordLine
                    let goOn = buffer.withUnsafeBufferPointer { bytes in
                        format.read(
                            record: UnsafeBufferPointer(rebasing: bytes[start..<index]), line: line, into: &collector)
                    }
                    if !goOn { done = true }
                }
            }
            discarding = false
            recordStart = nil
        case .needMore:
            if atEnd {
                // A framer that needs more at the end has nothing more to give.
                finish()
                return
            }
            if let start = recordStart, !discarding, buffer.count - start > maximumRecordBytes {
                collector.reject(line: recordLine, BookImportStream.recordTooLong)
                discarding = true
            }
            try readChunk()
        case .finished:
            finish()
        case let .broken(reason):
            collector.reject(line: framer.line, reason)
            done = true
        }
    }

    private mutating func finish() {
        format.finish(into: &collector)
        done = true
    }

    /// Appends the next chunk, first dropping the bytes no record needs any more.
    private mutating func readChunk() throws {
        let keepFrom = discarding ? position : (recordStart ?? position)
        if keepFrom > 0 {
            buffer.removeSubrange(0..<keepFrom)
            position -= keepFrom
            if let start = recordStart { recordStart = discarding ? 0 : start - keepFrom }
        }
        let chunk = try read()
        if chunk.isEmpty {
            atEnd = true
        } else {
            buffer += chunk
            bytesRead += chunk.count
            peakBufferedBytes = max(peakBufferedBytes, buffer.count)
        }
    }
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
            if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                index += 1
                continue
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
