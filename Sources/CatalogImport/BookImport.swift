import BookCatalog
import TerminalSafeText

/// The two file formats `bookshelf import` reads.
public enum BookImportFormat: String, Sendable, Equatable {
    /// RFC 4180: a header line naming the columns (`title` required; `author` and the
    /// `BookColumn`s of the details optional; any order, other columns skipped), fields quoted
    /// with `"` when they hold commas, quotes (doubled) or line breaks. Tags are one field,
    /// "a, b".
    case csv
    /// One JSON object per line: `{"title": "...", "author": "...", "tags": ["a", "b"]}`, the
    /// keys named as `BookColumn`s; other keys are skipped.
    case jsonLines
}

/// One line of an import file that cannot become a book, and why, in words a user can act on.
public struct BookImportProblem: Sendable, Equatable, CustomStringConvertible {
    /// The 1-based physical line where the bad record starts.
    public let line: Int
    public let reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}

/// What a file held: the books ready to store (validated, trimmed) and every line that was bad.
/// Importers store nothing unless `problems` is empty.
public struct BookImportResult: Sendable, Equatable {
    /// The books read, each with where it came from.
    public let sourced: [SourcedBook]
    public let problems: [BookImportProblem]
    public let summary: ImportSummary

    public var books: [NewBook] { sourced.map(\.book) }

    public init(sourced: [SourcedBook], problems: [BookImportProblem], summary: ImportSummary = ImportSummary()) {
        self.sourced = sourced
        self.problems = problems
        self.summary = summary
    }

    /// Books of a plain file: none has an origin.
    public init(books: [NewBook], problems: [BookImportProblem], summary: ImportSummary = ImportSummary()) {
        self.init(sourced: books.map { SourcedBook($0) }, problems: problems, summary: summary)
    }
}

/// Parses import files into books. Pure: bytes in, books and problems out. It never stops at
/// the first bad line, so one run tells the user everything to fix.
public enum BookImport {
    /// The format a file's name says (`.csv`, `.jsonl`, `.ndjson`) or, failing that, its
    /// content: a first non-blank character `{` means JSON Lines, anything else CSV.
    public static func format(fileName: String, content: some Collection<UInt8>) -> BookImportFormat {
        let name = fileName.lowercased()
        if name.hasSuffix(".csv") { return .csv }
        if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") { return .jsonLines }
        let first = content.dropFirst(hasByteOrderMark(content) ? 3 : 0).first { !isJSONWhitespace($0) }
        return first == UInt8(ascii: "{") ? .jsonLines : .csv
    }

    /// Parses a whole file held in memory (a leading byte order mark is ignored): what a
    /// `BookImportStream` makes of it, collected. `restoring` takes every title and author
    /// exactly as the file holds it (what `bookshelf export` wrote, stored by another program),
    /// without trimming or the validation rules, including text that is not valid UTF-8 (raw in
    /// CSV, `\udcXX` escapes in JSON Lines, as `BookExport` writes it); only a missing or empty
    /// title and malformed lines are problems.
    public static func parse(_ bytes: [UInt8], format: BookImportFormat, restoring: Bool = false)
        -> BookImportResult
    {
        var chunk: [UInt8]? = bytes
        var stream = BookImportStream(
            kind: format == .csv ? .csv : .jsonLines, restoring: restoring,
            read: {
                defer { chunk = nil }; return chunk ?? []
            })
        return stream.collected()
    }

    public static func parse(_ text: String, format: BookImportFormat) -> BookImportResult {
        parse(Array(text.utf8), format: format)
    }

    /// Why `title` and `author` cannot be stored (the `BookValidation` rules), or nil if they can.
    public static func rejection(title: String, author: String) -> String? {
        if let reason = rejection(
            of: title, field: "title", maximum: BookValidation.maximumTitleLength,
            maximumBytes: BookValidation.maximumTitleBytes, required: true)
        {
            return reason
        }
        return rejection(
            of: author, field: "author", maximum: BookValidation.maximumAuthorLength,
            maximumBytes: BookValidation.maximumAuthorBytes, required: false)
    }

    // MARK: Shared

    /// What the records read so far made: books and problems, in file order, waiting to be
    /// taken by the stream, and the summary.
    struct Collector {
        var events: [BookImportEvent] = []
        var summary = ImportSummary()
        var restoring = false

