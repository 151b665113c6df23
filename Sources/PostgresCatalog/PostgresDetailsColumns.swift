import BookCatalog
import Foundation

/// How a book's details travel between `BookDetails` and the columns of schema version 11
/// (`Schema/migrations/011_book_details.sql`): what a statement selects, what a save binds,
/// what a COPY row holds, and what a read makes of the values that come back.
///
/// Values from the server are data, checked before use. The CHECKs keep them to the rules,
/// but a row can still break one: written while a constraint was dropped or a trigger off, or
/// by a rule the database does not know (tags are a set when folded, which only the app
/// does). Such a row is read, never a crash and never an error that hides the book: each field
/// in its canonical form when it has one (control characters shown as U+FFFD, tags that keep
/// their rule as one set), and empty otherwise, as the SQLite store reads its file. The book
/// stays readable and editable: a save with details writes every field anew.
enum PostgresDetailsColumns {
    /// How many columns `selected(from:)` lists.
    static let count = 7

    /// The detail columns as text, in `BookDetails`' order, each qualified by `alias` ("b."
    /// or ""): numbers as their text, tags as a JSON array.
    static func selected(from alias: String) -> String {
        let a = alias
        return
            "\(a)isbn, \(a)year::text, \(a)publisher, \(a)series, \(a)series_index::text, array_to_json(\(a)tags)::text, \(a)notes"
    }

    /// The details of a row, from the `count` columns `selected(from:)` gave, canonical
    /// whatever they hold.
    static func details(_ columns: ArraySlice<String?>) throws -> BookDetails {
        guard columns.count == count else { throw BookFailure.invalidResponse }
        let values = Array(columns)
        guard let publisher = values[2], let series = values[3], let tagsJSON = values[5], let notes = values[6],
            let listed = JSONStringArray.elements(of: tagsJSON)
        else { throw BookFailure.invalidResponse }
        return BookDetails(
            stored: values[0], year: values[1].flatMap { Int($0) }, publisher: publisher, series: series,
            seriesIndex: values[4].flatMap(SeriesIndex.init), tags: listed.compactMap { $0 }, notes: notes)
    }

    /// The values a save binds, in `BookDetails`' order (tags as a JSON array); NULL for none.
    static func parameters(_ details: BookDetails) -> [String?] {
        [
            details.isbn, details.year.map(String.init), details.publisher, details.series,
            details.seriesIndex.map(\.description), JSONStringArray.text(of: details.tags), details.notes,
        ]
    }

    /// The detail fields of a COPY row (text format), escaped by `PostgresCopyText`.
    static func copyFields(_ details: BookDetails) -> [String] {
        let null = "\\N"
        return [
            details.isbn ?? null, details.year.map(String.init) ?? null, PostgresCopyText.escaped(details.publisher),
            PostgresCopyText.escaped(details.series), details.seriesIndex.map(\.description) ?? null,
            PostgresCopyText.escaped(arrayLiteral(details.tags)), PostgresCopyText.escaped(details.notes),
        ]
    }

    /// `{"a","b"}`: every element quoted, with `"` and `\` escaped, so no tag can end one early.
    static func arrayLiteral(_ elements: [String]) -> String {
        let quoted = elements.map { element in
            "\"" + element.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    /// The field a CHECK (or the year's trigger) of version 11 guards, by constraint name.
    static func field(guardedBy constraint: String?) -> BookField? {
        switch constraint {
        case "books_isbn_valid": .isbn
        case "books_year_valid": .year
        case "books_publisher_valid": .publisher
        case "books_series_valid": .series
        case "books_series_index_valid": .seriesIndex
        case "books_tags_valid": .tags
        case "books_notes_valid": .notes
        default: nil
        }
    }
}
