import BookCatalog

/// One thing an import file held, in file order.
///
/// A book comes with where it came from (`SourcedBook.origin`): the source's kind and the
/// source's own id for that row (Goodreads' `Book Id`, a Calibre `uuid`, LibraryThing's
/// `Book Id`, a CSL `id`, a BibTeX key), or nil for a plain CSV or JSON Lines row, which has
/// none. A second import of the same source finds its books again by it, so every reader fills
/// it where its format has an id: `Collector.keep(_:origin:)` (issue 60).
public enum BookImportEvent: Sendable, Equatable {
    case book(SourcedBook)
    case problem(BookImportProblem)
}

/// Reads an import file a chunk at a time and hands out its books and problems in file order,
/// so a file of any size is read in bounded memory: the bytes kept are one chunk and the record
/// being read. A field longer than `maximumFieldBytes`, or a record (a JSON line) longer than
/// `maximumRecordBytes`, is a problem as soon as the bytes read pass that limit, reported with
/// the line its record starts on; the rest of that record is skipped without being kept.
public struct BookImportStream {
    public enum Kind: Sendable, Equatable {
        case csv, jsonLines, goodreads, storyGraph
    }

    /// How many bytes `read` is asked for at a time (it may give fewer).
    public static let chunkBytes = 1 << 20
    /// Far above the longest value a field keeps (notes: `BookValidation.maximumNotesBytes`),
    /// so that a field is refused for its size only when it could never be stored.
    public static let maximumFieldBytes = 1 << 20
    public static let maximumRecordBytes = 4 << 20

    private enum State {
        case start
        case csvHeader
        case csvRecords(BookImport.CSVColumns)
        case goodreadsHeader
        case goodreadsRecords(GoodreadsImport.Columns)
        case storyGraphHeader
        case storyGraphRecords(StoryGraphImport.Columns)
        case jsonLines
        case done
    }

    private let read: () throws -> [UInt8]
    private let fileName: String
    private var kind: Kind?
    private var state = State.start
    private var buffer: [UInt8] = []
    /// Where reading goes on in `buffer`, and the file's line there.
    private var position = 0
    private var line = 1
    private var atEnd = false
    private var skipping: RecordSkipper?
    private var collector = BookImport.Collector()
    private var taken = 0
    /// Bytes taken from `read` so far.
    public private(set) var bytesRead = 0
    /// The most bytes held at once: what the bound on memory is about.
    private(set) var peakBufferedBytes = 0

    /// `read` gives the file's next bytes, empty at its end. `kind` nil tells CSV from JSON Lines
    /// by `fileName` or the content (`BookImport.format`). `restoring` as in `BookImport.parse`.
    public init(
        kind: Kind?, fileName: String = "", restoring: Bool = false, read: @escaping () throws -> [UInt8]
    ) {
        self.kind = kind
        self.fileName = fileName
        self.read = read
        collector.restoring = restoring
    }

    /// What was read, mapped and skipped so far; complete once `next()` has returned nil.
    public var summary: ImportSummary { collector.summary }

