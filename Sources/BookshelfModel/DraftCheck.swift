import BookCatalog

/// The draft held against every field's rule (`BookValidation`), before anything is sent: what
/// a save would write, or what is wrong with each field that breaks its rule.
struct DraftCheck {
    /// Each failing field's problem, in words a user can act on.
    let problems: [EditorField: String]
    /// Every field beyond title and author as a store keeps them; nil when any of them fails.
    let details: BookDetails?

    init(_ draft: BookDraft) {
        var problems: [EditorField: String] = [:]
        func checked<Value>(_ field: EditorField, _ rule: () throws(BookFailure) -> Value) -> Value? {
            do { return try rule() } catch {
                problems[field] = error.description
                return nil
            }
        }
        if let problem = BookValidation.titleProblem(draft.title) { problems[.title] = problem }
        _ = checked(.author) { () throws(BookFailure) in try BookValidation.author(draft.author) }
        let isbn = checked(.isbn) { () throws(BookFailure) in try BookValidation.isbn(draft.isbn) }
        let year = checked(.year) { () throws(BookFailure) in try BookValidation.year(text: draft.year) }
        let publisher = checked(.publisher) { () throws(BookFailure) in try BookValidation.publisher(draft.publisher) }
        let series = checked(.series) { () throws(BookFailure) in try BookValidation.series(draft.series) }
        let index = checked(.seriesIndex) { () throws(BookFailure) in
            try BookValidation.seriesIndex(text: draft.seriesIndex)
        }
        let tags = checked(.tags) { () throws(BookFailure) in try BookValidation.tags(text: draft.tags) }
        let notes = checked(.notes) { () throws(BookFailure) in try BookValidation.notes(draft.notes) }
        self.problems = problems
        if let isbn, let year, let publisher, let series, let index, let tags, let notes {
            details = BookDetails(
                isbn: isbn, year: year, publisher: publisher, series: series, seriesIndex: index, tags: tags,
                notes: notes)
        } else {
            details = nil
        }
    }

    var isValid: Bool { problems.isEmpty }

    /// The text of `field` as a store would keep it (an ISBN-10 as its ISBN-13, tags sorted),
    /// or as typed when it breaks its rule: two drafts that would save the same value agree here.
    static func canonical(_ field: EditorField, of text: String) -> String {
        let draft = BookDraft(title: "", author: "").with(field, text)
        switch field {
        case .title: return (try? BookValidation.title(text)) ?? text
        case .author: return (try? BookValidation.author(text)) ?? text
        default:
            guard let details = DraftCheck(draft).details else { return text }
            return BookDraft(title: "", author: "", details: details)[field]
        }
    }
}

extension DraftCheck {
    /// Every field of `draft`, as a store would keep it, equals `record`'s.
    static func savesTheSame(_ draft: BookDraft, as record: BookRecord) -> Bool {
        let stored = BookDraft(record)
        return EditorField.allCases.allSatisfy { canonical($0, of: draft[$0]) == stored[$0] }
    }
}

extension BookDraft {
    func with(_ field: EditorField, _ text: String) -> BookDraft {
        var draft = self
        draft[field] = text
        return draft
    }
}
