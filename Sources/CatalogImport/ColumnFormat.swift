import BookCatalog
import TerminalSafeText

/// A service's export written as a table: a header naming the columns, then one book a row
/// (CSV: Goodreads, the StoryGraph; tab-separated: LibraryThing). A source says only which
/// columns it reads and how a row of them is a book (`book(_:)`); reading the header, checking
/// each row's fields and counting the values no field keeps is `ColumnFormat`'s, the same for
/// every source, and the book's fields then meet their rules in `SourceBook`, as for every
/// other service's export.
protocol ColumnSource {
    associatedtype Column: RawRepresentable<String>, CaseIterable, Hashable
    /// The column a header must name to be this source's.
    static var titleColumn: Column { get }
    /// The problem of a header without `titleColumn`: the file is not this source's.
    static var notThisSource: String { get }
    /// The problem of a file without a header.
    static var emptyFile: String { get }
    /// Columns made from others: nothing of them is lost, so they are not counted as skipped.
    static var derivedColumns: Set<String> { get }
    /// A value of a column no field keeps that says nothing (the source's way of writing none).
    static func isNoValue(_ text: String) -> Bool
    /// The book a row gives, its fields as the source writes them, and where it came from.
    static func book(_ row: ColumnRow<Column>) -> (book: SourceBook, origin: BookOrigin?)
}

extension ColumnSource {
    static var derivedColumns: Set<String> { [] }

    static func isNoValue(_ text: String) -> Bool { BookValidation.trim(text).isEmpty }
}

/// One row's fields, read by the columns of its header.
struct ColumnRow<Column: RawRepresentable<String> & Hashable> {
    let fields: [String]
    let indices: [Column: Int]

    /// The column's value; empty where the header has no such column or the row is short.
    subscript(_ column: Column) -> String {
        guard let index = indices[column], index < fields.count else { return "" }
        return fields[index]
    }
}

/// How a table's fields are written.
enum ColumnDialect {
    /// RFC 4180 (`BookImport.CSVReader`); every row has as many fields as the header.
    case csv
    /// Fields separated by tabs and never quoted (LibraryThing): a row may leave its trailing
    /// empty fields out or add some, and a field that is not UTF-8 is read as ISO-8859-1 (and
    /// counted), since such files often are.
    case tabs
}

/// Reads a `ColumnSource`'s table, a record (`CSVFramer`'s or `LineFramer`'s) at a time.
struct ColumnFormat<Source: ColumnSource>: RecordFormat {
    let dialect: ColumnDialect
    /// The header's names, once it is read.
    private var names: [String]?
    private var indices: [Source.Column: Int] = [:]
    /// Columns no field keeps: a value in one is counted as skipped.
    private var others: [Int] = []

    init(dialect: ColumnDialect) { self.dialect = dialect }

    /// A header refused for its size leaves nothing readable after it.
    var readsPastARefusedRecord: Bool { names != nil }

    mutating func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector)
        -> Bool
    {
        guard var fields = fields(of: record, line: line, into: &collector) else { return names != nil }
        guard let names else { return readHeader(fields.map { $0 ?? "" }, line: line, into: &collector) }
        if dialect == .tabs, fields.count > names.count, fields[names.count...].allSatisfy({ $0?.isEmpty == true }) {
            fields.removeSubrange(names.count...)
        }
        guard dialect == .tabs ? fields.count <= names.count : fields.count == names.count else {
            collector.reject(line: line, "expected \(names.count) fields as in the header, found \(fields.count)")
            return true
        }
        guard fields.allSatisfy({ $0 != nil }) else {
            collector.reject(line: line, "the line is not valid UTF-8 text")
            return true
        }
        let texts = fields.map { $0 ?? "" }
        for index in others where index < texts.count && !Source.isNoValue(texts[index]) {
            collector.summary.skip("values of the column \(JSONText.quoted(names[index])) (no field keeps them)")
        }
        let (book, origin) = Source.book(ColumnRow(fields: texts, indices: indices))
        book.collect(line: line, origin: origin, into: &collector)
        return true
    }

    mutating func finish(into collector: inout BookImport.Collector) {
        if names == nil { collector.reject(line: 1, Source.emptyFile) }
    }

    private mutating func readHeader(_ fields: [String], line: Int, into collector: inout BookImport.Collector)
        -> Bool
    {
        let header = fields.map(BookValidation.trim)
        for column in Source.Column.allCases { indices[column] = header.firstIndex(of: column.rawValue) }
        guard indices[Source.titleColumn] != nil else {
            collector.reject(line: line, Source.notThisSource)
            return false
        }
        names = header
        others = header.indices.filter {
            Source.Column(rawValue: header[$0]) == nil && !Source.derivedColumns.contains(header[$0])
        }
        return true
    }

    /// The record's fields (nil where one is not UTF-8), or nil when the record is a problem.
    private func fields(of record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector)
        -> [String?]?
    {
        let fields: [String?]
        switch dialect {
        case .csv:
            var reader = BookImport.CSVReader(bytes: record, position: 0, line: line, isFinal: true)
            switch reader.next() {
            case let .malformed(line, reason)?:
                collector.reject(line: line, reason)
                return nil
            case let .record(_, csvFields)?:
                if csvFields.contains(where: { $0.byteCount > BookImportStream.maximumFieldBytes }) {
                    collector.reject(line: line, BookImportStream.fieldTooLong)
                    return nil
                }
                fields = csvFields.map(\.text)
            case .needMore?, nil: return nil
            }
        case .tabs:
            var bytes = ArraySlice(record)
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            let tabbed = bytes.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            if tabbed.contains(where: { $0.count > BookImportStream.maximumFieldBytes }) {
                collector.reject(line: line, BookImportStream.fieldTooLong)
                return nil
            }
            fields = tabbed.map { field in
                if let text = String(validating: field, as: UTF8.self) { return text }
                collector.summary.note(LibraryThingImport.latin1Fallback)
                return TextEncoding.latin1String(field)
            }
        }
        return fields
    }
}
