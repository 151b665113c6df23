import BookCatalog

/// Calibre's fields as Bookshelf's: each value meets its rule or is left out and counted, so
/// one odd value (an ISBN with a wrong check digit, a publisher that is not UTF-8 text) does
/// not stop a library's import; only a book that cannot be stored at all (no title, a title or
/// author that is not text, an id two books share) is a problem.
enum CalibreMapping {
    static func map(_ rows: [CalibreRow]) -> CalibreLibrary.Result {
        var books: [SourcedBook] = []
        var problems: [CalibreLibrary.Problem] = []
        var fields = 0
        var skipped = SkipCounts()
        for row in rows {
            let title: String, author: String
            switch named(row) {
            case let .success(named): (title, author) = named
            case let .failure(problem):
                problems.append(CalibreLibrary.Problem(book: row.id, reason: problem.reason))
                continue
            }
            if row.authors == [.text(unknownAuthor)] { skipped.add("the author \"Unknown\", Calibre's word for none") }
            let details = self.details(of: row, skipped: &skipped)
            // A book without a usable uuid is still imported, as a plain file's row is.
            let origin = row.uuid?.text.flatMap { BookOrigin(source: .calibre, id: $0) }
            books.append(SourcedBook(NewBook(title: title, author: author, details: details), origin: origin))
            fields += 1 + (author.isEmpty ? 0 : 1) + details.filledFieldCount
        }
        return CalibreLibrary.Result(sourced: books, problems: problems, fieldsMapped: fields, skipped: skipped.lines)
    }

    /// Why a book cannot be stored.
    struct Unstorable: Error {
        let reason: String
    }

    /// The book's title and author by their rules, or why it cannot be stored.
    static func named(_ row: CalibreRow) -> Result<(title: String, author: String), Unstorable> {
        guard row.rowsWithItsId == 1 else {
            return .failure(
                Unstorable(
                    reason:
                        "\(row.rowsWithItsId) books share this id, so which authors, tags and comments are whose cannot be told: the library is damaged"
                ))
        }
        guard case let .text(title) = row.title else {
            return .failure(Unstorable(reason: "the title is not valid UTF-8 text"))
        }
        let authors = row.authors.compactMap(\.text)
        guard authors.count == row.authors.count else {
            return .failure(Unstorable(reason: "the author is not valid UTF-8 text"))
        }
        do {
            return .success((try BookValidation.title(title), try BookValidation.author(authorText(authors))))
        } catch {
            return .failure(Unstorable(reason: error.description))
        }
    }

    /// What Calibre stores as the author of a book with none.
    static let unknownAuthor = "Unknown"

    /// Authors in the order Calibre links them, as Calibre shows them: "A & B".
    static func authorText(_ authors: [String]) -> String {
        authors == [unknownAuthor] ? "" : authors.joined(separator: " & ")
    }

