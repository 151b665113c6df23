import Foundation

/// The plain text of a BibTeX value: braces (which only keep case) dropped, accents such as
/// `{\"o}`, `\'{e}` and `\c{c}` made the letters they stand for, the escaped specials (`\&`,
/// `\%`, `\$`, `\#`, `\_`) and named letters (`\ss`, `\o`, `\ae`…) made their characters, any
/// other command dropped but its argument kept (`\emph{Dune}` is "Dune"), runs of whitespace
/// made one space, and `\\` a line break. An accented letter is written composed (NFC: "é", not
/// "e" and a combining mark); all other text is kept as it is.
enum LaTeXText {
    static func plain(_ value: String) -> String {
        var decoder = Decoder(scalars: Array(value.unicodeScalars))
        decoder.run(depth: 0, untilBrace: false)
        return decoder.output.trimmedAroundLineBreaks
    }

    /// The combining mark each accent command puts on its letter.
    static let accents: [String: Unicode.Scalar] = [
        "\"": "\u{308}", "'": "\u{301}", "`": "\u{300}", "^": "\u{302}", "~": "\u{303}", "=": "\u{304}",
        ".": "\u{307}", "c": "\u{327}", "v": "\u{30C}", "u": "\u{306}", "H": "\u{30B}", "k": "\u{328}",
        "r": "\u{30A}", "d": "\u{323}", "b": "\u{331}",
    ]

    /// Commands that are a character of their own.
    static let letters: [String: String] = [
        "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å",
        "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "textbackslash": "\\", "textbraceleft": "{",
        "textbraceright": "}", "textasciitilde": "~", "textasciicircum": "^", "textunderscore": "_",
        "textdollar": "$", "textpercent": "%", "textampersand": "&", "textquotedbl": "\"", "textbar": "|",
        "textless": "<", "textgreater": ">", "newline": "\n", "par": "\n\n", "ldots": "…", "dots": "…",
    ]

    private struct Decoder {
        let scalars: [Unicode.Scalar]
        var index = 0
        var output = String.UnicodeScalarView()
        /// A space is owed before the next character: whitespace is collapsed to one.
        var pendingSpace = false

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        mutating func emit(_ scalar: Unicode.Scalar) {
            if pendingSpace, !output.isEmpty { output.append(" ") }
            pendingSpace = false
            output.append(scalar)
        }

        mutating func emit(_ text: String) {
            for scalar in text.unicodeScalars { emit(scalar) }
        }

        /// Decodes until the end, or (`untilBrace`) the `}` that closes the group begun before.
        mutating func run(depth: Int, untilBrace: Bool) {
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                switch scalar {
                case "{":
                    // Groups only keep case; their depth was bounded when the value was read.
                    if depth < BibTeXEntry.maximumBraceDepth * 2 { run(depth: depth + 1, untilBrace: true) }
                case "}":
                    if untilBrace { return }
                case "\\": command(depth: depth)
                case "~": pendingSpace = true
                case "$": break
                case " ", "\t", "\n", "\r": pendingSpace = true
                default: emit(scalar)
                }
            }
        }

        private mutating func command(depth: Int) {
            guard index < scalars.count else { return }
            let first = scalars[index]
            index += 1
            if first == "\\" {
                emit("\n")
                return
            }
            if let mark = LaTeXText.accents[String(first)], !first.properties.isAlphabetic {
                accent(mark, depth: depth)
                return
            }
            guard first.properties.isAlphabetic, first.isASCII else {
                // `\&`, `\%`, `\{`, `\ `…: the character itself.
                if first == " " { pendingSpace = true } else { emit(first) }
                return
            }
            var name = String(first)
            while index < scalars.count, scalars[index].isASCII, scalars[index].properties.isAlphabetic {
                name.unicodeScalars.append(scalars[index])
                index += 1
            }
            // Spaces after a command's name are part of it, as in TeX.
            while index < scalars.count, scalars[index] == " " { index += 1 }
            if let mark = LaTeXText.accents[name] {
                accent(mark, depth: depth)
            } else if let letter = LaTeXText.letters[name] {
                emit(letter)
                // `\ss{}`: the empty group only ends the name.
                if index + 1 < scalars.count, scalars[index] == "{", scalars[index + 1] == "}" { index += 2 }
            }
            // Any other command is dropped; a braced argument after it is read as a group.
        }

        /// The letter and its mark as one character where Unicode has one.
        static func composed(_ letter: Unicode.Scalar, _ mark: Unicode.Scalar) -> String {
            var pair = String.UnicodeScalarView()
            pair.append(letter)
            pair.append(mark)
            return String(pair).precomposedStringWithCanonicalMapping
        }

        /// The dotted letter for the dotless ones an accent is written over.
        static func dotted(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
            scalar == "ı" ? "i" : scalar == "ȷ" ? "j" : scalar
        }

        /// The accent's letter: one character, `{o}`, `{\i}` or `\i`, with the mark after it.
        private mutating func accent(_ mark: Unicode.Scalar, depth: Int) {
            guard index < scalars.count else { return }
            if scalars[index] == "{" {
                index += 1
                var inner = Decoder(scalars: scalars)
                inner.index = index
                inner.run(depth: depth + 1, untilBrace: true)
                index = inner.index
                var letters = Array(inner.output)
                guard !letters.isEmpty else { return }
                let first = Self.dotted(letters.removeFirst())
                emit(Self.composed(first, mark))
                for scalar in letters { emit(scalar) }
                return
            }
            if scalars[index] == "\\" {
                index += 1
                command(depth: depth)
                // `\'\i` is an accented i: the dotless form only carried the accent.
                guard let last = output.popLast() else { return }
                output.append(contentsOf: Self.composed(Self.dotted(last), mark).unicodeScalars)
                return
            }
            emit(Self.composed(scalars[index], mark))
            index += 1
        }
    }
}

extension String.UnicodeScalarView {
    /// The text with the spaces beside each line break, and at both ends, dropped.
    fileprivate var trimmedAroundLineBreaks: String {
        let lines = String(self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