    /// The next book or problem, or nil at the end of the file. Throws what `read` throws.
    public mutating func next() throws -> BookImportEvent? {
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
            if case .done = state { return nil }
            try step()
        }
    }

    /// Every book and problem at once: for files already in memory.
    public mutating func collected() -> BookImportResult {
        var books: [SourcedBook] = []
        var problems: [BookImportProblem] = []
        do {
            while let event = try next() {
                switch event {
                case let .book(book): books.append(book)
                case let .problem(problem): problems.append(problem)
                }
            }
        } catch {
            problems.append(BookImportProblem(line: line, reason: "the file could not be read: \(error)"))
        }
        return BookImportResult(sourced: books, problems: problems, summary: summary)
    }

    // MARK: Steps

    private mutating func step() throws {
        if skipping != nil { return try skip() }
        switch state {
        case .start: try start()
        case .csvHeader:
            guard let outcome = try csvOutcome(header: true) else { return }
            if case .needMore = outcome { return }
            state = .done
            if let columns = BookImport.csvColumns(outcome, into: &collector) { state = .csvRecords(columns) }
        case let .csvRecords(columns):
            guard let outcome = try csvOutcome(header: false) else { return }
            BookImport.csvRecord(outcome, columns: columns, into: &collector)
        case .goodreadsHeader:
            let outcome = try csvOutcome(header: true)
            if case .needMore? = outcome { return }
            state = .done
            if let columns = GoodreadsImport.columns(outcome, into: &collector) { state = .goodreadsRecords(columns) }
        case let .goodreadsRecords(columns):
            guard let outcome = try csvOutcome(header: false) else { return }
            GoodreadsImport.record(outcome, columns: columns, into: &collector)
        case .storyGraphHeader:
            let outcome = try csvOutcome(header: true)
            if case .needMore? = outcome { return }
            state = .done
            if let columns = StoryGraphImport.columns(outcome, into: &collector) { state = .storyGraphRecords(columns) }
        case let .storyGraphRecords(columns):
            guard let outcome = try csvOutcome(header: false) else { return }
            StoryGraphImport.record(outcome, columns: columns, into: &collector)
        case .jsonLines: try jsonLine()
        case .done: return
        }
    }

    private mutating func start() throws {
        // The first chunk decides the format, the byte order mark and CR-only line ends.
        while buffer.count < Self.chunkBytes, !atEnd { try readChunk() }
        if BookImport.hasByteOrderMark(buffer) { position = 3 }
        let kind = kind ?? (BookImport.format(fileName: fileName, content: buffer) == .csv ? .csv : .jsonLines)
        self.kind = kind
        switch kind {
        case .csv:
            let onlyCR = buffer.withUnsafeBufferPointer { BookImport.hasOnlyCRLineEnds($0, from: position) }
            if onlyCR {
                collector.reject(
                    line: 1,
                    "the lines end in a carriage return (CR) alone, which is not supported; save the file with LF or CRLF line ends"
                )
                state = .done
                return
            }
            state = .csvHeader
        case .goodreads: state = .goodreadsHeader
        case .storyGraph: state = .storyGraphHeader
        case .jsonLines: state = .jsonLines
        }
    }

    /// The next CSV record, `.needMore` after reading more (or after refusing a record too
    /// long to keep), nil at the end of the file (for the header: after saying it is empty).
    private mutating func csvOutcome(header: Bool) throws -> BookImport.CSVReader.Outcome? {
        let (outcome, reader) = buffer.withUnsafeBufferPointer { bytes in
            var reader = BookImport.CSVReader(bytes: bytes, position: position, line: line, isFinal: atEnd)
            return (reader.next(), reader)
        }
        switch outcome {
        case .needMore?:
            let fieldBytes = buffer.count - reader.fieldStart, recordBytes = buffer.count - reader.recordStart
            let reason: String? =
                fieldBytes > Self.maximumFieldBytes
                ? Self.fieldTooLong : recordBytes > Self.maximumRecordBytes ? Self.recordTooLong : nil
            guard let reason else {
                try readChunk()
                return .needMore
            }
            collector.reject(line: reader.recordStartLine, reason)
            if header {
                // Without its header the file cannot be read further.
                state = .done
                return .needMore
            }
            position = reader.recordStart
            line = reader.recordStartLine
            skipping = RecordSkipper(quoted: true)
            return .needMore
        case nil:
            position = reader.position
            line = reader.line
            if header, kind == .csv {
                collector.reject(line: 1, "the file is empty; the first line must name the columns, e.g. title,author")
            }
            state = .done
            return nil
        case let outcome?:
            position = reader.position
            line = reader.line
            if reader.lineUnfinished { skipping = RecordSkipper(quoted: false) }
            // Read whole within the last chunk, past the limit all the same.
            if case let .record(line, fields) = outcome {
                if fields.contains(where: { $0.byteCount > Self.maximumFieldBytes }) {
                    collector.reject(line: line, Self.fieldTooLong)
                    if header { state = .done }
                    return .needMore
                }
                if reader.position - reader.recordStart > Self.maximumRecordBytes {
                    collector.reject(line: line, Self.recordTooLong)
                    if header { state = .done }
                    return .needMore
                }
            }
            return outcome
        }
    }

    static let fieldTooLong =
        "a field is longer than \(grouped(maximumFieldBytes)) bytes (the longest a field keeps is "
        + "\(grouped(BookValidation.maximumNotesBytes))); the rest of its record is skipped"
    static let recordTooLong =
        "the record is longer than \(grouped(maximumRecordBytes)) bytes; the rest of it is skipped"
    static let lineTooLong = "the line is longer than \(grouped(maximumRecordBytes)) bytes; the rest of it is skipped"

    /// 1048576 as 1,048,576.
    static func grouped(_ number: Int) -> String {
        var digits = String(number)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return digits
    }

    private mutating func jsonLine() throws {
        let end = buffer[position...].firstIndex(of: UInt8(ascii: "\n"))
        guard end != nil || atEnd else {
            if buffer.count - position > Self.maximumRecordBytes {
                collector.reject(line: line, Self.lineTooLong)
                skipping = RecordSkipper(quoted: false)
            } else {
                try readChunk()
            }
            return
        }
        let lineEnd = end ?? buffer.count
        if lineEnd - position > Self.maximumRecordBytes {
            collector.reject(line: line, Self.lineTooLong)
        } else if lineEnd > position || end != nil {
            let number = line
            buffer.withUnsafeBufferPointer { bytes in
                BookImport.jsonLine(
                    UnsafeBufferPointer(rebasing: bytes[position..<lineEnd]), number: number, into: &collector)
            }
        }
        position = min(lineEnd + 1, buffer.count)
        line += 1
        if end == nil { state = .done }
    }

    /// Skips the rest of a record that was refused, keeping nothing of it.
    private mutating func skip() throws {
        guard var skipper = skipping else { return }
        let found = buffer.withUnsafeBufferPointer { skipper.end(in: $0, from: position) }
        line += skipper.lineEnds
        skipper.lineEnds = 0
        if let found {
            position = found
            skipping = nil
            return
        }
        position = buffer.count
        skipping = skipper
        if atEnd {
            skipping = nil
            state = .done
        } else {
            try readChunk()
        }
    }

    /// Appends the next chunk, first dropping the bytes already read.
    private mutating func readChunk() throws {
        if position > 0 {
            buffer.removeSubrange(0..<position)
            position = 0
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

/// Finds where a refused record ends without keeping it: at the first line break outside
/// quotes (CSV, read from the record's start), or at the first line break (`quoted` false: a
/// JSON line, or the rest of a malformed CSV line).
struct RecordSkipper {
    let quoted: Bool
    private var inQuotes = false
    private var quotePending = false
    private var atFieldStart = true
    /// Line breaks passed since the count was last taken.
    var lineEnds = 0

    init(quoted: Bool) { self.quoted = quoted }

    /// The index just after the record's end, or nil when `bytes` end first.
    mutating func end(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), lf = UInt8(ascii: "\n")
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard quoted else {
                if byte == lf {
                    lineEnds += 1
                    return index
                }
                continue
            }
            if quotePending {
                quotePending = false
                // A doubled quote inside quotes is a quote.
                if byte == quote { continue }
                inQuotes = false
            }
            if inQuotes {
                if byte == quote { quotePending = true } else if byte == lf { lineEnds += 1 }
                continue
            }
            switch byte {
            case quote where atFieldStart:
                inQuotes = true
                atFieldStart = false
            case comma: atFieldStart = true
            case lf:
                lineEnds += 1
                return index
            default: atFieldStart = false
            }
        }
        return nil
    }
}
