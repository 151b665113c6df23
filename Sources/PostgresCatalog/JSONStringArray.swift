/// JSON arrays of strings and nulls, read and written without Foundation's general coders: on a
/// page of 51 books `JSONDecoder` took a seventh of the client's time, and on a bulk edit
/// `JSONEncoder` (every value cast through `Any`) a quarter of it, writing each chunk's books
/// (`perf record` of `bookshelf edit --search the --add-tag t` on the bench's catalog).
enum JSONStringArray {
    /// The elements of a JSON array of strings and nulls, as `array_to_json` gives a book's
    /// tags. Nil for any other text, where the decoder threw.
    static func elements(of text: String) -> [String?]? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let elements = reader.array() else { return nil }
        reader.skipWhitespace()
        return reader.isAtEnd ? elements : nil
    }

    /// `values` as a JSON array of strings and nulls.
    static func text(of values: [String?]) -> String {
        var json: [UInt8] = []
        append(values, to: &json)
        return String(decoding: json, as: UTF8.self)
    }

    /// `rows` as a JSON array of such arrays: a bulk chunk's books, one array of values each.
    static func text(ofRows rows: [[String?]]) -> String {
        var json: [UInt8] = [UInt8(ascii: "[")]
        for (index, row) in rows.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            append(row, to: &json)
        }
        json.append(UInt8(ascii: "]"))
        return String(decoding: json, as: UTF8.self)
    }

    private static func append(_ values: [String?], to json: inout [UInt8]) {
        json.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            if let value { appendQuoted(value, to: &json) } else { json.append(contentsOf: "null".utf8) }
        }
        json.append(UInt8(ascii: "]"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string literal: `"` and `\` escaped, and every byte below 0x20 as `\u00XX` (JSON allows
    /// no raw control character in a string). Other bytes, UTF-8 of any scalar, go as they are.
    private static func appendQuoted(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                json.append(UInt8(ascii: "\\"))
                json.append(byte)
            case 0..<0x20:
                json.append(contentsOf: "\\u00".utf8)
                json.append(hexDigits[Int(byte >> 4)])
                json.append(hexDigits[Int(byte & 0x0F)])
            default:
                json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        var isAtEnd: Bool { at == bytes.count }

        mutating func skipWhitespace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        mutating func array() -> [String?]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var elements: [String?] = []
            if take(UInt8(ascii: "]")) { return elements }
            while true {
                skipWhitespace()
                if bytes[at...].starts(with: "null".utf8) {
                    at += 4
                    elements.append(nil)
                } else {
                    guard let string = string() else { return nil }
                    elements.append(string)
                }
                guard take(UInt8(ascii: ",")) else { break }
                // A comma before the end, which JSONDecoder accepts too.
                if take(UInt8(ascii: "]")) { return elements }
            }
            return take(UInt8(ascii: "]")) ? elements : nil
        }

        /// A string from its opening quote: UTF-8 copied as it is (the text was valid UTF-8),
        /// escapes decoded, a raw control character or a lone surrogate refused as JSON does.
        mutating func string() -> String? {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            var utf8: [UInt8] = []
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { return nil }
                    let escape = bytes[at]
                    at += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = escapedScalar() else { return nil }
                        utf8.append(contentsOf: String(Character(scalar)).utf8)
                    default: return nil
                    }
                case 0x00..<0x20: return nil
                default: utf8.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX` after its `u`, or of a surrogate pair `\uD83D\uDE00`.
        mutating func escapedScalar() -> Unicode.Scalar? {
            guard let unit = hexUnit() else { return nil }
            switch unit {
            case 0xD800...0xDBFF:
                guard bytes[at...].starts(with: "\\u".utf8) else { return nil }
                at += 2
                guard let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00...0xDFFF: return nil
            default: return Unicode.Scalar(unit)
            }
        }

        mutating func hexUnit() -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[at..<at + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                value = value * 16 + UInt32(digit)
            }
            at += 4
            return value
        }
    }
}
