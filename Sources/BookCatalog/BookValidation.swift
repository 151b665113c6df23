import TerminalSafeText

/// The rules a title and an author must meet before they are sent to a store.
/// Stores apply the same rules, so a bypassed client still cannot write garbage.
public enum BookValidation {
    public static let maximumTitleLength = 500
    public static let maximumAuthorLength = 200

    /// The title as it will be stored: trimmed, non-empty, bounded, free of control characters.
    public static func title(_ raw: String) throws(BookFailure) -> String {
        let trimmed = trim(raw)
        guard !trimmed.isEmpty, fits(trimmed, maximumTitleLength), !hasControlCharacters(trimmed) else {
            throw .invalidTitle
        }
        return trimmed
    }

    /// The author as it will be stored: trimmed, possibly empty, bounded, no control characters.
    public static func author(_ raw: String) throws(BookFailure) -> String {
        let trimmed = trim(raw)
        guard fits(trimmed, maximumAuthorLength), !hasControlCharacters(trimmed) else {
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

    /// At most `limit` characters. Counting graphemes is slow, so short text in UTF-8 bytes
    /// (never fewer than characters) is accepted without counting.
    private static func fits(_ text: String, _ limit: Int) -> Bool {
        text.utf8.count <= limit || text.count <= limit
    }

    private static func trim(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
