import BookCatalog

/// Goodreads' library export ("My Books" → Import and export), as Goodreads writes it: a CSV
/// file whose ISBN columns hold Excel formulas (`="0141439513"`, `=""` for none), whose
/// reviews span lines inside quotes, and whose titles carry the series ("The Fellowship of the
/// Ring (The Lord of the Rings, #1)").
///
/// A book without a usable title or author is a problem, as in any import: nothing is stored.
/// Any other value that breaks its field's rule (an ISBN with a wrong check digit, say) is
/// left out and counted in the summary, so one odd value does not stop a library's import.
public enum GoodreadsImport: ColumnSource {
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
    static let titleColumn = Column.title
    static let notThisSource = "this is not a Goodreads library export: its header has no \"Title\" column"
    static let emptyFile = "the file is empty; expected Goodreads' header line"

    /// A whole export held in memory: what a `BookImportStream` of kind `.goodreads` makes of it
    /// (as a `ColumnFormat`, its rows read by the columns below).
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var chunk: [UInt8]? = bytes
        var stream = BookImportStream(
            kind: .goodreads,
            read: {
                defer { chunk = nil }; return chunk ?? []
            })
        return stream.collected()
    }

    /// A row of the export as the book it gives: the series from the title, the ISBN-13 or else
    /// the ISBN, the year published before the original one, the shelves as tags, the
    /// review and the private notes as paragraphs of the notes.
    static func book(_ row: ColumnRow<Column>) -> (book: SourceBook, origin: BookOrigin?) {
        let (title, series) = titleAndSeries(row[.title])
        var book = SourceBook()
        book.title = title
        book.authors = [row[.author]] + row[.additionalAuthors].split(separator: ",").map(String.init)
        // The ISBN-13 if there is one, else the ISBN: one that breaks its rule is counted, and
        // the other is not tried in its place (they name one book; a wrong one is a wrong export).
        book.isbns = [[formulaText(row[.isbn13]), formulaText(row[.isbn])].first { !$0.isEmpty } ?? ""]
        book.year = [row[.yearPublished], row[.originalYear]].map(BookValidation.trim).first { !$0.isEmpty } ?? ""
        book.publisher = row[.publisher]
        book.series = series?.name ?? ""
        book.seriesIndex = series.map { "\($0.index)" } ?? ""
        book.tags = row[.bookshelves].split(separator: ",").map(String.init) + [row[.exclusiveShelf]]
        book.notes = [reviewText(row[.review]), reviewText(row[.privateNotes])]
        return (book, BookOrigin(source: .goodreads, id: row[.bookID]))
    }

    /// Goodreads writes 0 for no rating, no read count and no copies: those are no values.
    static func isNoValue(_ text: String) -> Bool {
        let trimmed = BookValidation.trim(text)
        return trimmed.isEmpty || trimmed == "0" || trimmed == "=\"\""
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
