import BookCatalog
import Foundation
import TerminalSafeText

/// The formats a reading list goes into a paper's references in: CSL-JSON (Zotero, pandoc,
/// citeproc) and BibTeX. Each book is written so that `CSLJSONImport` and `BibTeXImport` read it
/// back as it was, for everything the format can hold (docs/import.md lists what it cannot).
public enum CitationFormat: String, Sendable, CaseIterable {
    case cslJSON = "csl-json"
    case bibTeX = "bibtex"
}

public enum CitationExport {
    /// What goes before the first book: CSL-JSON is one array.
    public static func opening(_ format: CitationFormat) -> String? {
        format == .cslJSON ? "[" : nil
    }

    /// What goes after the last book.
    public static func closing(_ format: CitationFormat) -> String? {
        format == .cslJSON ? "]" : nil
    }

    /// Between two books: CSL-JSON's items are separated by commas, after the item before.
    public static func separator(_ format: CitationFormat) -> String {
        format == .cslJSON ? "," : ""
    }

    /// One book: a CSL-JSON item on one line, or a BibTeX entry of several lines (no line end
    /// after the last). `id` is the catalog's id, which makes the key (`key`) unique.
    public static func entry(
        id: Int, title: String, author: String, details: BookDetails, format: CitationFormat
    ) -> String {
        let key = key(id: id, title: title, author: author, year: details.year)
        switch format {
        case .cslJSON: return cslItem(key: key, title: title, author: author, details: details)
        case .bibTeX: return bibTeXEntry(key: key, title: title, author: author, details: details)
        }
    }

    /// A citation key as people write them, the family name, the year and the title's first
    /// word, in ASCII ("herbert1965dune"), and the catalog's id after a hyphen, so that no two
    /// books share one and a book keeps its key from one export to the next.
    public static func key(id: Int, title: String, author: String, year: Int?) -> String {
        let family = names(of: author).first.map { name -> String in
            switch name {
            case let .literal(text): text
            case let .person(_, family): family
            }
        }
        let firstWord = title.split(whereSeparator: { $0 == " " }).first { !asciiWord(String($0)).isEmpty }
        let stem =
            asciiWord(family ?? "") + (year.map(String.init) ?? "") + asciiWord(firstWord.map(String.init) ?? "")
        return (stem.isEmpty ? "book" : stem) + "-\(id)"
    }

