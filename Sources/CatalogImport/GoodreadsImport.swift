import BookCatalog
import TerminalSafeText

/// Goodreads' library export ("My Books" → Import and export), as Goodreads writes it: a CSV
/// file whose ISBN columns hold Excel formulas (`="0141439513"`, `=""` for none), whose
/// reviews span lines inside quotes, and whose titles carry the series ("The Fellowship of the
/// Ring (The Lord of the Rings, #1)").
///
/// A book without a usable title or author is a problem, as in any import: nothing is stored.
/// Any other value that breaks its field's rule (an ISBN with a wrong check digit, say) is
/// left out and counted in the summary, so one odd value does not stop a library's import.
public enum GoodreadsImport {
    /// The columns read; every other one with a value is counted as skipped.
    enum Column: String, CaseIterable {
        case bookID = "Book Id"
        case title = "Title", author = "Author", additionalAuthors = "Additional Authors"
        case isbn = "ISBN", isbn13 = "ISBN13", publisher = "Publisher"
        case yearPublished = "Year Published", originalYear = "Original Publication Year"
        case bookshelves = "Bookshelves", exclusiveShelf = "Exclusive Shelf"
        case review = "My Review", privateNotes = "Private Notes"
    }

    /// Columns derived from those read (the author's name turned round, shelves with their
    /// positions): nothing of them is lost, so they are not reported as skipped.
    static let derivedColumns: Set<String> = ["Author l-f", "Bookshelves with positions"]

