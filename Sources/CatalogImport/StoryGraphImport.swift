import BookCatalog

/// The StoryGraph's export (Manage Account → Export StoryGraph Library), as it writes it: a CSV
/// file with a header (`Title, Authors, Contributors, ISBN/UID, Format, Read Status, Date Added,
/// Last Date Read, …, Star Rating, Review, …, Tags, Owned?`), authors joined with ", ", and in
/// ISBN/UID either an ISBN or the StoryGraph's own id for a book without one.
public enum StoryGraphImport: ColumnSource {
    enum Column: String, CaseIterable {
        case title = "Title", authors = "Authors", isbnOrUID = "ISBN/UID", readStatus = "Read Status"
        case review = "Review", tags = "Tags"
    }

    /// A whole export held in memory, read as `--from storygraph` reads a file.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var source = BookSourceStream(bytes: bytes, source: .storyGraph)
        return source.collected()
    }

    static let titleColumn = Column.title
    static let notThisSource = "this is not a StoryGraph export: its header has no \"Title\" column"
    static let emptyFile = "the file is empty; expected the StoryGraph's header line"

    static func book(_ row: ColumnRow<Column>) -> (book: SourceBook, origin: BookOrigin?) {
        var book = SourceBook()
        book.title = row[.title]
        book.authors = SourceBook.values(row[.authors], separatedBy: [","])
        // The StoryGraph gives a book no id of its own but this column: an ISBN, or its UID
        // for a book without one. It is the book's origin either way.
        let isbnOrUID = BookValidation.trim(row[.isbnOrUID])
        if ISBN.looksLikeOne(isbnOrUID) { book.isbns = [isbnOrUID] }
        book.tags = SourceBook.values(row[.tags], separatedBy: [","]) + [row[.readStatus]]
        book.notes = [row[.review]]
        return (book, BookOrigin(source: .storyGraph, id: isbnOrUID))
    }

    /// The StoryGraph writes 0 for no read count and No for not owned: those are no values.
    static func isNoValue(_ text: String) -> Bool {
        let trimmed = BookValidation.trim(text)
        return trimmed.isEmpty || trimmed == "0" || trimmed == "No"
    }
}
