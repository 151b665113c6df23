import TerminalSafeText

/// Strings from a store (or a user's file) are data: before they reach a terminal, every
/// unsafe character (`TerminalSafety.isUnsafe`: C0, DEL, C1, bidirectional marks and
/// overrides, line and paragraph separators) is neutralised, so a title can never move the
/// cursor, recolour the screen, reorder or break a line.
enum TerminalText {
    /// Shown in place of each control character: visible, and never a column separator.
    static let replacement: Unicode.Scalar = "\u{FFFD}"

    static func sanitized(_ text: String) -> String {
        TerminalSafety.replacingUnsafe(in: text) { _ in replacement }
    }

    /// A JSON string literal for `text`. The value is exact (a JSON reader gets the stored
    /// text back), yet every control character is written as a `\u` escape, so printing the
    /// JSON to a terminal is as safe as printing sanitised text.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
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
        return result + "\""
    }
}
