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
    static let columnNames = ["isbn", "year", "publisher", "series", "series_index_thousandths", "tags", "notes"]
    static let columns = columnNames.joined(separator: ", ")
    static let count = columnNames.count

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
            stored: row.isNull(first) ? nil : row.text(first),
            year: row.isNull(first + 1) ? nil : row.int(first + 1),
            publisher: row.text(first + 2), series: row.text(first + 3),
            seriesIndex: row.isNull(first + 4) ? nil : SeriesIndex(thousandths: row.int(first + 4)),
            tags: tags(row.text(first + 5)), notes: row.text(first + 6))
    }

    /// The tags as a JSON array of strings. Written by hand: an import of millions of books
    /// encodes one array per book, and the only characters JSON requires escaping are these.
    static func tagsJSON(_ tags: [String]) -> String {
        guard !tags.isEmpty else { return "[]" }
        var json = "["
        for (index, tag) in tags.enumerated() {
            json += index == 0 ? "\"" : ",\""
            for scalar in tag.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case _ where scalar.value < 0x20: json += String(format: "\\u%04x", scalar.value)
                default: json.unicodeScalars.append(scalar)
                }
            }
            json += "\""
        }
        return json + "]"
    }

    /// The strings of a JSON array; none when it is not one.
    static func tags(_ stored: String) -> [String] {
        // Most books have none: no JSON to parse on a search page of them.
        guard stored != "[]" else { return [] }
        if let plain = plainTags(stored) { return plain }
        guard let array = try? JSONSerialization.jsonObject(with: Data(stored.utf8)) as? [Any] else { return [] }
        return array.compactMap { $0 as? String }
    }

    /// The strings of an array as `tagsJSON` writes tags that need no escape (`["a","b c"]`),
    /// read without the JSON parser, which an undo or a search page of many tagged books paid
    /// for every book; nil for anything else, which the parser reads. Bench: `bookshelf-bench
    /// bulk --count 1000000` (the undo).
    static func plainTags(_ stored: String) -> [String]? {
        var utf8 = stored.utf8[...]
        guard utf8.popFirst() == UInt8(ascii: "["), utf8.popLast() == UInt8(ascii: "]") else { return nil }
        var tags: [String] = []
        while let quote = utf8.popFirst() {
            guard quote == UInt8(ascii: "\""),
                let end = utf8.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }),
                utf8[end] == UInt8(ascii: "\"")
            else { return nil }
            tags.append(String(decoding: utf8[..<end], as: UTF8.self))
            utf8 = utf8[utf8.index(after: end)...]
            guard let next = utf8.popFirst() else { return tags }
            guard next == UInt8(ascii: ","), !utf8.isEmpty else { return nil }
        }
        return nil
    }
}
