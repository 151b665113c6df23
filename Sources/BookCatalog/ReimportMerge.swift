/// One book of a re-import merged three ways, field by field (issue 60):
/// - the base is the values the last import of this source brought;
/// - theirs is what the source says now;
/// - yours is what the catalog holds now.
///
/// A field only the source changed takes the source's value; a field only you changed keeps
/// yours; a field both changed to the same value is unchanged; a field both changed to
/// different values is a conflict, which keeps yours unless `preferSource`. A book matched
/// with no base (by ISBN, never imported from this source) cannot tell whose change a
/// difference is, so every field that differs is a conflict.
///
/// Unlike the editor's merge of a draft (which merges tags as sets and notes by line), each
/// field merges whole, so a re-import's report names each conflict by book and field and
/// nothing is half taken.
public struct ReimportMerge: Sendable, Equatable {
    /// The values to save: yours, with the fields taken from the source.
    public let merged: NewBook
    /// The fields whose value is taken from the source (a conflict resolved for it included).
    public let updated: [BookField]
    /// The fields both sides changed to different values (or that differ with no base).
    public let conflicts: [BookField]

    public init(base: NewBook?, theirs: NewBook, yours: NewBook, preferSource: Bool) {
        var merged = ReimportValues(yours)
        let (old, their, mine) = (base.map(ReimportValues.init), ReimportValues(theirs), ReimportValues(yours))
        var updated: [BookField] = []
        var conflicts: [BookField] = []
        for field in BookField.allCases where their[field] != mine[field] {
            if let old, their[field] == old[field] { continue }
            if let old, mine[field] == old[field] {
                merged[field] = their[field]
                updated.append(field)
                continue
            }
            conflicts.append(field)
            if preferSource {
                merged[field] = their[field]
                updated.append(field)
            }
        }
        self.merged = merged.book
        self.updated = updated
        self.conflicts = conflicts
    }
}

/// A book's values field by field, so that a merge can take one field from another book.
struct ReimportValues: Equatable {
    enum Value: Equatable {
        case text(String)
        case isbn(String?)
        case year(Int?)
        case seriesIndex(SeriesIndex?)
        case tags([String])
    }

    private(set) var title: String
    private(set) var author: String
    private(set) var isbn: String?
    private(set) var year: Int?
    private(set) var publisher: String
    private(set) var series: String
    private(set) var seriesIndex: SeriesIndex?
    private(set) var tags: [String]
    private(set) var notes: String

    init(_ book: NewBook) {
        (title, author) = (book.title, book.author)
        let details = book.details
        (isbn, year, publisher, series) = (details.isbn, details.year, details.publisher, details.series)
        (seriesIndex, tags, notes) = (details.seriesIndex, details.tags, details.notes)
    }

    var book: NewBook {
        NewBook(
            title: title, author: author,
            details: BookDetails(
                isbn: isbn, year: year, publisher: publisher, series: series, seriesIndex: seriesIndex, tags: tags,
                notes: notes))
    }

    subscript(_ field: BookField) -> Value {
        get {
            switch field {
            case .title: .text(title)
            case .author: .text(author)
            case .isbn: .isbn(isbn)
            case .year: .year(year)
            case .publisher: .text(publisher)
            case .series: .text(series)
            case .seriesIndex: .seriesIndex(seriesIndex)
            case .tags: .tags(tags)
            case .notes: .text(notes)
            }
        }
        set {
            switch (field, newValue) {
            case let (.title, .text(value)): title = value
            case let (.author, .text(value)): author = value
            case let (.isbn, .isbn(value)): isbn = value
            case let (.year, .year(value)): year = value
            case let (.publisher, .text(value)): publisher = value
            case let (.series, .text(value)): series = value
            case let (.seriesIndex, .seriesIndex(value)): seriesIndex = value
            case let (.tags, .tags(value)): tags = value
            case let (.notes, .text(value)): notes = value
            default: preconditionFailure("a value of another field's kind")
            }
        }
    }
}
