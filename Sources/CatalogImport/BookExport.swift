import TerminalSafeText
import BookCatalog

/// Books written in the formats `BookImport` reads, so that importing an export gives back
/// exactly the titles and authors exported. One line per book, so a caller can write a
/// million books as it reads them, never holding them all.
public enum BookExportFormat: String, Sendable, CaseIterable {
    case csv
    case jsonl
}

public enum BookExport {
    /// The first line of the file, if the format has one.
    public static func header(_ format: BookExportFormat) -> String? {
        switch format {
        case .csv: "title,author"
        case .jsonl: nil
        }
    }

    /// One book as one line (without the line end).
    public static func line(title: String, author: String, format: BookExportFormat) -> String {
        switch format {
        case .csv: csvField(title) + "," + csvField(author)
        case .jsonl: "{\"title\":" + JSONText.quoted(title) + ",\"author\":" + JSONText.quoted(author) + "}"
        }
    }

    /// One book as one line (without the line end) of the bytes a store holds, which need not
    /// be valid UTF-8 (`StoredBytes`). CSV carries them as they are, byte for byte. JSON Lines
    /// stays UTF-8 text: each byte outside a well-formed UTF-8 sequence is written as the lone
    /// surrogate escape `\udcXX` (XX the byte, 80 to ff), as Python's `surrogateescape`
    /// does. A plain import refuses both; `import --restore` gives back the bytes.
    public static func line(storedTitle: [UInt8], storedAuthor: [UInt8], format: BookExportFormat) -> [UInt8] {
        var line: [UInt8] = []
        switch format {
        case .csv:
            line += csvField(storedTitle)
            line.append(UInt8(ascii: ","))
            line += csvField(storedAuthor)
        case .jsonl:
            line += "{\"title\":".utf8
            line += jsonString(storedTitle)
            line += ",\"author\":".utf8
            line += jsonString(storedAuthor)
            line.append(UInt8(ascii: "}"))
        }
        return line
    }

    static func csvField(_ bytes: [UInt8]) -> [UInt8] {
        var field: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
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
    /// empty field, whatever it holds.
    static func csvField(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