        mutating func add(title: String, author: String, details text: DetailsText, line: Int) {
            let details = validated(text, line: line)
            if restoring {
                if title.isEmpty {
                    events.append(.problem(BookImportProblem(line: line, reason: "missing title")))
                } else if let details {
                    keep(NewBook(title: title, author: author, details: details))
                }
                return
            }
            do {
                let book = try NewBook(title: title, author: author).validated()
                if let details { keep(NewBook(title: book.title, author: book.author, details: details)) }
            } catch {
                let reason = BookImport.rejection(title: title, author: author) ?? "\(error)"
                events.append(.problem(BookImportProblem(line: line, reason: reason)))
            }
        }

        /// The details, or nil when a field breaks its rule (each such field is a problem).
        private mutating func validated(_ text: DetailsText, line: Int) -> BookDetails? {
            switch text.validated() {
            case let .success(details): return details
            case let .failure(failure):
                events += failure.reasons.map { .problem(BookImportProblem(line: line, reason: $0)) }
                return nil
            }
        }

        /// A book read, with its origin when the format gives its rows ids.
        mutating func keep(_ book: NewBook, origin: BookOrigin? = nil) {
            events.append(.book(SourcedBook(book, origin: origin)))
            summary.read(fields: 1 + (book.author.isEmpty ? 0 : 1) + book.details.filledFieldCount)
        }

        /// A title or author that is not valid UTF-8: taken back byte for byte when restoring,
        /// otherwise refused.
        mutating func add(storedTitle: [UInt8], storedAuthor: [UInt8], details text: DetailsText, line: Int) {
            let details = validated(text, line: line)
            guard restoring else {
                let field = String(validating: storedTitle, as: UTF8.self) == nil ? "title" : "author"
                events.append(
                    .problem(
                        BookImportProblem(
                            line: line, reason: "the \(field) is not valid UTF-8 text\(BookImport.restoreHint)")))
                return
            }
            if storedTitle.isEmpty {
                events.append(.problem(BookImportProblem(line: line, reason: "missing title")))
            } else if let details {
                keep(NewBook(storedTitle: storedTitle, storedAuthor: storedAuthor, details: details))
            }
        }

        mutating func reject(line: Int, _ reason: String) {
            events.append(.problem(BookImportProblem(line: line, reason: reason)))
        }
    }

    private static func rejection(of raw: String, field: String, maximum: Int, maximumBytes: Int, required: Bool)
        -> String?
    {
        let trimmed = BookValidation.trim(raw)
        if trimmed.isEmpty { return required ? "missing \(field)" : nil }
        if required, BookValidation.isBlank(trimmed) {
            return "\(field) is blank (only spaces or invisible characters)"
        }
        if let control = trimmed.unicodeScalars.first(where: BookValidation.isControl) {
            return "\(field) contains a control character (\(codePoint(control)))"
        }
        let bytes = trimmed.utf8.count
        if bytes > maximumBytes {
            return "\(field) is too long (\(bytes) bytes in UTF-8, at most \(maximumBytes))"
        }
        if trimmed.count > maximum {
            return "\(field) is too long (\(trimmed.count) characters, at most \(maximum))"
        }
        return nil
    }

