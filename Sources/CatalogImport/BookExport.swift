import TerminalSafeText
import BookCatalog

/// Books written in the formats `BookImport` reads, so that importing an export gives back
/// exactly the books exported, every field, and exporting them again gives the same bytes.
/// One line per book, so a caller can write a million books as it reads them, never holding
/// them all.
public enum BookExportFormat: String, Sendable, CaseIterable {
    case csv
    case jsonl
}

/// How CSV cells that a spreadsheet would run as formulas are written.
public enum CSVCells: Sendable, Equatable {
    /// A leading apostrophe before a cell a spreadsheet would run (`FormulaCells`).
    case neutralised
    /// The text as it is, for programs that are not spreadsheets.
    case raw
}

public enum BookExport {
    /// The first line of the file, if the format has one.
    public static func header(_ format: BookExportFormat) -> String? {
        switch format {
        case .csv: BookColumn.allCases.map(\.rawValue).joined(separator: ",")
        case .jsonl: nil
        }
    }

    /// One book as one line (without the line end).
    public static func line(
        title: String, author: String, details: BookDetails = .empty, format: BookExportFormat,
        cells: CSVCells = .neutralised
    ) -> String {
        switch format {
        case .csv:
            ([csvField(title, cells), csvField(author, cells)] + csvFields(details, cells)).joined(separator: ",")
        case .jsonl:
            "{\"title\":" + JSONText.quoted(title) + ",\"author\":" + JSONText.quoted(author) + jsonMembers(details)
                + "}"
        }
    }

    /// The details' columns after title and author, in `BookColumn` order, each quoted.
    /// The year is a whole number, which a spreadsheet reads as the number it is ("-430"), so
    /// it is never neutralised; the ISBN is digits.
    static func csvFields(_ details: BookDetails, _ cells: CSVCells) -> [String] {
        [details.isbn ?? "", details.year.map(String.init) ?? ""].map { csvField($0, .raw) }
            + [
                details.publisher, details.series, details.seriesIndex?.description ?? "", details.tagsText,
                details.notes,
            ]
            .map { csvField($0, cells) }
    }

    /// The details' members, each after a comma; a field that is empty is left out, so a book
    /// of only a title and an author is the line it always was. Also what `search --json` and
    /// `history --json` write after the author.
    public static func jsonMembers(_ details: BookDetails) -> String {
        var members = ""
        if let isbn = details.isbn { members += ",\"isbn\":" + JSONText.quoted(isbn) }
        if let year = details.year { members += ",\"year\":\(year)" }
        if !details.publisher.isEmpty { members += ",\"publisher\":" + JSONText.quoted(details.publisher) }
        if !details.series.isEmpty { members += ",\"series\":" + JSONText.quoted(details.series) }
        if let index = details.seriesIndex { members += ",\"series_index\":\(index)" }
        if !details.tags.isEmpty {
            members += ",\"tags\":[" + details.tags.map(JSONText.quoted).joined(separator: ",") + "]"
        }
        if !details.notes.isEmpty { members += ",\"notes\":" + JSONText.quoted(details.notes) }
        return members
    }

    /// One book as one line (without the line end) of the bytes a store holds, which need not
    /// be valid UTF-8 (`StoredBytes`). CSV carries them as they are, byte for byte. JSON Lines
    /// stays UTF-8 text: each byte outside a well-formed UTF-8 sequence is written as the lone
    /// surrogate escape `\udcXX` (XX the byte, 80 to ff), as Python's `surrogateescape`
    /// does. A plain import refuses both; `import --restore` gives back the bytes.
    public static func line(
        storedTitle: [UInt8], storedAuthor: [UInt8], details: BookDetails = .empty, format: BookExportFormat,
        cells: CSVCells = .neutralised
    ) -> [UInt8] {
        var line: [UInt8] = []
        switch format {
        case .csv:
            line += csvField(storedTitle, cells)
            line.append(UInt8(ascii: ","))
            line += csvField(storedAuthor, cells)
            for field in csvFields(details, cells) { line += [UInt8(ascii: ",")] + field.utf8 }
        case .jsonl:
            line += "{\"title\":".utf8
            line += jsonString(storedTitle)
            line += ",\"author\":".utf8
            line += jsonString(storedAuthor)
            line += jsonMembers(details).utf8
            line.append(UInt8(ascii: "}"))
        }
        return line
    }

    static func csvField(_ bytes: [UInt8], _ cells: CSVCells) -> [UInt8] {
        var field: [UInt8] = [UInt8(ascii: "\"")]
        for byte in cells == .raw ? bytes : FormulaCells.neutralised(bytes) {
            field.append(byte)
            if byte == UInt8(ascii: "\"") { field.append(byte) }
        }
        field.append(UInt8(ascii: "\""))
        return field
    }

    static func jsonString(_ bytes: [UInt8]) -> [UInt8] {
        var result = "\""
        StoredBytes.decode(
            bytes, scalar: { JSONText.append($0, to: &result) },
            invalidByte: { result += "\\udc" + String($0, radix: 16) })
        result += "\""
        return Array(result.utf8)
    }

    /// Always quoted (RFC 4180), so no title can be mistaken for a header, a separator or an
    /// empty field, whatever it holds; a cell a spreadsheet would run is neutralised unless
    /// `cells` is raw.
    static func csvField(_ text: String, _ cells: CSVCells) -> String {
        let cell = cells == .raw ? text : FormulaCells.neutralised(text)
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