    /// Letters and digits of `text` without their accents, lower-cased, at most 20.
    private static func asciiWord(_ text: String) -> String {
        let decomposed = text.decomposedStringWithCanonicalMapping.lowercased()
        return String(
            decomposed.unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)
            }.prefix(20).map(Character.init))
    }

    // MARK: Names

    /// One name of an author field, as both formats hold it.
    enum Name: Equatable {
        /// Kept whole (an organisation, or text that does not split into given and family back
        /// exactly).
        case literal(String)
        case person(given: String, family: String)
    }

    /// The author field as names: "Terry Pratchett, Neil Gaiman" is two people, when every part
    /// between ", " is a name of more than one word; "Beard, Mary" (a name family first) or
    /// "Plato" is one name. A person's family is the last word. Each is split only where the
    /// readers join it back exactly ("given family"); otherwise it is kept whole.
    static func names(of author: String) -> [Name] {
        guard !author.isEmpty else { return [] }
        let parts = author.components(separatedBy: ", ")
        let people =
            parts.count > 1 && parts.allSatisfy { $0.contains(" ") && !$0.contains(",") && $0 == trimmed($0) }
            ? parts : [author]
        return people.map { person in
            guard !person.contains(","), let space = person.lastIndex(of: " ") else {
                return person.contains(",") || person != trimmed(person)
                    ? .literal(person) : .person(given: "", family: person)
            }
            let given = String(person[..<space]), family = String(person[person.index(after: space)...])
            guard !given.isEmpty, !family.isEmpty, given == trimmed(given), !given.hasSuffix(" ") else {
                return .literal(person)
            }
            return .person(given: given, family: family)
        }
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: CSL-JSON

    static func cslItem(key: String, title: String, author: String, details: BookDetails) -> String {
        var members = ["\"id\":" + JSONText.quoted(key), "\"type\":\"book\"", "\"title\":" + JSONText.quoted(title)]
        let authors = names(of: author).map { name -> String in
            switch name {
            case let .literal(text): "{\"literal\":" + JSONText.quoted(text) + "}"
            case let .person(given, family) where given.isEmpty: "{\"family\":" + JSONText.quoted(family) + "}"
            case let .person(given, family):
                "{\"family\":" + JSONText.quoted(family) + ",\"given\":" + JSONText.quoted(given) + "}"
            }
        }
        if !authors.isEmpty { members.append("\"author\":[" + authors.joined(separator: ",") + "]") }
        if let year = details.year { members.append("\"issued\":{\"date-parts\":[[\(year)]]}") }
        if !details.publisher.isEmpty { members.append("\"publisher\":" + JSONText.quoted(details.publisher)) }
        if let isbn = details.isbn { members.append("\"ISBN\":" + JSONText.quoted(isbn)) }
        if !details.series.isEmpty { members.append("\"collection-title\":" + JSONText.quoted(details.series)) }
        if let index = details.seriesIndex, !details.series.isEmpty {
            members.append("\"collection-number\":" + JSONText.quoted(index.description))
        }
        if !details.tags.isEmpty { members.append("\"keyword\":" + JSONText.quoted(details.tagsText)) }
        if !details.notes.isEmpty { members.append("\"note\":" + JSONText.quoted(details.notes)) }
        return "{" + members.joined(separator: ",") + "}"
    }

    // MARK: BibTeX

    static func bibTeXEntry(key: String, title: String, author: String, details: BookDetails) -> String {
        var fields: [(String, String)] = []
        let authors = names(of: author).map(bibTeXName)
        if !authors.isEmpty { fields.append(("author", authors.joined(separator: " and "))) }
        // The title's extra braces keep its case in every style.
        fields.append(("title", "{" + bibTeXText(title) + "}"))
        if let year = details.year { fields.append(("year", String(year))) }
        if !details.publisher.isEmpty { fields.append(("publisher", bibTeXText(details.publisher))) }
        if let isbn = details.isbn { fields.append(("isbn", isbn)) }
        if !details.series.isEmpty {
            fields.append(("series", bibTeXText(details.series)))
            if let index = details.seriesIndex { fields.append(("number", index.description)) }
        }
        if !details.tags.isEmpty { fields.append(("keywords", bibTeXText(details.tagsText))) }
        if !details.notes.isEmpty { fields.append(("note", bibTeXText(details.notes))) }
        return "@book{\(key),\n" + fields.map { "  \($0.0) = {\($0.1)}," }.joined(separator: "\n") + "\n}"
    }

    /// A name as BibTeX reads one back: "Family, Given", a single word, or in braces (kept whole,
    /// which is also how a name holding the word "and" or a comma stays one name).
    private static func bibTeXName(_ name: Name) -> String {
        switch name {
        case let .person(given, family):
            let words = (given + " " + family).split(separator: " ").map { $0.lowercased() }
            guard !words.contains("and"), !(given.isEmpty && family.lowercased() == "others") else {
                return "{" + bibTeXText(given.isEmpty ? family : given + " " + family) + "}"
            }
            return given.isEmpty ? bibTeXText(family) : bibTeXText(family) + ", " + bibTeXText(given)
        case let .literal(text):
            return "{" + bibTeXText(text) + "}"
        }
    }

    /// Text as a BibTeX value holds it: LaTeX's special characters escaped, and a line break as
    /// `\\` and a new line.
    static func bibTeXText(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\textbackslash{}"
            case "{": result += "\\textbraceleft{}"
            case "}": result += "\\textbraceright{}"
            case "~": result += "\\textasciitilde{}"
            case "^": result += "\\textasciicircum{}"
            case "&", "%", "$", "#", "_": result += "\\" + String(scalar)
            case "\n": result += "\\\\\n"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