    /// Where a refusal of bytes that are not UTF-8 points: the one way to take them back.
    static let restoreHint =
        "; if the file is a 'bookshelf export', 'bookshelf import --restore' takes it back byte for byte"

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    static func hasByteOrderMark(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0xEF, 0xBB, 0xBF])
    }

    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: CSV

    /// True when the text holds a CR not followed by LF and no LF at all: old Mac line ends.
    static func hasOnlyCRLineEnds(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var sawBareCR = false
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") { return false }
            if byte == UInt8(ascii: "\r"), index + 1 < bytes.count { sawBareCR = true }
            index += 1
        }
        return sawBareCR
    }

    /// The columns a CSV file's header names, as `csvRecord` reads each record by them.
    struct CSVColumns {
        let headerFields: [CSVReader.Field]
        let count: Int
        let title: Int
        let author: Int?
        let details: [(BookColumn, Int)]
        let skipped: [Int]
    }

    /// The header's columns, or nil (and the problem collected) when it cannot be one.
    static func csvColumns(_ header: CSVReader.Outcome, into collector: inout Collector) -> CSVColumns? {
        guard case let .record(headerLine, headerFields) = header else {
            if case let .malformed(line, reason) = header { collector.reject(line: line, reason) }
            return nil
        }
        let names = headerFields.map { ($0.text ?? "").trimmingWhitespace.lowercased() }
        for column in BookColumn.allCases.map(\.rawValue) where names.filter({ $0 == column }).count > 1 {
            collector.reject(line: headerLine, "the header names the column \"\(column)\" twice")
            return nil
        }
        guard let titleColumn = names.firstIndex(of: "title") else {
            let found = names.map { "\"\($0)\"" }.joined(separator: ", ")
            collector.reject(
                line: headerLine,
                "the first line must name the columns and include \"title\", e.g. title,author (found \(found))")
            return nil
        }
        return CSVColumns(
            headerFields: headerFields, count: names.count, title: titleColumn,
            author: names.firstIndex(of: "author"),
            details: BookColumn.details.compactMap { column in
                names.firstIndex(of: column.rawValue).map { (column, $0) }
            },
            skipped: names.indices.filter { BookColumn(rawValue: names[$0]) == nil })
    }

    /// One record after the header: a book, or its problems, collected.
    static func csvRecord(_ outcome: CSVReader.Outcome, columns: CSVColumns, into collector: inout Collector) {
        switch outcome {
        case .needMore: return
        case let .malformed(line, reason):
            collector.reject(line: line, reason)
        case let .record(line, fields):
            guard fields.count == columns.count else {
                collector.reject(
                    line: line,
                    "expected \(columns.count) fields as in the header, found \(fields.count) (quote fields that contain commas)"
                )
                return
            }
            for index in columns.skipped where !fields[index].bytes.isEmpty {
                collector.summary.skip(skippedColumnReason(columns.headerFields[index]))
            }
            var details = DetailsText()
            var notText: [BookColumn] = []
            for (column, index) in columns.details {
                guard let text = fields[index].text else {
                    notText.append(column)
                    continue
                }
                details.set(column, text: FormulaCells.restored(text))
            }
            guard notText.isEmpty else {
                for column in notText { collector.reject(line: line, "\(column.rawValue): not valid UTF-8 text") }
                return
            }
            let title = fields[columns.title].formulaRestored
            let author = columns.author.map { fields[$0].formulaRestored } ?? .text("")
            if let titleText = title.text, let authorText = author.text {
                collector.add(title: titleText, author: authorText, details: details, line: line)
            } else {
                collector.add(storedTitle: title.bytes, storedAuthor: author.bytes, details: details, line: line)
            }
        }
    }

    private static func skippedColumnReason(_ name: CSVReader.Field) -> String {
        "values of the column \(JSONText.quoted(name.text ?? "")), which is not a field Bookshelf keeps"
    }

    /// Reads RFC 4180 records. A record may span several physical lines (quoted line
    /// breaks); records are reported with the line they start on. After a malformed record
    /// the reader resumes at the next line, so later records are still checked.
    struct CSVReader {
        /// One field: its text, or its bytes where they are not valid UTF-8.
        enum Field: Equatable {
            case text(String)
            case notUTF8([UInt8])

            var text: String? {
                if case let .text(text) = self { text } else { nil }
            }

            var bytes: [UInt8] {
                switch self {
                case let .text(text): Array(text.utf8)
                case let .notUTF8(bytes): bytes
                }
            }

            var byteCount: Int {
                switch self {
                case let .text(text): text.utf8.count
                case let .notUTF8(bytes): bytes.count
                }
            }

            /// The field without the apostrophe `BookExport` puts before a formula (`FormulaCells`).
            var formulaRestored: Field {
                switch self {
                case let .text(text): .text(FormulaCells.restored(text))
                case let .notUTF8(bytes): .notUTF8(FormulaCells.restored(bytes))
                }
            }
        }

        enum Outcome: Equatable {
            /// Fields in order.
            case record(line: Int, fields: [Field])
            case malformed(line: Int, reason: String)
            /// The bytes end inside a record and more are coming (`isFinal` false): read again
            /// from `recordStart` once more bytes are there.
            case needMore
        }

        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        /// The physical line `position` is on.
        private(set) var line = 1
        /// False while more bytes of the file are still to come after `bytes`.
        var isFinal = true
        /// Where the record being read starts, its line, and where its field being read starts.
        private(set) var recordStart = 0
        private(set) var recordStartLine = 1
        private(set) var fieldStart = 0
        /// A malformed record's line was cut short by the end of `bytes`: the rest of it, in
        /// the bytes to come, is still to be skipped.
        private(set) var lineUnfinished = false
        private var scratch: [UInt8] = []

        private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
            lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

        init(bytes: UnsafeBufferPointer<UInt8>, position: Int, line: Int = 1, isFinal: Bool = true) {
            self.bytes = bytes
            self.position = position
            self.line = line
            self.isFinal = isFinal
        }

        /// The end of `bytes` was reached where the file may go on.
        private var cutShort: Bool { position >= bytes.count && !isFinal }

        mutating func next() -> Outcome? {
            skipBlankLines()
            recordStart = position
            recordStartLine = line
            fieldStart = position
            guard position < bytes.count else { return isFinal ? nil : .needMore }
            let startLine = line
            var fields: [Field] = []
            while true {
                fieldStart = position
                if bytes[position] == Self.quote {
                    guard let field = readQuotedField() else {
                        if !isFinal { return .needMore }
                        return .malformed(line: startLine, reason: "a quoted field is never closed (a \" is missing)")
                    }
                    fields.append(field)
                } else {
                    guard let field = readUnquotedField() else {
                        skipRestOfLine()
                        return .malformed(
                            line: startLine,
                            reason:
                                "a quote inside an unquoted field (quote the whole field and double the quotes inside it)"
                        )
                    }
                    if cutShort { return .needMore }
                    fields.append(field)
                }
                if cutShort { return .needMore }
                guard position < bytes.count else { return .record(line: startLine, fields: fields) }
                switch bytes[position] {
                case Self.comma:
                    position += 1
                    if cutShort { return .needMore }
                    if position == bytes.count {
                        fields.append(.text("")); return .record(line: startLine, fields: fields)
                    }
                case Self.lf:
                    position += 1
                    line += 1
                    return .record(line: startLine, fields: fields)
                case Self.cr where position + 1 == bytes.count:
                    if !isFinal { return .needMore }
                    position += 1
                    return .record(line: startLine, fields: fields)
                case Self.cr where bytes[position + 1] == Self.lf:
                    position += 2
                    line += 1
                    return .record(line: startLine, fields: fields)
                default:
                    skipRestOfLine()
                    return .malformed(
                        line: startLine, reason: "unexpected text after a closing quote (double a quote to include it)")
                }
            }
        }

        /// Reads from an opening quote through its closing quote; nil if the bytes end first.
        private mutating func readQuotedField() -> Field? {
            position += 1
            scratch.removeAll(keepingCapacity: true)
            var segmentStart = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == Self.quote {
                    scratch.append(contentsOf: bytes[segmentStart..<position])
                    // Whether the quote is doubled is in the bytes to come.
                    if position + 1 == bytes.count, !isFinal { return nil }
                    if position + 1 < bytes.count, bytes[position + 1] == Self.quote {
                        scratch.append(Self.quote)
                        position += 2
                        segmentStart = position
                        continue
                    }
                    position += 1
                    return String(validating: scratch, as: UTF8.self).map(Field.text) ?? .notUTF8(scratch)
                }
                if byte == Self.lf { line += 1 }
                position += 1
            }
            return nil
        }

        /// Reads up to the next comma or line break; nil if the field holds a quote.
        private mutating func readUnquotedField() -> Field? {
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == Self.comma || byte == Self.lf { break }
                if byte == Self.quote { return nil }
                position += 1
            }
            if cutShort { return .text("") }
            var end = position
            // A CR just before the line break (or the end of the file) belongs to the break.
            if end > start, bytes[end - 1] == Self.cr, position == bytes.count || bytes[position] == Self.lf {
                end -= 1
                if position == bytes.count { position = end }
            }
            let field = UnsafeBufferPointer(rebasing: bytes[start..<end])
            return String(validating: field, as: UTF8.self).map(Field.text) ?? .notUTF8(Array(field))
        }

        private mutating func skipBlankLines() {
            while position < bytes.count {
                if bytes[position] == Self.lf {
                    position += 1
                } else if bytes[position] == Self.cr, position + 1 < bytes.count, bytes[position + 1] == Self.lf {
                    position += 2
                } else {
                    return
                }
                line += 1
            }
        }

        private mutating func skipRestOfLine() {
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == Self.lf {
                    line += 1
                    return
                }
            }
            lineUnfinished = !isFinal
        }
    }

    // MARK: JSON Lines

    /// One line of a JSON Lines file (without its line end): a book, or its problems, collected.
    static func jsonLine(_ line: UnsafeBufferPointer<UInt8>, number lineNumber: Int, into collector: inout Collector) {
        guard line.contains(where: { !isJSONWhitespace($0) }) else { return }
        // Byte escapes are read only when restoring, and then the line itself must be UTF-8:
        // a raw bad byte could otherwise join an escaped one into a character.
        if collector.restoring, String(validating: line, as: UTF8.self) == nil {
            collector.reject(line: lineNumber, "bad JSON: the line is not valid UTF-8 text")
            return
        }
        let object: [String: JSONLineParser.Value]
        var skippedKeys: [String] = []
        do {
            object = try JSONLineParser.object(
                in: line, keeping: jsonKeys, byteEscapes: collector.restoring
            ) { skippedKeys.append($0) }
        } catch {
            collector.reject(line: lineNumber, error.isJSON ? "bad JSON: \(error.reason)" : error.reason)
            return
        }
        let title: String, titleBytes: [UInt8]?
        switch object["title"] {
        case .string(let value)?: (title, titleBytes) = (value, nil)
        case .notUTF8(let bytes)?: (title, titleBytes) = ("", bytes)
        case nil: collector.reject(line: lineNumber, "missing \"title\""); return
        case .null?: collector.reject(line: lineNumber, "missing title"); return
        case let other?:
            collector.reject(line: lineNumber, "\"title\" must be a string, not \(other.kind)"); return
        }
        var author = ""
        var authorBytes: [UInt8]?
        switch object["author"] {
        case .string(let value)?: author = value
        case .notUTF8(let bytes)?: authorBytes = bytes
        case nil, .null?: break
        case let other?:
            collector.reject(line: lineNumber, "\"author\" must be a string, not \(other.kind)"); return
        }
        let details: DetailsText
        switch jsonDetails(object) {
        case let .success(text): details = text
        case let .failure(problems):
            for reason in problems.reasons { collector.reject(line: lineNumber, reason) }
            return
        }
        for key in skippedKeys { collector.summary.skip(skippedKeyReason(key)) }
        if titleBytes == nil, authorBytes == nil {
            collector.add(title: title, author: author, details: details, line: lineNumber)
        } else {
            collector.add(
                storedTitle: titleBytes ?? Array(title.utf8), storedAuthor: authorBytes ?? Array(author.utf8),
                details: details, line: lineNumber)
        }
    }
}

