/// CSV cells a spreadsheet would run as formulas (OWASP "CSV Injection"): a cell that starts
/// with `=`, `+`, `-`, `@`, a tab or a carriage return. `BookExport` writes such a cell with a
/// leading apostrophe, which a spreadsheet shows as text; `BookImport` takes it off again.
///
/// So that taking it off is exact, a cell that already starts with apostrophes before one of
/// those characters (`'=x`, text that looks neutralised) gets one more as well, and an import
/// takes one off any cell of that shape: the two are inverse for every text.
public enum FormulaCells {
    private static let apostrophe = UInt8(ascii: "'")
    private static let triggers: [UInt8] = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D,
    ]

    /// True for a cell written with an apostrophe in front: apostrophes (any number, none
    /// included), then a formula character.
    static func needsApostrophe(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.firstIndex(where: { $0 != apostrophe }) else { return false }
        return triggers.contains(bytes[first])
    }

    /// True for a cell an import takes one apostrophe off: one written by `neutralised`.
    static func isNeutralised(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.first == apostrophe && needsApostrophe(bytes.dropFirst())
    }

    public static func neutralised(_ text: String) -> String {
        needsApostrophe(text.utf8) ? "'" + text : text
    }

    public static func neutralised(_ bytes: [UInt8]) -> [UInt8] {
        needsApostrophe(bytes) ? [apostrophe] + bytes : bytes
    }

    public static func restored(_ text: String) -> String {
        isNeutralised(text.utf8) ? String(text.unicodeScalars.dropFirst()) : text
    }

    public static func restored(_ bytes: [UInt8]) -> [UInt8] {
        isNeutralised(bytes) ? Array(bytes.dropFirst()) : bytes
    }
}
