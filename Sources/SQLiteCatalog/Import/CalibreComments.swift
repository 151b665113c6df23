import BookCatalog
import Foundation

/// Calibre's comments are HTML (from its editor, or from the web page a book's metadata came
/// from); notes are plain lines. Paragraphs, list items and other blocks become lines, `<br>`
/// a line break, character references their characters, and every other tag is dropped.
/// Not a full HTML parser: enough for what Calibre writes, and never more than the text holds.
enum CalibreComments {
    static func plainText(_ html: String) -> String {
        var lines: [String] = []
        var line = ""
        var pendingSpace = false
        func endLine(keepingEmpty: Bool) {
            if !line.isEmpty || keepingEmpty { lines.append(line) }
            line = ""
            pendingSpace = false
        }
        func append(_ text: String) {
            for character in text {
                if character.isWhitespace {
                    pendingSpace = !line.isEmpty
                } else {
                    if pendingSpace { line.append(" ") }
                    pendingSpace = false
                    line.append(character)
                }
            }
        }
        var rest = Substring(html)
        while let next = rest.firstIndex(where: { $0 == "<" || $0 == "&" }) {
            append(String(rest[..<next]))
            rest = rest[next...]
            if rest.first == "&" {
                let (text, after) = reference(at: rest)
                append(text)
                rest = after
                continue
            }
            if rest.hasPrefix("<!--") {
                rest = rest.range(of: "-->").map { rest[$0.upperBound...] } ?? ""
                continue
            }
            guard let close = rest.firstIndex(of: ">") else {
                append(String(rest))
                rest = ""
                break
            }
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            let name = tagName(inside)
            let closing = inside.first == "/"
            rest = rest[rest.index(after: close)...]
            if name == "br" {
                endLine(keepingEmpty: true)
            } else if name == "script" || name == "style" {
                rest = rest.range(of: "</\(name)", options: .caseInsensitive).map { rest[$0.lowerBound...] } ?? ""
            } else if blockTags.contains(name) {
                endLine(keepingEmpty: false)
                if name == "li", !closing { line = "- " }
            }
        }
        append(String(rest))
        endLine(keepingEmpty: false)
        while lines.last?.isEmpty == true { lines.removeLast() }
        // Drop what notes refuse (a decoded control character), never the rest of the text.
        return lines.map { String($0.unicodeScalars.filter { !BookValidation.isControl($0) }) }
            .joined(separator: "\n")
    }

    static let blockTags: Set<String> = [
        "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "tr", "table", "pre", "hr",
        "dt", "dd", "section", "article", "body", "html",
    ]

    /// "p" of "<p class=x>", "</P>" and "<br/>".
    private static func tagName(_ inside: Substring) -> String {
        let trimmed = inside.drop { $0 == "/" || $0.isWhitespace }
        return String(trimmed.prefix { $0.isLetter || $0.isNumber }).lowercased()
    }

    /// The text of the character reference at the start of `text` and what follows it; an `&`
    /// that starts none stands for itself.
    private static func reference(at text: Substring) -> (String, Substring) {
        let body = text.dropFirst().prefix(12)
        guard let end = body.firstIndex(of: ";") else { return ("&", text.dropFirst()) }
        let name = body[body.startIndex..<end]
        let after = text[text.index(after: end)...]
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value =
                digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            if let value, let scalar = Unicode.Scalar(value) { return (String(Character(scalar)), after) }
            return ("&", text.dropFirst())
        }
        if let character = namedReferences[String(name)] { return (character, after) }
        return ("&", text.dropFirst())
    }

    /// The named references met in book descriptions; others are kept as written.
    static let namedReferences: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "mdash": "—", "ndash": "–",
        "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»",
        "copy": "©", "reg": "®", "trade": "™", "deg": "°", "middot": "·", "bull": "•", "times": "×",
        "eacute": "é", "egrave": "è", "ecirc": "ê", "euml": "ë", "aacute": "á", "agrave": "à", "acirc": "â",
        "auml": "ä", "aring": "å", "iacute": "í", "icirc": "î", "iuml": "ï", "oacute": "ó", "ocirc": "ô",
        "ouml": "ö", "uacute": "ú", "ucirc": "û", "uuml": "ü", "ccedil": "ç", "ntilde": "ñ", "szlig": "ß",
        "Eacute": "É", "Aacute": "Á", "Ouml": "Ö", "Uuml": "Ü", "Auml": "Ä", "Ccedil": "Ç", "Ntilde": "Ñ",
    ]
}