extension BookImport {
    fileprivate static let jsonKeys = Set(BookColumn.allCases.map(\.rawValue))

    fileprivate static func skippedKeyReason(_ key: String) -> String {
        "values of the key \(JSONText.quoted(key)), which is not a field Bookshelf keeps"
    }

    /// The details' text in a JSON object: strings, numbers for the year and series index
    /// (or strings), and an array of strings for tags; null or a missing key for none.
    fileprivate static func jsonDetails(_ object: [String: JSONLineParser.Value]) -> Result<DetailsText, FieldProblems>
    {
        var details = DetailsText()
        var problems: [String] = []
        for column in BookColumn.details {
            guard let value = object[column.rawValue] else { continue }
            switch (column, value) {
            case (_, .null): break
            case (_, .string(let text)): details.set(column, text: text)
            case (.year, .number(let text)), (.seriesIndex, .number(let text)), (.isbn, .number(let text)):
                details.set(column, text: text)
            case (.tags, .array(let elements)):
                var tags: [String] = []
                for element in elements {
                    guard case let .string(tag) = element else {
                        problems.append("tags: each tag must be a string, not \(element.kind)")
                        break
                    }
                    tags.append(tag)
                }
                details.tags = tags
            case (_, .notUTF8): problems.append("\(column.rawValue): not valid UTF-8 text")
            default:
                let expected = column == .tags ? "an array of strings" : "a string"
                problems.append("\(column.rawValue): must be \(expected), not \(value.kind)")
            }
        }
        return problems.isEmpty ? .success(details) : .failure(FieldProblems(reasons: problems))
    }
}

