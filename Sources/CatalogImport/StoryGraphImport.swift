import BookCatalog
import TerminalSafeText

/// The StoryGraph's export (Manage Account → Export StoryGraph Library), as it writes it: a CSV
/// file with a header (`Title, Authors, Contributors, ISBN/UID, Format, Read Status, Date Added,
/// Last Date Read, …, Star Rating, Review, …, Tags, Owned?`), authors joined with ", ", and in
/// ISBN/UID either an ISBN or the StoryGraph's own id for a book without one.
public enum StoryGraphImport {
    enum Column: String, CaseIterable {
        case title = "Title", authors = "Authors", isbnOrUID = "ISBN/UID", readStatus = "Read Status"
        case review = "Review", tags = "Tags"
    }

    /// A whole export held in memory, read as `--from storygraph` reads a file.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var source = BookSourceStream(bytes: bytes, source: .storyGraph)
        return source.collected()
    }

    struct Columns {
        let names: [String]
        let indices: [Column: Int]
        let others: [Int]
    }

    static func columns(_ header: BookImport.CSVReader.Outcome?, into collector: inout BookImport.Collector)
        -> Columns?
    {
        guard case let .record(headerLine, header)? = header else {
            if case let .malformed(line, reason)? = header {
                collector.reject(line: line, reason)
            } else {
                collector.reject(line: 1, "the file is empty; expected the StoryGraph's header line")
            }
            return nil
        }
        let names = header.map { BookValidation.trim($0.text ?? "") }
        var indices: [Column: Int] = [:]
        for column in Column.allCases { indices[column] = names.firstIndex(of: column.rawValue) }
        guard indices[.title] != nil else {
            collector.reject(
                line: headerLine, "this is not a StoryGraph export: its header has no \"Title\" column")
            return nil
        }
        let others = names.indices.filter { Column(rawValue: names[$0]) == nil }
        return Columns(names: names, indices: indices, others: others)
    }

    static func record(
        _ outcome: BookImport.CSVReader.Outcome, columns: Columns, into collector: inout BookImport.Collector
    ) {
        switch outcome {
        case .needMore: return
        case let .malformed(line, reason): collector.reject(line: line, reason)
        case let .record(line, fields):
            guard fields.count == columns.names.count else {
                collector.reject(
                    line: line, "expected \(columns.names.count) fields as in the header, found \(fields.count)")
                return
            }
            guard fields.allSatisfy({ $0.text != nil }) else {
                collector.reject(line: line, "the line is not valid UTF-8 text")
                return
            }
            let texts = fields.map { $0.text ?? "" }
            for index in columns.others where !isEmptyValue(texts[index]) {
                collector.summary.skip(
                    "values of the column \(JSONText.quoted(columns.names[index])) (no field keeps them)")
            }
            func value(_ column: Column) -> String { columns.indices[column].map { texts[$0] } ?? "" }
            var book = SourceBook()
            book.title = value(.title)
            book.authors = SourceBook.values(value(.authors), separatedBy: [","])
            // The StoryGraph gives a book no id of its own but this column: an ISBN, or its UID
            // for a book without one. It is the book's origin either way.
            let isbnOrUID = BookValidation.trim(value(.isbnOrUID))
            if ISBN.looksLikeOne(isbnOrUID) { book.isbns = [isbnOrUID] }
            book.tags = SourceBook.values(value(.tags), separatedBy: [","]) + [value(.readStatus)]
            book.notes = [value(.review)]
            book.collect(line: line, origin: BookOrigin(source: .storyGraph, id: isbnOrUID), into: &collector)
        }
    }

    /// The StoryGraph writes 0 for no read count and No for not owned: those are no values.
    private static func isEmptyValue(_ text: String) -> Bool {
        let trimmed = BookValidation.trim(text)
        return trimmed.isEmpty || trimmed == "0" || trimmed == "No"
    }
}
