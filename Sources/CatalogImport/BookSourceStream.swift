import BookCatalog

/// The files `bookshelf import` reads: its own CSV and JSON Lines, and the exports of the places
/// readers keep books.
public enum BookSource: String, Sendable, CaseIterable {
    case csv
    case jsonLines = "jsonl"
    case goodreads
    case storyGraph = "storygraph"
    case libraryThing = "librarything"
    case cslJSON = "csl-json"
    case bibTeX = "bibtex"

    /// The source as a sentence names it.
    public var name: String {
        switch self {
        case .csv: "Bookshelf CSV"
        case .jsonLines: "Bookshelf JSON Lines"
        case .goodreads: "Goodreads' library export (CSV)"
        case .storyGraph: "the StoryGraph's export (CSV)"
        case .libraryThing: "LibraryThing's export"
        case .cslJSON: "CSL-JSON"
        case .bibTeX: "BibTeX"
        }
    }
}

/// What `BookSourceStream` found a file to be: its source, the form of it (LibraryThing's TSV or
/// JSON) and its text encoding.
public struct DetectedSource: Sendable, Equatable, CustomStringConvertible {
    public let source: BookSource
    public let encoding: TextEncoding
    /// LibraryThing's export comes as TSV or JSON.
    public let isJSON: Bool

    public var description: String {
        let form = source == .libraryThing ? (isJSON ? " (JSON)" : " (tab-separated)") : ""
        return "\(source.name)\(form), \(encoding.rawValue)"
    }
}

/// Reads an import file of any `BookSource` a chunk at a time, in bounded memory, giving its
/// books and problems in file order. With no source given, it recognises the source from the
/// file's first chunk (`detect`); its encoding (a byte order mark, else UTF-8, and for
/// LibraryThing ISO-8859-1 when the first chunk is not UTF-8) is turned into UTF-8 as it is read.
public struct BookSourceStream {
    private let requested: BookSource?
    private let fileName: String
    private let restoring: Bool
    private let counted: CountingRead
    private var reader: BookImportStream?
    /// What the file was read as, once the first event was asked for.
    public private(set) var detected: DetectedSource?

    /// `source` nil: recognise it (`detect`). `restoring` as in `BookImport.parse` (Bookshelf's
    /// own formats only, read as they are).
    public init(
        source: BookSource?, fileName: String = "", restoring: Bool = false, read: @escaping () throws -> [UInt8]
    ) {
        requested = source
        self.fileName = fileName
        self.restoring = restoring
        counted = CountingRead(read)
    }

    /// A whole file held in memory.
    public init(bytes: [UInt8], source: BookSource?, fileName: String = "") {
        var chunk: [UInt8]? = bytes
        self.init(
            source: source, fileName: fileName,
            read: {
                defer { chunk = nil }
                return chunk ?? []
            })
    }

    /// Bytes of the file read so far.
    public var bytesRead: Int { counted.count }

    public var summary: ImportSummary { reader?.summary ?? ImportSummary() }

    /// The next book or problem, nil at the end. Throws what `read` throws.
    public mutating func next() throws -> BookImportEvent? {
        if reader == nil { try start() }
        return try reader?.next()
    }

    /// Every book and problem at once: for files already in memory.
    public mutating func collected() -> BookImportResult {
        do {
            if reader == nil { try start() }
        } catch {
            return BookImportResult(sourced: [], problems: [BookImportStream.unreadable(error, line: 1)])
        }
        return reader?.collected() ?? BookImportResult(sourced: [], problems: [])
    }

    // MARK: Start

    private mutating func start() throws {
        // The first chunk decides the source and the encoding; it is then read again, decoded.
        var first: [UInt8] = []
        while first.count < BookImportStream.chunkBytes {
            let chunk = try counted.read()
            if chunk.isEmpty { break }
            first += chunk
        }
        let (markEncoding, markBytes) = TextEncoding.byteOrderMark(of: first)
        if restoring {
            // Bookshelf's own export, taken back byte for byte: never decoded.
            let source =
                requested ?? (BookImport.format(fileName: fileName, content: first) == .csv ? .csv : .jsonLines)
            detected = DetectedSource(source: source, encoding: markEncoding, isJSON: false)
            reader = BookImportStream(
                kind: source == .csv ? .csv : .jsonLines, restoring: true, read: Self.replaying(first, then: counted))
            return
        }
        // Headers and brackets are ASCII: UTF-8 and ISO-8859-1 text is recognised from its bytes.
        var decoder = TextDecodingReader(encoding: markEncoding, markBytes: markBytes, read: Self.replaying(first))
        var text: [UInt8] = []
        while true {
            let chunk = try decoder.next()
            if chunk.isEmpty { break }
            text += chunk
        }
        let (source, isJSON) =
            requested.map { ($0, $0 == .libraryThing && Self.isLibraryThingJSON(text)) }
            ?? Self.detect(text, fileName: fileName)
        var encoding = markEncoding
        if source == .libraryThing, markEncoding == .utf8, !TextEncoding.isUTF8(first, cutShortAtEnd: true) {
            encoding = .isoLatin1
        }
        detected = DetectedSource(source: source, encoding: encoding, isJSON: isJSON)
        let decoding = DecodingRead(
            TextDecodingReader(encoding: encoding, markBytes: markBytes, read: Self.replaying(first, then: counted)))
        let read = { try decoding.next() }
        let (framer, format) = source.parts(isJSON: isJSON)
        reader = BookImportStream(framer: framer, format: format, read: read)
    }