/// A strict JSON reader for one line holding one object. It keeps only the string (or null)
/// values of the keys asked for and checks, without keeping, everything else, so a malformed
/// line is always reported, with the column where it goes wrong.
enum JSONLineParser {
    enum Value: Equatable {
        case string(String)
        /// A string whose `\udcXX` byte escapes (read only with `byteEscapes`) make bytes that
        /// are not valid UTF-8.
        case notUTF8([UInt8])
        case null
        /// A number as written.
        case number(String)
        case array([Value])
        /// A boolean or object, described for an error message.
        case other(String)

        /// What the value is, for an error message.
        var kind: String {
            switch self {
            case .string, .notUTF8: "a string"
            case .null: "null"
            case .number: "a number"
            case .array: "an array"
            case let .other(kind): kind
            }
        }
    }

    struct Failure: Error {
        let reason: String
        /// False for a line that is good JSON holding what the book rules refuse.
        var isJSON = true
    }

    /// Nested arrays or objects deeper than this are refused rather than risking the stack.
    static let maximumDepth = 64

    /// `byteEscapes` reads `\udc80` to `\udcff` as the bytes 80 to ff (`BookExport`'s escape
    /// for bytes that are not UTF-8); without it they are refused.
    /// `skipped` is told each key not in `keys`.
    static func object(
        in line: UnsafeBufferPointer<UInt8>, keeping keys: Set<String>, byteEscapes: Bool = false,
        skipped: (String) -> Void = { _ in }
    ) throws(Failure) -> [String: Value] {
        var reader = Reader(bytes: line)
        reader.byteEscapes = byteEscapes
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "{") else {
            throw reader.failure(reader.atEnd ? "empty line" : "each line must be one object like {\"title\": \"...\"}")
        }
        var kept: [String: Value] = [:]
        var seen: Set<String> = []
        try reader.readObject(depth: 1) { key, reader throws(Failure) in
            guard seen.insert(key).inserted else {
                throw reader.failure("the key \"\(key)\" appears twice in one object")
            }
            if keys.contains(key) {
                kept[key] = try reader.readValue(depth: 1)
            } else {
                _ = try reader.readValue(depth: 1)
                skipped(key)
            }
        }
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.failure("unexpected text after the object") }
        return kept
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        var byteEscapes = false

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[position] }

        func failure(_ reason: String) -> Failure {
            Failure(reason: "\(reason) (column \(position + 1))")
        }

        mutating func skipWhitespace() {
            while let byte = peek, BookImport.isJSONWhitespace(byte) { position += 1 }
        }

        mutating func expect(_ character: Unicode.Scalar, _ description: String) throws(Failure) {
            skipWhitespace()
            guard peek == UInt8(ascii: character) else { throw failure("expected \(description)") }
            position += 1
        }

        /// Reads `{ "key": value, ... }`, handing each key to `member`, which must read the value.
        mutating func readObject(depth: Int, member: (String, inout Reader) throws(Failure) -> Void) throws(Failure) {
            guard depth <= JSONLineParser.maximumDepth else { throw failure("nested too deeply") }
            try expect("{", "'{'")
            skipWhitespace()
            if peek == UInt8(ascii: "}") { position += 1; return }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw failure("expected a quoted key") }
                guard case let .string(key) = try readString() else { throw failure("a key is not valid UTF-8") }
                try expect(":", "':' after a key")
                try member(key, &self)
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return
                default: throw failure("expected ',' or '}'")
                }
            }
        }

        mutating func readValue(depth: Int) throws(Failure) -> Value {
            skipWhitespace()
            guard let byte = peek else { throw failure("a value is missing") }
            switch byte {
            case UInt8(ascii: "\""):
                return try readString()
            case UInt8(ascii: "{"):
                try readObject(depth: depth + 1) { _, reader throws(Failure) in
                    _ = try reader.readValue(depth: depth + 1)
                }
                return .other("an object")
            case UInt8(ascii: "["):
                return .array(try readArray(depth: depth + 1))
            case UInt8(ascii: "t"):
                try readLiteral("true")
                return .other("a boolean")
            case UInt8(ascii: "f"):
                try readLiteral("false")
                return .other("a boolean")
            case UInt8(ascii: "n"):
                try readLiteral("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = position
                try readNumber()
                return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
            default:
                throw failure("unexpected character")
            }
        }

        private mutating func readArray(depth: Int) throws(Failure) -> [Value] {
            guard depth <= JSONLineParser.maximumDepth else { throw failure("nested too deeply") }
            position += 1
            skipWhitespace()
            var elements: [Value] = []
            if peek == UInt8(ascii: "]") { position += 1; return elements }
            while true {
                elements.append(try readValue(depth: depth))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return elements
                default: throw failure("expected ',' or ']'")
                }
            }
        }

        private mutating func readLiteral(_ literal: StaticString) throws(Failure) {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            guard position + expected.count <= bytes.count,
                bytes[position..<(position + expected.count)].elementsEqual(expected)
            else { throw failure("unexpected character") }
            position += expected.count
        }

        /// JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
        private mutating func readNumber() throws(Failure) {
            if peek == UInt8(ascii: "-") { position += 1 }
            if peek == UInt8(ascii: "0") {
                position += 1
            } else {
                guard try digits() > 0 else { throw failure("malformed number") }
            }
            if peek == UInt8(ascii: ".") {
                position += 1
                guard try digits() > 0 else { throw failure("malformed number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                position += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
                guard try digits() > 0 else { throw failure("malformed number") }
            }
        }

        private mutating func digits() throws(Failure) -> Int {
            let start = position
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
            return position - start
        }

        /// Reads a quoted string, decoding escapes. Raw control characters are refused as JSON
        /// requires; escaped ones are decoded and left for the book rules to judge.
        mutating func readString() throws(Failure) -> Value {
            position += 1
            var utf8: [UInt8] = []
            var segmentStart = position
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""):
                    let text: String?
                    if utf8.isEmpty {
                        // No escapes (the usual case): decode straight from the line.
                        text = String(
                            validating: UnsafeBufferPointer(rebasing: bytes[segmentStart..<position]), as: UTF8.self)
                    } else {
                        utf8.append(contentsOf: bytes[segmentStart..<position])
                        text = String(validating: utf8, as: UTF8.self)
                    }
                    position += 1
                    // With byte escapes the line was checked to be UTF-8: only they can make this.
                    if text == nil, byteEscapes { return .notUTF8(utf8) }
                    guard let text else { throw failure("a string is not valid UTF-8") }
                    return .string(text)
                case UInt8(ascii: "\\"):
                    utf8.append(contentsOf: bytes[segmentStart..<position])
                    position += 1
                    try readEscape(into: &utf8)
                    segmentStart = position
                case 0x00..<0x20:
                    throw failure("a control character must be escaped inside a string")
                default:
                    position += 1
                }
            }
            throw failure("a string is never closed")
        }

        private mutating func readEscape(into utf8: inout [UInt8]) throws(Failure) {
            guard let byte = peek else { throw failure("a string is never closed") }
            position += 1
            let simple: UInt8? =
                switch byte {
                case UInt8(ascii: "\""): UInt8(ascii: "\"")
                case UInt8(ascii: "\\"): UInt8(ascii: "\\")
                case UInt8(ascii: "/"): UInt8(ascii: "/")
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                default: nil
                }
            if let simple {
                utf8.append(simple)
                return
            }
            guard byte == UInt8(ascii: "u") else { throw failure("unknown escape") }
            var value = try readHex4()
            if (0xD800..<0xDC00).contains(value) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw failure("an unpaired surrogate escape")
                }
                position += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("an unpaired surrogate escape") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC80...0xDCFF).contains(value) {
                guard byteEscapes else {
                    let escape = "\\u" + String(value, radix: 16)
                    throw Failure(
                        reason:
                            "\(escape) stands for a byte that is not valid UTF-8 text (column \(position - 5))\(BookImport.restoreHint)",
                        isJSON: false)
                }
                utf8.append(UInt8(value - 0xDC00))
                return
            } else if (0xDC00..<0xE000).contains(value) {
                throw failure("an unpaired surrogate escape")
            }
            guard let scalar = Unicode.Scalar(value) else { throw failure("an invalid \\u escape") }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        }

        private mutating func readHex4() throws(Failure) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek, let digit = hexValue(byte) else {
                    throw failure("a \\u escape needs four hex digits")
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        private func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
    }
}

private extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