    static func details(of row: CalibreRow, skipped: inout SkipCounts) -> BookDetails {
        func kept<Value>(_ field: BookField, _ rule: () throws(BookFailure) -> Value?) -> Value? {
            do {
                return try rule()
            } catch {
                skipped.add("\(field.label) values that break its rule (\(reason(error)))")
                return nil
            }
        }
        /// The value's text; bytes that are not UTF-8 are left out and counted.
        func text(_ field: BookField, _ value: CalibreText?) -> String? {
            guard let value else { return nil }
            guard case let .text(text) = value else {
                skipped.add("\(field.label) values that are not valid UTF-8 text")
                return nil
            }
            return text
        }
        var isbnText: String?
        var kinds: [String] = []
        for identifier in row.identifiers {
            guard case let .text(type) = identifier.type else {
                skipped.add("identifiers whose kind is not valid UTF-8 text")
                continue
            }
            if type.lowercased() == "isbn" {
                if isbnText == nil { isbnText = text(.isbn, identifier.value) }
            } else {
                if !kinds.contains(type.lowercased()) { kinds.append(type.lowercased()) }
            }
        }
        for kind in kinds { skipped.addIdentifier(kind: kind) }
        let isbn = kept(.isbn) { () throws(BookFailure) in try BookValidation.isbn(isbnText ?? "") }
        let pubdate = text(.year, row.pubdate)
        let year = kept(.year) { () throws(BookFailure) in try BookValidation.year(text: yearText(pubdate)) }
        let publisherText = text(.publisher, row.publisher) ?? ""
        let publisher = kept(.publisher) { () throws(BookFailure) in try BookValidation.publisher(publisherText) } ?? ""
        let seriesText = text(.series, row.series) ?? ""
        let series = kept(.series) { () throws(BookFailure) in try BookValidation.series(seriesText) } ?? ""
        // Calibre gives every book an index (1.0), in a series or not.
        let index = series.isEmpty ? nil : row.seriesIndex.flatMap(seriesIndex)
        if !series.isEmpty, index == nil, row.seriesIndex != nil {
            skipped.add("Series index values that are negative or too large")
        }
        let tagTexts = row.tags.compactMap { text(.tags, $0) }
        let tags = kept(.tags) { () throws(BookFailure) in try BookValidation.tags(tagTexts) } ?? []
        let comments = text(.notes, row.comments) ?? ""
        let notes =
            kept(.notes) { () throws(BookFailure) in try BookValidation.notes(HTMLText.plainText(comments)) } ?? ""
        if row.hasRating { skipped.add("ratings (Bookshelf keeps none)") }
        if row.languages > 0 { skipped.add("languages (Bookshelf keeps none)") }
        return BookDetails(
            isbn: isbn ?? nil, year: year ?? nil, publisher: publisher, series: series, seriesIndex: index, tags: tags,
            notes: notes)
    }

    /// The year of a Calibre pubdate ("1954-07-29 00:00:00+00:00"); "" for Calibre's unknown
    /// date (0101-01-01) or none.
    static func yearText(_ pubdate: String?) -> String {
        guard let pubdate, !pubdate.hasPrefix(CalibreLibrary.unknownDatePrefix) else { return "" }
        return String(pubdate.prefix { $0 != "-" })
    }

    /// Calibre keeps the index as a floating-point number; Bookshelf in thousandths.
    static func seriesIndex(_ value: Double) -> SeriesIndex? {
        guard value.isFinite, value >= 0, value * 1000 <= Double(SeriesIndex.maximumThousandths) else { return nil }
        return SeriesIndex(thousandths: Int((value * 1000).rounded()))
    }

    private static func reason(_ failure: BookFailure) -> String {
        if case let .invalidField(_, reason) = failure { return reason }
        return failure.description
    }
}

/// Kinds of things left out, counted, in the order first met. A file decides how many kinds
/// there are (an identifier's kind is any text), so their lines are bounded in number and
/// length, and each is found in constant time.
struct SkipCounts {
    private(set) var lines: [(reason: String, count: Int)] = []
    private var lineOfReason: [String: Int] = [:]
    private var namedKinds: Set<String> = []

    /// Identifier kinds named on a line of their own; the others share one line.
    static let namedIdentifierKinds = 10
    /// The characters of a kind shown.
    static let shownKindLength = 40

    mutating func add(_ reason: String) {
        if let index = lineOfReason[reason] {
            lines[index].count += 1
        } else {
            lineOfReason[reason] = lines.count
            lines.append((reason, 1))
        }
    }

    mutating func addIdentifier(kind: String) {
        if namedKinds.contains(kind) || namedKinds.count < Self.namedIdentifierKinds {
            namedKinds.insert(kind)
            let shown = kind.count > Self.shownKindLength ? kind.prefix(Self.shownKindLength) + "…" : kind
            add("identifiers of kind \"\(shown)\" (only ISBNs are kept)")
        } else {
            add("identifiers of other kinds (only ISBNs are kept)")
        }
    }
}

extension BookDetails {
    /// How many of the fields hold a value.
    var filledFieldCount: Int {
        [
            isbn != nil, year != nil, !publisher.isEmpty, !series.isEmpty, seriesIndex != nil, !tags.isEmpty,
            !notes.isEmpty,
        ].count { $0 }
    }
}
