import TerminalSafeText

/// The rules a title and an author must meet before they are sent to a store.
/// Stores apply the same rules, so a bypassed client still cannot write garbage.
public enum BookValidation {
    public static let maximumTitleLength = 500
    public static let maximumAuthorLength = 200
    /// Text is also bounded in UTF-8 bytes, so one character built of endless combining marks
    /// cannot be stored (four bytes for each character allowed).
    public static let maximumTitleBytes = 2_000
    public static let maximumAuthorBytes = 800

    /// The title as it will be stored: trimmed, non-empty, bounded, free of control characters.
    public static func title(_ raw: String) throws(BookFailure) -> String {
        let trimmed = trim(raw)
        guard !isBlank(trimmed), fits(trimmed, maximumTitleLength, bytes: maximumTitleBytes),
            !hasControlCharacters(trimmed)
        else {
            throw .invalidTitle
        }
        return trimmed
    }

    /// What is wrong with `raw` as a title, in words a user can act on; nil when it is fine.
    /// A blank title is named as blank, not as a length or character problem.
    public static func titleProblem(_ raw: String) -> String? {
        if isBlank(trim(raw)) { return "The title is blank: it needs text, not only spaces or invisible characters." }
        do { _ = try title(raw) } catch { return error.description }
        return nil
    }

    /// The author as it will be stored: trimmed, possibly empty, bounded, no control characters.
    public static func author(_ raw: String) throws(BookFailure) -> String {
        let trimmed = trim(raw)
        guard fits(trimmed, maximumAuthorLength, bytes: maximumAuthorBytes), !hasControlCharacters(trimmed) else {
            throw .invalidAuthor
        }
        return trimmed
    }

    public static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { isControl($0) }
    }

    /// A character that may never be stored: one a terminal would act on, or one that
    /// could disguise text (`TerminalSafety.isUnsafe`, the one definition).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        TerminalSafety.isUnsafe(scalar)
    }

    /// True when `text` shows nothing: empty, or only spaces and invisible scalars
    /// (zero-width ones such as U+200B and U+FEFF, and noncharacters such as U+FFFE).
    public static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(isInvisible)
    }

    /// A scalar that shows nothing: whitespace, a default-ignorable scalar (U+200B, U+FEFF…)
    /// or a noncharacter (U+FFFE…). The one definition of the set: PostgreSQL's CHECK on
    /// titles is generated from it (`PostgresValidityChecks`).
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return properties.isWhitespace || properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint
    }

    /// At most `limit` characters and `bytes` UTF-8 bytes. Counting graphemes is slow, so
    /// short text in UTF-8 bytes (never fewer than characters) is accepted without counting.
    private static func fits(_ text: String, _ limit: Int, bytes: Int) -> Bool {
        let count = text.utf8.count
        return count <= limit || (count <= bytes && text.count <= limit)
    }

    /// Whitespace trimmed from both ends. Line and paragraph separators (U+0085, U+2028,
    /// U+2029) are not trimmed: they are control characters and refused, never removed quietly.
    public static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isTrimmed($0) }),
            let end = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(scalars[start...end])
    }

    private static func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace && !(scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029)
    }
}
