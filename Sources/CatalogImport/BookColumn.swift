import BookCatalog

/// The columns of a CSV file and the keys of a JSON Lines object, one for each field of a
/// book, in the order an export writes them.
public enum BookColumn: String, Sendable, CaseIterable {
    case title, author, isbn, year, publisher, series
    case seriesIndex = "series_index"
    case tags, notes

    /// The columns after title and author: the book's details.
    public static let details: [BookColumn] = [.isbn, .year, .publisher, .series, .seriesIndex, .tags, .notes]

    public init(_ field: BookField) {
        switch field {
        case .title: self = .title
        case .author: self = .author
        case .isbn: self = .isbn
        case .year: self = .year
        case .publisher: self = .publisher
        case .series: self = .series
        case .seriesIndex: self = .seriesIndex
        case .tags: self = .tags
        case .notes: self = .notes
        }
    }
}

/// A book's details as a file holds them: text that has not met its rules yet.
struct DetailsText: Sendable, Equatable {
    var isbn = ""
    var year = ""
    var publisher = ""
    var series = ""
    var seriesIndex = ""
    var tags: [String] = []
    var notes = ""

    /// The details as a store keeps them, or every field that breaks its rule, named by its
    /// column ("isbn: its check digit is wrong…"), so one run tells the user all to fix.
    func validated() -> Result<BookDetails, FieldProblems> {
        var problems: [String] = []
        func checked<Value>(_ column: BookColumn, _ rule: () throws(BookFailure) -> Value) -> Value? {
            do {
                return try rule()
            } catch {
                problems.append("\(column.rawValue): \(Self.reason(error))")
                return nil
            }
        }
        let isbn = checked(.isbn) { () throws(BookFailure) in try BookValidation.isbn(self.isbn) }
        let year = checked(.year) { () throws(BookFailure) in try BookValidation.year(text: self.year) }
        let publisher = checked(.publisher) { () throws(BookFailure) in try BookValidation.publisher(self.publisher) }
        let series = checked(.series) { () throws(BookFailure) in try BookValidation.series(self.series) }
        let index = checked(.seriesIndex) { () throws(BookFailure) in
            try BookValidation.seriesIndex(text: self.seriesIndex)
        }
        let tags = checked(.tags) { () throws(BookFailure) in try BookValidation.tags(self.tags) }
        let notes = checked(.notes) { () throws(BookFailure) in try BookValidation.notes(self.notes) }
        guard problems.isEmpty, let isbn, let year, let publisher, let series, let index, let tags, let notes else {
            return .failure(FieldProblems(reasons: problems))
        }
        return .success(
            BookDetails(
                isbn: isbn, year: year, publisher: publisher, series: series, seriesIndex: index, tags: tags,
                notes: notes))
    }

    /// The rule's words without the field's label, which the column name replaces.
    static func reason(_ failure: BookFailure) -> String {
        if case let .invalidField(_, reason) = failure { return reason }
        return failure.description
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

extension DetailsText {
    /// Sets the field of `column` from its text in a file: tags as "a, b, c".
    mutating func set(_ column: BookColumn, text: String) {
        switch column {
        case .title, .author: break
        case .isbn: isbn = text
        case .year: year = text
        case .publisher: publisher = text
        case .series: series = text
        case .seriesIndex: seriesIndex = text
        case .tags: tags = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case .notes: notes = text
        }
    }
}

/// The fields of one record that break their rules, each as "column: reason".
struct FieldProblems: Error, Equatable {
    let reasons: [String]
}
