import BookCatalog
import Foundation

/// How a book's details are kept in the columns of `books` and `book_revisions`, and read back.
///
/// The encodings are the ones a person reading the file with `sqlite3` understands:
/// - `isbn`: the ISBN-13 digits, NULL for none;
/// - `year`, `series_index_thousandths`: integers, NULL for none; the series position in
///   thousandths (2.5 is 2500), so that it compares and sorts exactly, as `SeriesIndex` does;
/// - `publisher`, `series`, `notes`: text, '' for none; notes' lines separated by "\n";
/// - `tags`: a JSON array of strings in Bookshelf's order ('[]' for none): SQLite reads it
///   with its JSON functions, and no separator character has to be kept out of tags.
///
/// Another program may write anything the file's checks let through (or a file whose checks
/// it dropped), so a read never trusts a value: each field that is not as Bookshelf keeps it
/// is read in its canonical form when it has one, with control characters as U+FFFD, and as
/// empty otherwise. The book then stays readable and editable (a save with details writes the
/// field anew), and the repository, which refuses details that are not canonical, takes it.
enum StoredDetails {
    /// The columns, in the order `values(of:)` binds them and `read(_:from:)` reads them.
    static let columns = "isbn, year, publisher, series, series_index_thousandths, tags, notes"
    static let count = 7

    static func values(of details: BookDetails) -> [SQLValue] {
        [
            details.isbn.map { .text($0) } ?? .null, details.year.map { .int($0) } ?? .null, .text(details.publisher),
            .text(details.series), details.seriesIndex.map { .int($0.thousandths) } ?? .null,
            .text(tagsJSON(details.tags)), .text(details.notes),
        ]
    }

    /// The details in the row's columns `first` to `first + 6`, canonical whatever they hold.
    static func read(_ row: Statement, from first: Int32) -> BookDetails {
        BookDetails(
            isbn: row.isNull(first) ? nil : try? BookValidation.isbn(row.text(first)),
            year: row.isNull(first + 1) ? nil : try? BookValidation.year(row.int(first + 1)),
            publisher: line(row.text(first + 2), BookValidation.publisher),
            series: line(row.text(first + 3), BookValidation.series),
            seriesIndex: row.isNull(first + 4) ? nil : SeriesIndex(thousandths: row.int(first + 4)),
            tags: tags(row.text(first + 5)),
            notes: notes(row.text(first + 6)))
    }

    /// `[...]` of the tags as JSON strings; the encoder escapes what JSON requires and no more.
    static func tagsJSON(_ tags: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(tags) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Reading what anyone may have written

    private static func line(_ stored: String, _ rule: (String) throws(BookFailure) -> String) -> String {
        (try? rule(visible(stored))) ?? ""
    }

    private static func notes(_ stored: String) -> String {
        // Line breaks first, so that a "\r" is kept as the break it stands for.
        let lines = stored.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return (try? BookValidation.notes(visible(lines, keeping: "\n"))) ?? ""
    }

    /// The tags of a JSON array: those that are strings and keep the rules on their own, as a
    /// set of at most the largest number a book may have (the first ones stored).
    private static func tags(_ stored: String) -> [String] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [Any] else { return [] }
        var seen = Set<String>(), distinct: [String] = []
        for case let tag as String in array {
            guard distinct.count < BookValidation.maximumTagCount,
                let valid = try? BookValidation.tags([visible(tag)]).first,
                seen.insert(SearchTerms.fold(valid)).inserted
            else { continue }
            distinct.append(valid)
        }
        return (try? BookValidation.tags(distinct)) ?? []
    }

    /// `text` with every control character (but `kept`) shown as U+FFFD.
    private static func visible(_ text: String, keeping kept: Unicode.Scalar? = nil) -> String {
        guard BookValidation.hasControlCharacters(text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar != kept && BookValidation.isControl(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}
