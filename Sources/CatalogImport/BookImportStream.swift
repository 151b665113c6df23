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

/// The one reader loop of every import format: it reads a file a chunk at a time and hands out
/// its books and problems in file order, so a file of any size is read in bounded memory. The
/// bytes held are one chunk and the record being read. What a format is lies in two parts: its
/// `RecordFramer` finds where each record begins and ends (CSV records, lines, the members of
/// one JSON document, BibTeX entries) and its `RecordFormat` makes a book of each record.
///
/// A field longer than `maximumFieldBytes` (where the framer sees fields) or a record longer
/// than `maximumRecordBytes` is a problem as soon as the bytes read pass that limit, reported
/// with the line its record starts on; the rest of that record is passed over without being
/// kept, and the records after it are still read.
public struct BookImportStream {
    /// The formats it reads are the sources `bookshelf import` knows.
    public typealias Kind = BookSource

    /// How many bytes `read` is asked for at a time (it may give fewer).
    public static let chunkBytes = 1 << 20
    /// Far above the longest value a field keeps (notes: `BookValidation.maximumNotesBytes`),
    /// so that a field is refused for its size only when it could never be stored.
    public static let maximumFieldBytes = 1 << 20
    public static let maximumRecordBytes = 4 << 20

    /// The framer and format, chosen from the first chunk when the kind was not given.
    private var parts: (framer: any RecordFramer, format: any RecordFormat)?
    private let choose: ([UInt8]) -> (any RecordFramer, any RecordFormat)
    private let read: () throws -> [UInt8]
    private var buffer: [UInt8] = []
    private var position = 0
    private var recordStart: Int?
    private var recordLine = 1
    /// Passing over a record refused for its size.
    private var discarding = false
    private var started = false
    private var atEnd = false
    private var done = false
    private var collector = BookImport.Collector()
    private var taken = 0
    /// Bytes taken from `read` so far.
    public private(set) var bytesRead = 0
    /// The most bytes held at once: what the bound on memory is about.
    private(set) var peakBufferedBytes = 0

    /// A format given by its two parts.
    init(
        framer: some RecordFramer, format: some RecordFormat, restoring: Bool = false,
        read: @escaping () throws -> [UInt8]
    ) {
        parts = (framer, format)
        choose = { _ in (framer, format) }
        self.read = read
        collector.restoring = restoring
    }

    /// `read` gives the file's next bytes (UTF-8), empty at its end. `kind` nil tells CSV from
    /// JSON Lines by `fileName` or the content (`BookImport.format`). `restoring` as in
    /// `BookImport.parse` (Bookshelf's own formats only).
    public init(
        kind: Kind?, fileName: String = "", restoring: Bool = false, read: @escaping () throws -> [UInt8]
    ) {
        choose = { first in
            let kind = kind ?? (BookImport.format(fileName: fileName, content: first) == .csv ? .csv : .jsonLines)
            return kind.parts(isJSON: kind == .libraryThing && BookSourceStream.isLibraryThingJSON(first))
        }
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
            if done { return nil }
            if started { try step() } else { try start() }
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
            problems.append(Self.unreadable(error, line: parts?.framer.line ?? 1))
        }
        return BookImportResult(sourced: books, problems: problems, summary: summary)
    }

    // MARK: Steps

    /// The first chunk decides the format (when it was not given) and is shown to it whole
    /// (a byte order mark dropped) before its records are read.
    private mutating func start() throws {
        started = true
        while buffer.count < Self.chunkBytes, !atEnd { try readChunk() }
        if BookImport.hasByteOrderMark(buffer) { position = 3 }
        var (framer, format) = parts ?? choose(Array(buffer[position...]))
        let goOn = buffer.withUnsafeBufferPointer { bytes in
            format.begin(first: UnsafeBufferPointer(rebasing: bytes[position...]), into: &collector)
        }
        parts = (framer, format)
        if !goOn { done = true }
        _ = framer
    }

    private mutating func step() throws {
        guard var (framer, format) = parts else { return }
        defer { parts = (framer, format) }
        let from = position, isFinal = atEnd
        let (event, index) = buffer.withUnsafeBufferPointer { framer.advance($0, from: from, isFinal: isFinal) }
        position = index
        switch event {
        case .recordStart:
            recordStart = index
            recordLine = framer.line
        case .recordEnd:
            if let start = recordStart, !discarding {
                if index - start > Self.maximumRecordBytes {
                    refuse(format.tooLongReason, format: &format)
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
        case let .refused(reason):
            if !discarding { refuse(reason, format: &format) }
        case .needMore:
            if atEnd {
                // A framer that needs more at the end has nothing more to give.
                format.finish(into: &collector)
                done = true
                return
            }
            if let start = recordStart, !discarding, buffer.count - start > Self.maximumRecordBytes {
                refuse(format.tooLongReason, format: &format)
            }
            if !done { try readChunk() }
        case .finished:
            format.finish(into: &collector)
            done = true
        case let .broken(reason):
            collector.reject(line: framer.line, reason)
            done = true
        }
    }

    /// The record being read is a problem with its line; its rest is passed over, or, when
    /// nothing after it can be read without it (a header), the file ends there.
    private mutating func refuse(_ reason: String, format: inout any RecordFormat) {
        collector.reject(line: recordLine, reason)
        discarding = true
        if !format.readsPastARefusedRecord { done = true }
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

    // MARK: Messages

    static func unreadable(_ error: any Error, line: Int) -> BookImportProblem {
        BookImportProblem(line: line, reason: "the file could not be read: \(error)")
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
}

extension BookSource {
    /// The framer and the format that read this source's files (`isJSON`: LibraryThing's JSON
    /// export rather than its TSV).
    func parts(isJSON: Bool) -> (any RecordFramer, any RecordFormat) {
        switch self {
        case .csv: (CSVFramer(), BookImport.CSVFormat())
        case .jsonLines: (LineFramer(), BookImport.JSONLinesFormat())
        case .goodreads: (CSVFramer(), ColumnFormat<GoodreadsImport>(dialect: .csv))
        case .storyGraph: (CSVFramer(), ColumnFormat<StoryGraphImport>(dialect: .csv))
        case .libraryThing:
            isJSON
                ? (JSONDocumentFramer(outer: .object), LibraryThingImport.JSONFormat())
                : (LineFramer(), ColumnFormat<LibraryThingImport>(dialect: .tabs))
        case .cslJSON: (JSONDocumentFramer(outer: .array), CSLJSONImport.Format())
        case .bibTeX: (BibTeXFramer(), BibTeXImport.Format())
        }
    }
}
