/// JSON string literals, written one way for every JSON the program prints or exports. The
/// value is exact (a JSON reader gets the text back), and every character a terminal could
/// act on (`TerminalSafety.isUnsafe`) is written as an escape, so JSON printed to a terminal
/// is as safe as sanitised text, and a reader that splits lines on U+2028 never splits a value.
public enum JSONText {
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars { append(scalar, to: &result) }
        return result + "\""
    }

    /// Appends `scalar` as it goes inside a JSON string literal.
    public static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        case _ where TerminalSafety.isUnsafe(scalar):
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
}
