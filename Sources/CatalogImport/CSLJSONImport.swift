import BookCatalog
import TerminalSafeText

/// CSL-JSON (the Citation Style Language's data, `csl-data.json`), as Zotero, Mendeley and
/// pandoc write it: one array of items, each an object. Items of type "book" are books (an item
/// without a type too); other types (an article, a chapter) are skipped and counted by type.
public enum CSLJSONImport {
    /// The keys read into a field.
    enum Key: String, CaseIterable {
        case type, id, title, author, issued, publisher, isbn = "ISBN"
        case collectionTitle = "collection-title", collectionNumber = "collection-number"
        case keyword, note
    }

    /// A whole file held in memory, read as `--from csl-json` reads a file.
    public static func parse(_ bytes: [UInt8]) -> BookImportResult {
        var source = BookSourceStream(bytes: bytes, source: .cslJSON)
        return source.collected()
    }

    /// Each element of the array is one item.
    struct Format: RecordFormat {
        func read(record: UnsafeBufferPointer<UInt8>, line: Int, into collector: inout BookImport.Collector) -> Bool {
            let item: JSONTree
            do {
                item = try JSONTree.parse(record)
            } catch {
                collector.reject(line: line, "bad JSON: \(error.reason)")
                return true
            }
            guard case let .object(members) = item else {
                collector.reject(
                    line: line, "each item must be an object like {\"type\": \"book\", \"title\": \"...\"}")
                return true
            }
            if let type = item["type"], type != .string("book") {
                collector.summary.skip("items of type \(JSONText.quoted(type.text ?? type.kind)) (not books)")
                return true
            }
            CSLJSONImport.book(of: item, members: members, summary: &collector.summary).collect(
                line: line, origin: item["id"]?.text.flatMap { BookOrigin(source: .cslJSON, id: $0) },
                into: &collector)
            return true
        }
    }

    static func book(of item: JSONTree, members: [JSONTree.Member], summary: inout ImportSummary) -> SourceBook {
        for member in members where Key(rawValue: member.key) == nil && isValue(member.value) {
            summary.skip("values of the key \(JSONText.quoted(member.key)) (no field keeps them)")
        }
        func text(_ key: Key) -> String {
            guard let value = item[key.rawValue], isValue(value) else { return "" }
            guard let text = value.text else {
                summary.skip("values of the key \(JSONText.quoted(key.rawValue)) that are \(value.kind), not text")
                return ""
            }
            return text
        }
        var book = SourceBook()
        book.title = text(.title)
        book.authors = names(item[Key.author.rawValue], summary: &summary)
        book.year = year(item[Key.issued.rawValue], summary: &summary)
        book.publisher = text(.publisher)
        book.isbns = SourceBook.values(text(.isbn), separatedBy: [",", ";", " "])
        book.series = text(.collectionTitle)
        book.seriesIndex = text(.collectionNumber)
        switch item[Key.keyword.rawValue] {
        case let .array(elements)?: book.tags = elements.compactMap(\.text)
        default: book.tags = SourceBook.values(text(.keyword), separatedBy: [","])
        }
        book.notes = [text(.note)]
        return book
    }

    /// A value that says something: not null, not empty.
    static func isValue(_ value: JSONTree) -> Bool {
        switch value {
        case .null: false
        case let .string(text): !BookValidation.trim(text).isEmpty
        case let .array(elements): !elements.isEmpty
        case let .object(members): !members.isEmpty
        default: true
        }
    }

    /// CSL names, `[{"family": "Herbert", "given": "Frank"}, {"literal": "Plato"}]`, each as
    /// "Given Family" (with its particles and suffix).
    static func names(_ value: JSONTree?, summary: inout ImportSummary) -> [String] {
        guard let value, isValue(value) else { return [] }
        guard case let .array(names) = value else {
            summary.skip("authors that are not a list of names")
            return []
        }
        return names.compactMap { name in
            if let literal = name["literal"]?.text { return literal }
            let parts = ["given", "dropping-particle", "non-dropping-particle", "family", "suffix"].compactMap {
                name[$0]?.text.map(BookValidation.trim)
            }.filter { !$0.isEmpty }
            guard !parts.isEmpty else {
                summary.skip("authors without a name")
                return nil
            }
            return parts.joined(separator: " ")
        }
    }

    /// The year of a CSL date: `{"date-parts": [[1965, 8]]}`, or `{"raw": "1965-08"}`, or
    /// `{"literal": "c. 1850"}`.
    static func year(_ value: JSONTree?, summary: inout ImportSummary) -> String {
        guard let value, isValue(value) else { return "" }
        if case let .array(parts)? = value["date-parts"], case let .array(first)? = parts.first,
            let year = first.first?.text
        {
            return year
        }
        for key in ["raw", "literal"] {
            if let text = value[key]?.text { return SourceBook.yearText(text) }
        }
        if let text = value.text { return SourceBook.yearText(text) }
        summary.skip("dates of the key \"issued\" in a form not read")
        return ""
    }
}
