import BookCatalog

/// A book as another service's export gives it, its fields still text: what the Goodreads,
/// LibraryThing, StoryGraph, CSL-JSON and BibTeX readers make of a record before the book rules
/// judge it, so that every service's values meet their rules the one way.
///
/// As with Goodreads, a book without a usable title or author is a problem (nothing is stored),
/// and any other value that breaks its field's rule is left out and counted in the summary, so
/// one odd value does not stop a library's import.
struct SourceBook {
    var title = ""
    /// Each author's name as "Given Family", joined with ", " into the one author field.
    var authors: [String] = []
    /// ISBNs in the order they are tried: the first that keeps the rule is kept.
    var isbns: [String] = []
    var year = ""
    var publisher = ""
    var series = ""
    var seriesIndex = ""
    var tags: [String] = []
    /// Paragraphs of the notes, joined with a blank line.
    var notes: [String] = []

    /// The book, or why it cannot be one; a detail that breaks its rule is counted in `summary`.
    func book(summary: inout ImportSummary) -> Result<NewBook, FieldProblems> {
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
        let candidates = isbns.map(BookValidation.trim).filter { !$0.isEmpty }
        // The first ISBN that keeps the rule; only when none does is one counted as broken.
        let isbn =
            candidates.lazy.compactMap { try? BookValidation.isbn($0) }.first
            ?? candidates.first.flatMap { first in
                kept(.isbn) { () throws(BookFailure) in try BookValidation.isbn(first) } ?? nil
            }
        let seriesName = kept(.series) { () throws(BookFailure) in try BookValidation.series(series) } ?? ""
        let index =
            seriesName.isEmpty
            ? nil
            : kept(.seriesIndex) { () throws(BookFailure) in try BookValidation.seriesIndex(text: seriesIndex) }
                ?? nil
        let notesText = notes.map(BookValidation.trim).filter { !$0.isEmpty }.joined(separator: "\n\n")
        let details = BookDetails(
            isbn: isbn,
            year: kept(.year) { () throws(BookFailure) in try BookValidation.year(text: year) } ?? nil,
            publisher: kept(.publisher) { () throws(BookFailure) in try BookValidation.publisher(publisher) } ?? "",
            series: seriesName, seriesIndex: index,
            tags: kept(.tags) { () throws(BookFailure) in try BookValidation.tags(tags) } ?? [],
            notes: kept(.notes) { () throws(BookFailure) in try BookValidation.notes(notesText) } ?? "")
        return .success(NewBook(title: named.title, author: named.author, details: details))
    }

    /// Collects the book with where it came from (nil when the record has no id of its own),
    /// or its problem with `line`.
    func collect(line: Int, origin: BookOrigin?, into collector: inout BookImport.Collector) {
        switch book(summary: &collector.summary) {
        case let .success(book): collector.keep(book, origin: origin)
        case let .failure(failure): for reason in failure.reasons { collector.reject(line: line, reason) }
        }
    }

    /// "Tolkien, J.R.R." as "J.R.R. Tolkien": a name written family first, with one comma. A
    /// name with more commas ("King, Martin Luther, Jr.") or none is kept as written.
    static func givenFirst(_ name: String) -> String {
        let trimmed = BookValidation.trim(name)
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return trimmed }
        let family = BookValidation.trim(String(parts[0])), given = BookValidation.trim(String(parts[1]))
        guard !family.isEmpty, !given.isEmpty else { return trimmed }
        return given + " " + family
    }

    /// The first whole number in `text` that can be a year ("1979", "[2007-04-16]", "c1850",
    /// "-400"); the text itself when it holds none (the rule then says why).
    static func yearText(_ text: String) -> String {
        let trimmed = BookValidation.trim(text)
        guard !trimmed.isEmpty, Int(trimmed) == nil else { return trimmed }
        let scalars = Array(trimmed.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard scalars[index].properties.numericType != nil, scalars[index].isASCII else {
                index += 1
                continue
            }
            var end = index
            while end < scalars.count, scalars[end].isASCII, scalars[end].properties.numericType != nil { end += 1 }
            let digits = String(String.UnicodeScalarView(scalars[index..<end]))
            // Three or four digits: a day or a month is not a year.
            if digits.count >= 3 && digits.count <= 4 { return digits }
            index = end
        }
        return trimmed
    }

    /// "Discworld (8)", "Discworld ; 8", "Discworld, #8" or "Discworld": the series and its
    /// position (empty when none is written).
    static func seriesAndIndex(_ text: String) -> (name: String, index: String) {
        let trimmed = BookValidation.trim(text)
        if trimmed.hasSuffix(")"), let open = trimmed.lastIndex(of: "(") {
            let inside = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            if SeriesIndex(String(inside)) != nil {
                return (BookValidation.trim(String(trimmed[..<open])), String(inside))
            }
        }
        for mark in [";", ", #", "#"] {
            if let range = trimmed.range(of: mark, options: .backwards) {
                let index = BookValidation.trim(String(trimmed[range.upperBound...]))
                if SeriesIndex(index) != nil {
                    return (BookValidation.trim(String(trimmed[..<range.lowerBound])), index)
                }
            }
        }
        return (trimmed, "")
    }

    /// A multi-valued field split on `separators`, each value trimmed, empty ones dropped.
    static func values(_ text: String, separatedBy separators: Set<Character>) -> [String] {
        text.split(whereSeparator: { separators.contains($0) }).map { BookValidation.trim(String($0)) }
            .filter { !$0.isEmpty }
    }
}