    /// `first`, then what `rest` reads.
    private static func replaying(_ first: [UInt8], then rest: CountingRead? = nil) -> () throws -> [UInt8] {
        var pending: [UInt8]? = first
        return {
            if let chunk = pending {
                pending = nil
                if !chunk.isEmpty { return chunk }
            }
            return try rest?.read() ?? []
        }
    }

    // MARK: Recognising a source

    /// The source a file's first chunk (as UTF-8, its mark dropped) looks like: by the bracket
    /// it opens with (`[` CSL-JSON; `{` LibraryThing's JSON when the first member holds an
    /// object, else JSON Lines), `@` (after `%` comment lines) BibTeX, or by the columns its
    /// header names (tab-separated "Book Id" and "Title": LibraryThing; "ISBN/UID" or "Read
    /// Status": the StoryGraph; "Book Id" and "Exclusive Shelf": Goodreads); otherwise
    /// Bookshelf's own CSV or JSON Lines, by the file's name or content (`BookImport.format`).
    public static func detect(_ text: [UInt8], fileName: String = "") -> (source: BookSource, isJSON: Bool) {
        var index = 0
        // Blank lines and `%` comment lines before the first content.
        while index < text.count {
            if BookImport.isJSONWhitespace(text[index]) {
                index += 1
            } else if text[index] == UInt8(ascii: "%") {
                while index < text.count, text[index] != UInt8(ascii: "\n") { index += 1 }
            } else {
                break
            }
        }
        switch index < text.count ? text[index] : nil {
        case UInt8(ascii: "[")?: return (.cslJSON, true)
        case UInt8(ascii: "@")?: return (.bibTeX, false)
        case UInt8(ascii: "{")?:
            return isLibraryThingJSON(text) ? (.libraryThing, true) : (.jsonLines, true)
        default: break
        }
        let headerEnd = text[index...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
        let header = String(decoding: text[index..<headerEnd], as: UTF8.self)
        let tabbed = Set(header.split(separator: "\t").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        if tabbed.contains("Title"), tabbed.contains("Book Id") || tabbed.contains("Primary Author") {
            return (.libraryThing, false)
        }
        let columns = Set(
            header.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: ["\""])
            })
        if columns.contains("Title"), columns.contains("ISBN/UID") || columns.contains("Read Status") {
            return (.storyGraph, false)
        }
        if columns.contains("Title"), columns.contains("Book Id"),
            columns.contains("Exclusive Shelf") || columns.contains("Bookshelves")
        {
            return (.goodreads, false)
        }
        return BookImport.format(fileName: fileName, content: text) == .csv ? (.csv, false) : (.jsonLines, true)
    }

    /// `{"5498194": {…`: an object whose first member's value is an object.
    static func isLibraryThingJSON(_ text: [UInt8]) -> Bool {
        var reader = ByteCursor(text)
        reader.skipWhitespace()
        guard reader.take(UInt8(ascii: "{")) else { return false }
        reader.skipWhitespace()
        guard reader.take(UInt8(ascii: "\"")) else { return false }
        while let byte = reader.peek, byte != UInt8(ascii: "\"") {
            reader.index += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        guard reader.take(UInt8(ascii: "\"")) else { return false }
        reader.skipWhitespace()
        guard reader.take(UInt8(ascii: ":")) else { return false }
        reader.skipWhitespace()
        return reader.peek == UInt8(ascii: "{")
    }

    private struct ByteCursor {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, BookImport.isJSONWhitespace(byte) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }
    }
}

/// A file's `read`, counting the bytes it gave (for progress, in bytes of the file as it is).
private final class CountingRead {
    private let source: () throws -> [UInt8]
    private(set) var count = 0

    init(_ source: @escaping () throws -> [UInt8]) { self.source = source }

    func read() throws -> [UInt8] {
        let chunk = try source()
        count += chunk.count
        return chunk
    }
}

/// The decoder behind a `read` closure (which cannot hold a mutating value itself).
private final class DecodingRead {
    private var decoder: TextDecodingReader

    init(_ decoder: TextDecodingReader) { self.decoder = decoder }

    func next() throws -> [UInt8] { try decoder.next() }
}
