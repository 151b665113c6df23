/// One character of each class that must never reach a terminal as itself, named for test
/// messages. Written out here by hand, not taken from the code under test.
public enum UnsafeCharacters {
    public static let samples: [(name: String, scalar: Unicode.Scalar)] = [
        ("ESC (C0)", "\u{1B}"),
        ("BEL (C0)", "\u{07}"),
        ("DEL", "\u{7F}"),
        ("CSI (C1)", "\u{9B}"),
        ("ARABIC LETTER MARK", "\u{061C}"),
        ("LEFT-TO-RIGHT MARK", "\u{200E}"),
        ("RIGHT-TO-LEFT MARK", "\u{200F}"),
        ("RIGHT-TO-LEFT OVERRIDE", "\u{202E}"),
        ("LEFT-TO-RIGHT ISOLATE", "\u{2066}"),
        ("LINE SEPARATOR", "\u{2028}"),
        ("PARAGRAPH SEPARATOR", "\u{2029}"),
    ]
}
