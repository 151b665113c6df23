/// HTML as plain lines, for notes: a Calibre library's comments (from its editor, or from the
/// web page a book's metadata came from) and a Goodreads review. Paragraphs, list items and
/// other blocks become lines, `<br>` a line break, character references their characters; a
/// script's or a style's body is dropped, and every other tag. Not a full HTML parser: enough
/// for what these programs write, and never more than the text holds.
public enum HTMLText {
    /// What a line end in the source is.
    public enum LineEnds: Sendable {
        /// Space between words, as in HTML (Calibre's comments).
        case whitespace
        /// A line break, as `<br>` is (a Goodreads review, which keeps the lines typed).
        case lineBreaks
    }

    public static func plainText(_ html: String, lineEnds: LineEnds = .whitespace) -> String {
        var text = PlainLines()
        var rest = Substring(html)
        while let next = rest.firstIndex(where: { $0 == "<" || $0 == "&" }) {
            text.append(rest[..<next], lineEnds: lineEnds)
            rest = rest[next...]
            if rest.first == "&" {
                let (characters, after) = reference(at: rest)
                text.append(Substring(characters), lineEnds: lineEnds)
                rest = after
                continue
            }
            // As HTML reads it: "<" starts markup only before a letter, "/", "!" or "?";
            // otherwise ("a < b") it is text.
            guard let following = rest.dropFirst().first, following.isLetter || "/!?".contains(following) else {
                text.append("<", lineEnds: lineEnds)
                rest = rest.dropFirst()
                continue
            }
            if rest.hasPrefix("<!--") {
                rest = rest.firstRange(of: "-->").map { rest[$0.upperBound...] } ?? ""
                continue
            }
            guard let close = rest.firstIndex(of: ">") else {
                text.append(rest, lineEnds: lineEnds)
                rest = ""
                break
            }
            let inside = rest[rest.index(after: rest.startIndex)..<close]
            let name = tagName(inside)
            let closing = inside.first == "/"
            rest = rest[rest.index(after: close)...]
            if name == "br" {
                text.endLine(keepingEmpty: true)
            } else if rawTextTags.contains(name), !closing {
                // The body is code, not text: skipped to its end tag, which the loop then reads.
                rest = endTag(of: name, in: rest).map { rest[$0...] } ?? ""
            } else if blockTags.contains(name) {
                text.endLine(keepingEmpty: false)
                if name == "li", !closing { text.startItem() }
            }
        }
        text.append(rest, lineEnds: lineEnds)
        return text.finished()
    }

    /// Lines being built: runs of whitespace become one space, nothing at either end.
    private struct PlainLines {
        private var lines: [String] = []
        private var line = ""
        private var pendingSpace = false

        mutating func endLine(keepingEmpty: Bool) {
            if !line.isEmpty || keepingEmpty { lines.append(line) }
            line = ""
            pendingSpace = false
        }

        mutating func startItem() { line = "- " }

        mutating func append(_ text: Substring, lineEnds: LineEnds) {
            for character in text {
                if lineEnds == .lineBreaks, character.isNewline {
                    endLine(keepingEmpty: true)
                } else if character.isWhitespace {
                    pendingSpace = !line.isEmpty
                } else {
                    if pendingSpace { line.append(" ") }
                    pendingSpace = false
                    line.append(character)
                }
            }
        }

        mutating func finished() -> String {
            endLine(keepingEmpty: false)
            while lines.last?.isEmpty == true { lines.removeLast() }
            while lines.first?.isEmpty == true { lines.removeFirst() }
            // Drop what notes refuse (a decoded control character), never the rest of the text.
            return lines.map { String($0.unicodeScalars.filter { !BookValidation.isControl($0) }) }
                .joined(separator: "\n")
        }
    }

    /// Elements whose body is not text to read.
    static let rawTextTags: Set<String> = ["script", "style"]

    static let blockTags: Set<String> = [
        "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "tr", "table", "pre", "hr",
        "dt", "dd", "section", "article", "body", "html",
    ]

    /// "p" of "<p class=x>", "</P>" and "<br/>".
    private static func tagName(_ inside: Substring) -> String {
        let trimmed = inside.drop { $0 == "/" || $0.isWhitespace }
        return String(trimmed.prefix { $0.isLetter || $0.isNumber }).lowercased()
    }

    /// Where `</name` (any case) starts in `text`, if it does.
    private static func endTag(of name: String, in text: Substring) -> Substring.Index? {
        let opening = "</" + name
        var index = text.startIndex
        while let start = text[index...].firstIndex(of: "<") {
            if text[start...].prefix(opening.count).lowercased() == opening { return start }
            index = text.index(after: start)
        }
        return nil
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

    /// The named references met in book descriptions and reviews; others are kept as written.
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
