import BookCatalog
import TerminalSafeText

/// BibTeX (`.bib`), as BibTeX, biblatex, JabRef and Zotero write it. Book entries (`@book`,
/// `@mvbook`, `@booklet`, `@collection`, `@mvcollection`) are books; other types are skipped
/// and counted by type. `@string` macros are expanded where they are used, `@comment` and
/// `@preamble` are passed over. Values are made plain text (`LaTeXText`).
public enum BibTeXImport {
    static let bookTypes: Set<String> = ["book", "mvbook", "booklet", "collection", "mvcollection"]

    /// The fields read into a book's fields.
    enum Field: String, CaseIterable {
        case title, author, year, date, publisher, isbn, series, volume, number, keywords, note
    }

    /// At most this many `@string` macros, and this many bytes of their values in all: a file
    /// cannot make the reader hold more than that, however it defines and redefines them.
    static let maximumMacroCount = 10_000
    static let maximumMacroBytes = 1 << 20

    /// A whole file held in memory, read as `--from bibtex` reads a file.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var source = BookSourceStream(bytes: bytes, source: .bibTeX)
        return source.collected()
    }

    struct Format: RecordFormat {
        private var macros: [String: String] = [:]
        private var macroBytes = 0

        mutating func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector)
            -> Bool
        {
            let entry: BibTeXEntry
            do {
                guard
                    let parsed = try BibTeXEntry.parse(
                        record, macros: macros, maximumValueBytes: BookImportStream.maximumFieldBytes)
                else { return true }
                entry = parsed
            } catch {
                collector.reject(line: line, "bad BibTeX: \(error.reason)")
                return true
            }
            switch entry.type {
            case "comment": return true
            case "preamble":
                collector.summary.skip("@preamble entries (LaTeX for the bibliography, no book)")
                return true
            case "string":
                guard let (name, value) = entry.fields.first else { return true }
                let bytes = value.utf8.count + name.utf8.count
                guard macros[name] != nil || macros.count < maximumMacroCount, macroBytes + bytes <= maximumMacroBytes
                else {
                    collector.reject(
                        line: line,
                        "too many @string macros (at most \(BookImportStream.grouped(maximumMacroCount)), \(BookImportStream.grouped(maximumMacroBytes)) bytes in all)"
                    )
                    return true
                }
                macroBytes += bytes
                macros[name] = value
                return true
            default: break
            }
            guard bookTypes.contains(entry.type) else {
                collector.summary.skip("entries of type @\(entry.type.printableName) (not books)")
                return true
            }
            BibTeXImport.book(of: entry, summary: &collector.summary).collect(
                line: line, origin: BookOrigin(source: .bibtex, id: entry.key), into: &collector)
            return true
        }
    }

    static func book(of entry: BibTeXEntry, summary: inout ImportSummary) -> SourceBook {
        var values: [Field: String] = [:]
        for (name, value) in entry.fields {
            let text = LaTeXText.plain(value)
            guard !text.isEmpty else { continue }
            if let field = Field(rawValue: name) {
                values[field] = field == .author ? value : text
            } else {
                summary.skip("values of the field \(JSONText.quoted(name)) (no field keeps them)")
            }
        }
        var book = SourceBook()
        book.title = values[.title] ?? ""
        book.authors = names(values[.author] ?? "", summary: &summary)
        book.year = SourceBook.yearText(values[.year] ?? values[.date] ?? "")
        book.publisher = values[.publisher] ?? ""
        book.isbns = SourceBook.values(values[.isbn] ?? "", separatedBy: [",", ";", " "])
        book.series = values[.series] ?? ""
        book.seriesIndex = values[.number] ?? values[.volume] ?? ""
        if book.series.isEmpty, values[.number] != nil || values[.volume] != nil {
            summary.skip("volume or number values of books in no series")
        }
        book.tags = SourceBook.values(values[.keywords] ?? "", separatedBy: [","])
        book.notes = [values[.note] ?? ""]
        return book
    }

    /// BibTeX's names, "Herbert, Frank and Le Guin, Ursula K. and {Monty Python}", each as
    /// "Given Family": a name with a comma is "Family, Given" (or "Family, Suffix, Given"),
    /// one without is "Given Family" with the last word the family, and a name wholly in braces
    /// is kept as written (an organisation). "and others" is counted, not kept.
    static func names(_ value: String, summary: inout ImportSummary) -> [String] {
        splitNames(value).compactMap { raw -> String? in
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else { return nil }
            if name == "others" {
                summary.skip("\"and others\" in an author list (the names are not given)")
                return nil
            }
            let parts = splitTopLevel(name, on: ",").map { LaTeXText.plain($0) }
            switch parts.count {
            case 1: return parts[0]
            case 2: return [parts[1], parts[0]].filter { !$0.isEmpty }.joined(separator: " ")
            default: return [parts[2], parts[0], parts[1]].filter { !$0.isEmpty }.joined(separator: " ")
            }
        }
    }

    /// Splits on the word "and" outside braces, as BibTeX does.
    static func splitNames(_ value: String) -> [String] {
        var names: [String] = []
        var current = ""
        var depth = 0
        let words = value.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        for word in words {
            if depth == 0, word.lowercased() == "and" {
                names.append(current)
                current = ""
                continue
            }
            for character in word {
                if character == "{" { depth += 1 } else if character == "}" { depth = max(0, depth - 1) }
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        names.append(current)
        return names
    }

    /// `text` split on `separator` outside braces.
    static func splitTopLevel(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in text {
            if character == "{" { depth += 1 } else if character == "}" { depth = max(0, depth - 1) }
            if character == separator, depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }
}

extension String {
    /// An entry type as a message may show it: letters and digits only, at most 30.
    fileprivate var printableName: String {
        String(
            unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) }
                .prefix(30).map(Character.init))
    }
}
