/// What may reach a terminal, defined once. Validation refuses these characters in titles,
/// authors, account names and scopes; the canvas and the command line's output replace them
/// with visible stand-ins. A scalar is unsafe when a terminal would act on it instead of
/// printing it, or when it could make the text around it read differently from what it is:
/// - C0 controls U+0000–U+001F and DEL U+007F (ESC starts every ANSI sequence);
/// - C1 controls U+0080–U+009F (CSI, OSC, … in their 8-bit form);
/// - the bidirectional marks, embeddings, overrides and isolates U+061C, U+200E, U+200F,
///   U+202A–U+202E and U+2066–U+2069, which reorder what is shown;
/// - the line and paragraph separators U+2028 and U+2029, which break a line that must stay one.
public enum TerminalSafety {
    /// Shown for unsafe scalars that have no picture of their own.
    public static let replacementCharacter: Unicode.Scalar = "\u{FFFD}"

    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029: true
        default: false
        }
    }

    /// Whether `text` holds an unsafe scalar other than `kept` (the line feed of a field that
    /// may have several lines).
    public static func containsUnsafe(_ text: String, besides kept: Unicode.Scalar? = nil) -> Bool {
        // Printable ASCII, most text, is safe byte by byte; only the rest needs its scalars.
        let keptByte = kept.flatMap { $0.isASCII ? UInt8($0.value) : nil }
        if text.utf8.allSatisfy({ 0x20...0x7E ~= $0 || $0 == keptByte }) { return false }
        return text.unicodeScalars.contains { $0 != kept && isUnsafe($0) }
    }

    /// `text` with every unsafe scalar replaced by `standIn(scalar)`; the text itself when it
    /// has none (the common case costs one scan and no copy).
    public static func replacingUnsafe(in text: String, with standIn: (Unicode.Scalar) -> Unicode.Scalar) -> String {
        guard containsUnsafe(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(isUnsafe(scalar) ? standIn(scalar) : scalar)
        }
        return String(result)
    }

    /// The stand-in the screen draws, so the data stays recognisable: C0 controls become their
    /// Control Pictures (ESC shows as `␛`, so `ESC [31m` shows as `␛[31m`), DEL becomes `␡`,
    /// every other unsafe scalar U+FFFD. Meant for unsafe scalars only.
    public static func picture(for scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value) ?? replacementCharacter
        case 0x7F: "\u{2421}"
        default: replacementCharacter
        }
    }
}