    /// A whole export held in memory: what a `BookImportStream` of kind `.goodreads` makes of it.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var chunk: [UInt8]? = bytes
        var stream = BookImportStream(
            kind: .goodreads,
            read: {
                defer { chunk = nil }; return chunk ?? []
            })
        return stream.collected()
    }

    /// The columns the header names, as `record` reads each line by them.
    struct Columns {
        let names: [String]
        let indices: [Column: Int]
        /// Columns no field keeps: a value in one is counted as skipped.
        let others: [Int]
    }

    /// The header's columns, or nil (and the problem collected) when this is not Goodreads' export.
    static func columns(_ header: BookImport.CSVReader.Outcome?, into collector: inout BookImport.Collector)
        -> Columns?
    {
        guard case let .record(headerLine, header)? = header else {
            collector.reject(line: 1, "the file is empty; expected Goodreads' header line")
            return nil
        }
        let names = header.map { $0.text ?? "" }
        var indices: [Column: Int] = [:]
        for column in Column.allCases { indices[column] = names.firstIndex(of: column.rawValue) }
        guard indices[.title] != nil else {
            collector.reject(
                line: headerLine, "this is not a Goodreads library export: its header has no \"Title\" column")
            return nil
        }
        let others = names.indices.filter { Column(rawValue: names[$0]) == nil && !derivedColumns.contains(names[$0]) }
        return Columns(names: names, indices: indices, others: others)
    }

    /// One line after the header: a book, or its problems, collected.
    static func record(
        _ outcome: BookImport.CSVReader.Outcome, columns: Columns, into collector: inout BookImport.Collector
    ) {
        switch outcome {
        case .needMore: return
        case let .malformed(line, reason):
            collector.reject(line: line, reason)
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
            let row = Row(fields: fields.map { $0.text ?? "" }, columns: columns.indices)
            for index in columns.others where !isEmptyValue(fields[index].text ?? "") {
                collector.summary.skip(
                    "values of the column \(JSONText.quoted(columns.names[index])) (no field keeps them)")
            }
            switch book(from: row, summary: &collector.summary) {
            case let .success(book):
                collector.keep(book, origin: BookOrigin(source: .goodreads, id: row[.bookID]))
            case let .failure(failure):
                for reason in failure.reasons { collector.reject(line: line, reason) }
            }
        }
    }

    /// One line's fields by column.
    struct Row {
        let fields: [String]
        let columns: [Column: Int]

        subscript(_ column: Column) -> String {
            columns[column].map { fields[$0] } ?? ""
        }
    }

    /// Goodreads writes 0 for no rating, no read count and no copies: those are no values.
    private static func isEmptyValue(_ text: String) -> Bool {
        let trimmed = BookValidation.trim(text)
        return trimmed.isEmpty || trimmed == "0" || trimmed == "=\"\""
    }

    static func book(from row: Row, summary: inout ImportSummary) -> Result<NewBook, FieldProblems> {
        let (title, series) = titleAndSeries(row[.title])
        let authors = [row[.author]] + row[.additionalAuthors].split(separator: ",").map(String.init)
        let author = authors.map(BookValidation.trim).filter { !$0.isEmpty }.joined(separator: ", ")
        let named: NewBook
        do {
            named = try NewBook(title: title, author: author).validated()
        } catch {
            let reason = BookImport.rejection(title: title, author: author) ?? error.description
            return .failure(FieldProblems(reasons: [reason]))
        }
        func kept<Value>(_ field: BookField, _ rule: () throws(BookFailure) -> Value?) -> Value? {
            do {
                return try rule()
            } catch {
                summary.skip("\(field.label) values that break its rule (\(DetailsText.reason(error)))")
                return nil
            }
        }
        let isbnText = [formulaText(row[.isbn13]), formulaText(row[.isbn])].first { !$0.isEmpty } ?? ""
        let yearText = [row[.yearPublished], row[.originalYear]].map(BookValidation.trim).first { !$0.isEmpty } ?? ""
        let shelves =
            row[.bookshelves].split(separator: ",").map(String.init) + [row[.exclusiveShelf]]
        let notes = [row[.review], row[.privateNotes]].map(reviewText).filter { !$0.isEmpty }.joined(
            separator: "\n\n")
        let details = BookDetails(
            isbn: kept(.isbn) { () throws(BookFailure) in try BookValidation.isbn(isbnText) } ?? nil,
            year: kept(.year) { () throws(BookFailure) in try BookValidation.year(text: yearText) } ?? nil,
            publisher: kept(.publisher) { () throws(BookFailure) in try BookValidation.publisher(row[.publisher]) }
                ?? "",
            series: series.map(\.name) ?? "", seriesIndex: series?.index,
            tags: kept(.tags) { () throws(BookFailure) in try BookValidation.tags(shelves) } ?? [],
            notes: kept(.notes) { () throws(BookFailure) in try BookValidation.notes(notes) } ?? "")
        return .success(NewBook(title: named.title, author: named.author, details: details))
    }

    /// `="0141439513"` as Goodreads writes an ISBN (a formula, so a spreadsheet keeps the
    /// leading zero): the text inside; anything else as it is.
    static func formulaText(_ field: String) -> String {
        let trimmed = BookValidation.trim(field)
        guard trimmed.hasPrefix("=\""), trimmed.hasSuffix("\""), trimmed.count >= 3 else { return trimmed }
        return String(trimmed.dropFirst(2).dropLast())
    }

    /// A review is HTML (`<br/>` for a line break, `<i>`, `&amp;`) whose typed line ends are
    /// line breaks too: plain text by the reader of Calibre's comments.
    static func reviewText(_ field: String) -> String {
        BookValidation.trim(HTMLText.plainText(field, lineEnds: .lineBreaks))
    }

    /// "The Fellowship of the Ring (The Lord of the Rings, #1)" is the title "The Fellowship of
    /// the Ring" in the series "The Lord of the Rings" at 1, as Goodreads writes it. A title
    /// whose parentheses do not end in ", #N" (a range such as #1-3, a subtitle) stays whole.
    /// Of several series, the first is kept.
    static func titleAndSeries(_ raw: String) -> (title: String, series: (name: String, index: SeriesIndex)?) {
        let text = BookValidation.trim(raw)
        guard text.hasSuffix(")"), let open = text.lastIndex(of: "("), open > text.startIndex else {
            return (text, nil)
        }
        // A book in several series names each, first the main one: "(Discworld, #8; City Watch, #1)".
        let all = text[text.index(after: open)..<text.index(before: text.endIndex)]
        let inside = all.range(of: "; ").map { all[..<$0.lowerBound] } ?? all
        guard let mark = inside.range(of: ", #", options: .backwards),
            let index = SeriesIndex(String(inside[mark.upperBound...]))
        else { return (text, nil) }
        let name = BookValidation.trim(String(inside[..<mark.lowerBound]))
        let title = BookValidation.trim(String(text[..<open]))
        guard !name.isEmpty, !title.isEmpty, (try? BookValidation.series(name)) != nil else { return (text, nil) }
        return (title, (name, index))
    }
}
