/// One change for many books: every edit applied to each book in turn. Each value is checked
/// by its field's rule when the change is made, and each book's result again when applied
/// (a tag added to a book that has fifty breaks the rule for that book alone).
public struct BulkChange: Sendable, Equatable {
    public enum Edit: Sendable, Equatable {
        /// Sets a field to one value for every book.
        case set(FieldValue)
        /// Adds these tags to each book's set.
        case addTags([String])
        /// Removes these tags (compared folded, as the set compares them).
        case removeTags([String])
        /// Replaces every occurrence of `text` in a field by `replacement` (exact characters).
        case replace(TextField, text: String, replacement: String)
    }

    /// A field a bulk edit may set, with its value as the field's rule keeps it. A title or an
    /// ISBN is one book's own, so it is not among them.
    public enum FieldValue: Sendable, Equatable {
        case author(String)
        case year(Int?)
        case publisher(String)
        case series(String)
        case seriesIndex(SeriesIndex?)
        case tags([String])
        case notes(String)

        public var field: BookField {
            switch self {
            case .author: .author
            case .year: .year
            case .publisher: .publisher
            case .series: .series
            case .seriesIndex: .seriesIndex
            case .tags: .tags
            case .notes: .notes
            }
        }
    }

    /// The fields whose text a replacement may change.
    public enum TextField: String, Sendable, Equatable, CaseIterable {
        case title, author, publisher, series, notes

        public var field: BookField {
            switch self {
            case .title: .title
            case .author: .author
            case .publisher: .publisher
            case .series: .series
            case .notes: .notes
            }
        }
    }

    public let edits: [Edit]

    /// The change, or the first value that breaks its field's rule. No edits, or two edits of
    /// one field (other than adding and removing different tags), is `BulkChangeProblem`.
    public init(_ edits: [Edit]) throws(BulkChangeProblem) {
        guard !edits.isEmpty else { throw .nothingToChange }
        var fields: [BookField] = []
        var clean: [Edit] = []
        var added = Set<String>(), removed = Set<String>()
        for edit in edits {
            let checked: Edit
            do { checked = try Self.validated(edit) } catch { throw .invalidValue(error) }
            switch checked {
            case let .set(value):
                guard !fields.contains(value.field) else { throw .fieldTwice(value.field) }
                fields.append(value.field)
            case let .replace(field, text, _):
                guard !text.isEmpty else { throw .emptyReplacementText }
                guard !fields.contains(field.field) else { throw .fieldTwice(field.field) }
                fields.append(field.field)
            case let .addTags(tags):
                added.formUnion(tags.map(SearchTerms.fold))
            case let .removeTags(tags):
                removed.formUnion(tags.map(SearchTerms.fold))
            }
            clean.append(checked)
        }
        if fields.contains(.tags) && !(added.isEmpty && removed.isEmpty) { throw .fieldTwice(.tags) }
        if let both = added.intersection(removed).sorted().first { throw .tagAddedAndRemoved(both) }
        self.edits = clean
    }

    /// The fields this change may touch, in the form's order.
    public var fields: [BookField] {
        let touched = edits.map { edit -> BookField in
            switch edit {
            case let .set(value): value.field
            case .addTags, .removeTags: .tags
            case let .replace(field, _, _): field.field
            }
        }
        return BookField.allCases.filter(touched.contains)
    }

    /// `record` with the change applied, every field as a store keeps it; or the rule the result
    /// breaks (too many tags, text too long after a replacement).
    public func applied(to record: BookRecord) throws(BookFailure) -> BookRecord {
        var title = record.title, author = record.author
        let old = record.details
        var (year, publisher, series) = (old.year, old.publisher, old.series)
        var (seriesIndex, tags, notes) = (old.seriesIndex, old.tags, old.notes)
        for edit in edits {
            switch edit {
            case let .set(.author(value)): author = value
            case let .set(.year(value)): year = value
            case let .set(.publisher(value)): publisher = value
            case let .set(.series(value)): series = value
            case let .set(.seriesIndex(value)): seriesIndex = value
            case let .set(.tags(value)): tags = value
            case let .set(.notes(value)): notes = value
            case let .addTags(added): tags += added
            case let .removeTags(removed):
                let gone = Set(removed.map(SearchTerms.fold))
                tags.removeAll { gone.contains(SearchTerms.fold($0)) }
            case let .replace(field, text, replacement):
                switch field {
                case .title: title = title.replacingOccurrences(of: text, with: replacement)
                case .author: author = author.replacingOccurrences(of: text, with: replacement)
                case .publisher: publisher = publisher.replacingOccurrences(of: text, with: replacement)
                case .series: series = series.replacingOccurrences(of: text, with: replacement)
                case .notes: notes = notes.replacingOccurrences(of: text, with: replacement)
                }
            }
        }
        let details = try BookDetails(
            isbn: old.isbn, year: year, publisher: publisher, series: series, seriesIndex: seriesIndex, tags: tags,
            notes: notes
        ).validated()
        return BookRecord(
            id: record.id, title: try BookValidation.title(title), revision: record.revision,
            author: try BookValidation.author(author), details: details)
    }

    private static func validated(_ edit: Edit) throws(BookFailure) -> Edit {
        switch edit {
        case let .set(.author(value)): return .set(.author(try BookValidation.author(value)))
        case let .set(.year(value)):
            return .set(.year(try value.map { year throws(BookFailure) in try BookValidation.year(year) }))
        case let .set(.publisher(value)): return .set(.publisher(try BookValidation.publisher(value)))
        case let .set(.series(value)): return .set(.series(try BookValidation.series(value)))
        case .set(.seriesIndex): return edit
        case let .set(.tags(value)): return .set(.tags(try BookValidation.tags(value)))
        case let .set(.notes(value)): return .set(.notes(try BookValidation.notes(value)))
        case let .addTags(tags): return .addTags(try BookValidation.tags(tags))
        case let .removeTags(tags): return .removeTags(try BookValidation.tags(tags))
        case .replace:
            // Each book's result is checked when applied; the text itself is bounded here.
            guard case let .replace(_, text, replacement) = edit,
                text.count <= BookValidation.maximumNotesLength, replacement.count <= BookValidation.maximumNotesLength
            else { throw .invalidField(.notes, reason: "a replacement's text is too long") }
            return edit
        }
    }
}

/// Why a bulk change cannot be made, in words a user can act on.
public enum BulkChangeProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case nothingToChange
    case fieldTwice(BookField)
    case tagAddedAndRemoved(String)
    case emptyReplacementText
    case invalidValue(BookFailure)

    public var description: String {
        switch self {
        case .nothingToChange: "a bulk edit needs a change: a field to set, tags to add or remove, or text to replace"
        case let .fieldTwice(field): "\(field.label) is changed twice in one bulk edit; give one change of it"
        case let .tagAddedAndRemoved(tag): "the tag \"\(tag)\" is both added and removed"
        case .emptyReplacementText: "the text to replace is empty"
        case let .invalidValue(failure): failure.description
        }
    }
}
