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
        case .jsonl: "{\"title\":" + jsonString(title) + ",\"author\":" + jsonString(author) + "}"
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
        StoredBytes.decode(bytes, scalar: { appendJSON($0, to: &result) }, invalidByte: { result += "\\udc" + String($0, radix: 16) })
        result += "\""
        return Array(result.utf8)
    }

    /// Always quoted (RFC 4180), so no title can be mistaken for a header, a separator or an
    /// empty field, whatever it holds.
    static func csvField(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A JSON string literal whose value is exactly `text`. Characters JSON does not require
    /// escaping are written as they are, except control characters and the two line
    /// separators some readers split on, which are escaped.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars { appendJSON(scalar, to: &result) }
        return result + "\""
    }

    private static func appendJSON(_ scalar: Unicode.Scalar, to result: inout String) {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029 || BookValidation.isControl(scalar):
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
}
