import TerminalSafeText

/// One BibTeX entry read from its bytes: `@type{key, name = value, …}` (or with parentheses),
/// each value braced, quoted, a number or a macro, joined with `#`. Values stay as BibTeX text
/// here (braces and commands in them); `LaTeXText` makes them plain. Macros are expanded from
/// `macros` as they are met, each value bounded in size.
struct BibTeXEntry {
    let type: String
    let key: String
    /// In the order written, names lower-cased (BibTeX's names are not case-sensitive).
    let fields: [(name: String, value: String)]

    struct Failure: Error {
        let reason: String
    }

    /// Brace nesting deeper than this is refused: no book needs it, and the text reader recurses.
    static let maximumBraceDepth = 32

    /// BibTeX's own macros: the months.
    static let predefinedMacros: [String: String] = [
        "jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May", "jun": "June",
        "jul": "July", "aug": "August", "sep": "September", "oct": "October", "nov": "November", "dec": "December",
    ]

    /// The entry, nil for a record that is no entry (an `@` in a comment); `@string` entries come
    /// back with their one field, for the caller to keep as a macro. `maximumValueBytes` bounds
    /// each value after expansion.
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, macros: [String: String], maximumValueBytes: Int
    ) throws(Failure) -> BibTeXEntry? {
        var reader = Reader(bytes: bytes, macros: macros, maximumValueBytes: maximumValueBytes)
        guard reader.peek == UInt8(ascii: "@") else { return nil }
        reader.position += 1
        reader.skipWhitespace()
        let type = reader.name().lowercased()
        reader.skipWhitespace()
        guard !type.isEmpty, let open = reader.peek, open == UInt8(ascii: "{") || open == UInt8(ascii: "(") else {
            return nil
        }
        reader.position += 1
        let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ")")
        switch type {
        case "comment", "preamble":
            return BibTeXEntry(type: type, key: "", fields: [])
        case "string":
            reader.skipWhitespace()
            let name = reader.name().lowercased()
            guard !name.isEmpty else { throw reader.failure("@string needs a name, as in @string{pub = \"…\"}") }
            reader.skipWhitespace()
            guard reader.peek == UInt8(ascii: "=") else { throw reader.failure("expected '=' after the macro's name") }
            reader.position += 1
            let value = try reader.value()
            reader.skipWhitespace()
            guard reader.peek == close else { throw reader.failure("expected the end of the @string entry") }
            return BibTeXEntry(type: type, key: "", fields: [(name, value)])
        default:
            break
        }
        reader.skipWhitespace()
        let key = reader.key()
        var fields: [(name: String, value: String)] = []
        while true {
            reader.skipWhitespace()
            if reader.peek == close { return BibTeXEntry(type: type, key: key, fields: fields) }
            if fields.isEmpty, key.isEmpty, reader.peek != UInt8(ascii: ",") {
                throw reader.failure("expected the entry's key, then a comma")
            }
            guard reader.peek == UInt8(ascii: ",") else {
                throw reader.failure(reader.atEnd ? "the entry is never closed" : "expected ',' between fields")
            }
            reader.position += 1
            reader.skipWhitespace()
            if reader.peek == close { return BibTeXEntry(type: type, key: key, fields: fields) }
            let name = reader.name().lowercased()
            guard !name.isEmpty else { throw reader.failure("expected a field's name") }
            reader.skipWhitespace()
            guard reader.peek == UInt8(ascii: "=") else {
                throw reader.failure("expected '=' after \(JSONText.quoted(name))")
            }
            reader.position += 1
            let value = try reader.value()
            if fields.contains(where: { $0.name == name }) {
                throw reader.failure("the field \(name) appears twice in one entry")
            }
            fields.append((name, value))
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let macros: [String: String]
        let maximumValueBytes: Int
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, macros: [String: String], maximumValueBytes: Int) {
            self.bytes = bytes
            self.macros = macros
            self.maximumValueBytes = maximumValueBytes
        }

        var atEnd: Bool { position >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[position] }

        func failure(_ reason: String) -> Failure {
            // The line within the entry, so a long entry's problem can be found.
            let lines = bytes[..<min(position, bytes.count)].count { $0 == UInt8(ascii: "\n") }
            return Failure(
                reason: lines == 0 ? reason : "\(reason) (\(lines) line\(lines == 1 ? "" : "s") into the entry)")
        }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        /// A type, field or macro name: letters, digits and `_-:.+/'` (BibTeX allows more, but
        /// never a bracket, a comma, `=`, `#`, `"` or a space).
        mutating func name() -> String {
            let start = position
            while let byte = peek, isNameByte(byte) { position += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        /// The key: anything up to the comma (or the end) but whitespace.
        mutating func key() -> String {
            let start = position
            while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: ")"),
                byte > 0x20
            {
                position += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        private func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "+"),
                UInt8(ascii: "/"), UInt8(ascii: "'"):
                true
            default: byte >= 0x80
            }
        }

        /// A value: parts joined with `#`, each braced, quoted, a number or a macro.
        mutating func value() throws(Failure) -> String {
            var result: [UInt8] = []
            while true {
                skipWhitespace()
                guard let byte = peek else { throw failure("a field's value is missing") }
                switch byte {
                case UInt8(ascii: "{"):
                    result += try delimited(closing: UInt8(ascii: "}"))
                case UInt8(ascii: "\""):
                    result += try delimited(closing: UInt8(ascii: "\""))
                default:
                    let word = name()
                    guard !word.isEmpty else {
                        throw failure("a field's value must be {braced}, \"quoted\", a number or a macro")
                    }
                    if word.allSatisfy(\.isNumber) {
                        result += word.utf8
                    } else if let text = macros[word.lowercased()] ?? BibTeXEntry.predefinedMacros[word.lowercased()] {
                        result += text.utf8
                    } else {
                        throw failure(
                            "the macro \(JSONText.quoted(word)) is not defined (define it with @string before its use)")
                    }
                }
                guard result.count <= maximumValueBytes else {
                    throw failure("a value is longer than \(BookImportStream.grouped(maximumValueBytes)) bytes")
                }
                skipWhitespace()
                guard peek == UInt8(ascii: "#") else { break }
                position += 1
            }
            guard let text = String(validating: result, as: UTF8.self) else {
                throw failure("a value is not valid UTF-8 text")
            }
            return text
        }

        /// The text inside `{…}` or `"…"` (braces kept, balanced, at most `maximumBraceDepth` deep).
        /// As in BibTeX, every brace counts, even after a backslash, and a quote ends a quoted
        /// value only outside braces.
        private mutating func delimited(closing: UInt8) throws(Failure) -> ArraySlice<UInt8> {
            position += 1
            let start = position
            var depth = 0
            while let byte = peek {
                if byte == UInt8(ascii: "{") {
                    depth += 1
                    guard depth <= BibTeXEntry.maximumBraceDepth else { throw failure("braces nested too deeply") }
                } else if byte == UInt8(ascii: "}") {
                    if depth == 0 {
                        guard closing == byte else { throw failure("a '}' closes no '{' inside a quoted value") }
                        position += 1
                        return ArraySlice(bytes[start..<(position - 1)])
                    }
                    depth -= 1
                } else if byte == closing, depth == 0 {
                    position += 1
                    return ArraySlice(bytes[start..<(position - 1)])
                }
                position += 1
            }
            throw failure(closing == UInt8(ascii: "}") ? "a '{' is never closed" : "a quoted value is never closed")
        }
    }
}
