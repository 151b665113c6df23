import BookCatalog
import TerminalSafeText

/// LibraryThing's export (More → Import/Export → Export: "tab-delimited text"), as LibraryThing
/// writes it: one book a line, fields separated by tabs and never quoted, a header naming the
/// columns. Values may be bracketed (`[2070291340]`), names are written family first
/// ("Cortazar, Julio"), and the multi-valued fields separate their values with `|` (secondary
/// authors, series) or `,` (tags, collections, ISBNs). The file is often ISO-8859-1: a file
/// whose first megabyte is not UTF-8 is read as ISO-8859-1 whole, and a later field that is not
/// UTF-8 is read as ISO-8859-1 alone (and counted).
public enum LibraryThingImport: ColumnSource {
    enum Column: String, CaseIterable {
        case bookID = "Book Id", title = "Title", primaryAuthor = "Primary Author"
        case secondaryAuthor = "Secondary Author", publication = "Publication", date = "Date"
        case isbn = "ISBN", isbns = "ISBNs", tags = "Tags", collections = "Collections"
        case review = "Review", comment = "Comment", privateComment = "Private Comment", series = "Series"
    }

    /// Columns made from others (the title's sort position): nothing of them is lost.
    static let derivedColumns: Set<String> = ["Sort Character"]
    /// A whole export held in memory, read as `--from librarything` reads a file.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var source = BookSourceStream(bytes: bytes, source: .libraryThing)
        return source.collected()
    }

    static let titleColumn = Column.title
    static let notThisSource =
        "this is not a LibraryThing export: its header has no \"Title\" column (the columns are separated by tabs)"
    static let emptyFile = "the file is empty; expected LibraryThing's header line"

    /// A line of the TSV export as the book it gives.
    static func book(_ row: ColumnRow<Column>) -> (book: SourceBook, origin: BookOrigin?) {
        var book = SourceBook()
        book.title = row[.title]
        book.authors =
            ([row[.primaryAuthor]] + SourceBook.values(row[.secondaryAuthor], separatedBy: ["|"]))
            .map(SourceBook.givenFirst)
        book.isbns =
            [unbracketed(row[.isbn])] + SourceBook.values(unbracketed(row[.isbns]), separatedBy: [",", "|"])
        book.year = SourceBook.yearText(unbracketed(row[.date]))
        book.publisher = publisher(row[.publication])
        let series = SourceBook.values(row[.series], separatedBy: ["|"]).first.map(SourceBook.seriesAndIndex)
        (book.series, book.seriesIndex) = series ?? ("", "")
        book.tags =
            SourceBook.values(row[.tags], separatedBy: [",", "|"])
            + SourceBook.values(row[.collections], separatedBy: [",", "|"])
        book.notes = [row[.review], row[.comment], row[.privateComment]].map(paragraphs)
        return (book, BookOrigin(source: .libraryThing, id: row[.bookID]))
    }

    /// Not a skip: said in the summary so that a user can check those fields' accents.
    static let latin1Fallback = "fields that were not UTF-8, read as ISO-8859-1 (check their accents)"

    /// "[2070291340]" as "2070291340"; other text as it is.
    static func unbracketed(_ text: String) -> String {
        let trimmed = BookValidation.trim(text)
        guard trimmed.hasPrefix("["), trimmed.hasSuffix("]"), trimmed.count >= 2 else { return trimmed }
        return BookValidation.trim(String(trimmed.dropFirst().dropLast()))
    }

    /// "Gallimard (1979), Poche" is the publisher "Gallimard": LibraryThing writes the
    /// publisher, the year in parentheses, then the binding.
    static func publisher(_ publication: String) -> String {
        let trimmed = BookValidation.trim(publication)
        if let open = trimmed.range(of: " (") { return BookValidation.trim(String(trimmed[..<open.lowerBound])) }
        if let comma = trimmed.firstIndex(of: ",") { return BookValidation.trim(String(trimmed[..<comma])) }
        return trimmed
    }

    /// LibraryThing writes a paragraph break in a review or comment as "[Return]" (a TSV line
    /// cannot hold one).
    static func paragraphs(_ text: String) -> String {
        text.replacingOccurrences(of: "[Return][Return]", with: "\n\n").replacingOccurrences(
            of: "[Return]", with: "\n")
    }
}

extension LibraryThingImport {
    /// LibraryThing's JSON export: one object whose members are the books, each keyed by its
    /// book id: `{"5498194": {"books_id": "5498194", "title": "Marelle", "authors": [{"lf":
    /// "Cortazar, Julio", "fl": "Julio Cortazar"}], …}}`.
    struct JSONFormat: RecordFormat {
        enum Key: String, CaseIterable {
            case title, primaryAuthor = "primaryauthor", authors, date, publication, isbn
            case originalISBN = "originalisbn", ean, tags, collections, series, review, comment
            case privateComment = "privatecomment"
        }

        /// Keys made from others or that say nothing of the book: not counted as skipped. The
        /// book id is the member's key too, and is the book's origin.
        static let derivedKeys: Set<String> = ["sortcharacter", "primaryauthorrole", "title_sort", "books_id"]

        func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector) -> Bool {
            let member: JSONTree.Member
            do {
                member = try JSONTree.parseMember(record)
            } catch {
                collector.reject(line: line, "bad JSON: \(error.reason)")
                return true
            }
            guard case let .object(members) = member.value else {
                collector.reject(line: line, "each book must be an object, as in {\"12345\": {\"title\": \"...\"}}")
                return true
            }
            let book = member.value
            for entry in members
            where Key(rawValue: entry.key) == nil && !Self.derivedKeys.contains(entry.key)
                && CSLJSONImport.isValue(entry.value)
            {
                collector.summary.skip("values of the key \(JSONText.quoted(entry.key)) (no field keeps them)")
            }
            func text(_ key: Key) -> String { book[key.rawValue]?.text ?? "" }
            func strings(_ key: Key) -> [String] {
                switch book[key.rawValue] {
                case let .array(elements)?: elements.compactMap(\.text)
                case let .object(members)?: members.compactMap(\.value.text)
                case let value?: value.text.map { SourceBook.values($0, separatedBy: [",", "|"]) } ?? []
                case nil: []
                }
            }
            var source = SourceBook()
            source.title = text(.title)
            if case let .array(authors)? = book[Key.authors.rawValue], !authors.isEmpty {
                source.authors = authors.compactMap { author in
                    author["fl"]?.text ?? author["lf"]?.text.map(SourceBook.givenFirst) ?? author.text
                }
            } else {
                source.authors = [SourceBook.givenFirst(text(.primaryAuthor))]
            }
            source.isbns =
                [LibraryThingImport.unbracketed(text(.originalISBN))]
                + strings(.isbn).map(LibraryThingImport.unbracketed)
                + strings(.ean)
            source.year = SourceBook.yearText(LibraryThingImport.unbracketed(text(.date)))
            source.publisher = LibraryThingImport.publisher(text(.publication))
            (source.series, source.seriesIndex) = strings(.series).first.map(SourceBook.seriesAndIndex) ?? ("", "")
            source.tags = strings(.tags) + strings(.collections)
            source.notes = [text(.review), text(.comment), text(.privateComment)].map(LibraryThingImport.paragraphs)
            // The member's key is the book id (books_id repeats it).
            source.collect(
                line: line, origin: BookOrigin(source: .libraryThing, id: book["books_id"]?.text ?? member.key),
                into: &collector)
            return true
        }
    }
}
