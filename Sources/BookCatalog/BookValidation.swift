import Foundation
import TerminalSafeText

#if canImport(Glibc)
    import Glibc
#endif

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

    public static let maximumPublisherLength = 200
    public static let maximumSeriesLength = 200
    public static let maximumTagCount = 50
    public static let maximumTagLength = 50
    public static let maximumNotesLength = 20_000
    public static let earliestYear = -3000
    /// Four bytes for each character allowed, as for titles.
    public static let maximumNotesBytes = 80_000

    /// The latest publication year accepted: next year, by the calendar where the check runs
    /// (a book announced for next year may be catalogued now). The C library's local time says
    /// the same as Foundation's Gregorian calendar in the current time zone, without loading
    /// ICU's calendar and zone data into a process that only reads a page of books (`perf record`
    /// of `bookshelf search`, docs/performance.md, "A search process").
    public static var latestYear: Int {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else {
            return Calendar(identifier: .gregorian).component(.year, from: Date()) + 1
        }
        return Int(local.tm_year) + 1900 + 1
    }

    /// The canonical ISBN-13 of `raw`, nil when `raw` is blank (no ISBN).
    public static func isbn(_ raw: String) throws(BookFailure) -> String? {
        let trimmed = trim(raw)
        guard !trimmed.isEmpty else { return nil }
        switch ISBN.canonical(trimmed) {
        case let .success(isbn): return isbn
        case let .failure(problem): throw .invalidField(.isbn, reason: problem.description)
        }
    }

    /// `latestYear` when this process first asked. The latest year only grows, so a year up to
    /// this one is never too late, and most checks skip the calendar (reading a page of books
    /// asked it for every row).
    private static let latestYearFirstAsked = latestYear

    public static func year(_ year: Int) throws(BookFailure) -> Int {
        guard year >= earliestYear, year <= latestYearFirstAsked || year <= latestYear else {
            throw .invalidField(.year, reason: "a year from \(earliestYear) to \(latestYear), not \(year)")
        }
        return year
    }

    /// A year as typed ("1869", "-400"); nil when blank.
    public static func year(text raw: String) throws(BookFailure) -> Int? {
        let trimmed = trim(raw)
        guard !trimmed.isEmpty else { return nil }
        guard let year = Int(trimmed), trimmed.count <= 6 else {
            throw .invalidField(.year, reason: "a year is a whole number such as 1869, not \(quoted(trimmed))")
        }
        return try self.year(year)
    }

    /// A series position as typed ("2", "2.5"); nil when blank.
    public static func seriesIndex(text raw: String) throws(BookFailure) -> SeriesIndex? {
        let trimmed = trim(raw)
        guard !trimmed.isEmpty else { return nil }
        guard let index = SeriesIndex(trimmed) else {
            throw .invalidField(
                .seriesIndex, reason: "a position such as 1, 2 or 2.5 (up to 99999.999), not \(quoted(trimmed))")
        }
        return index
    }

    public static func publisher(_ raw: String) throws(BookFailure) -> String {
        try line(raw, .publisher, maximumPublisherLength)
    }

    public static func series(_ raw: String) throws(BookFailure) -> String {
        try line(raw, .series, maximumSeriesLength)
    }

    /// The tags as a set: each trimmed, blank ones dropped, those equal when folded (case and
    /// accents) kept once (the first as written), sorted by folded form.
    public static func tags(_ raw: [String]) throws(BookFailure) -> [String] {
        var seen = Set<String>(), kept: [FoldedTag] = []
        for raw in raw {
            if let tag = try tag(raw), seen.insert(tag.folded).inserted { kept.append(tag) }
        }
        guard kept.count <= maximumTagCount else {
            throw .invalidField(.tags, reason: "at most \(maximumTagCount) tags, not \(kept.count)")
        }
        return inTagOrder(kept)
    }

    typealias FoldedTag = (folded: String, tag: String)

    /// One tag as kept (trimmed), with its folded form; nil when it is blank.
    static func tag(_ raw: String) throws(BookFailure) -> FoldedTag? {
        let tag = trim(raw)
        guard !isBlank(tag) else { return nil }
        guard !(tag.utf8.contains(UInt8(ascii: ",")) && tag.contains(",")) else {
            throw .invalidField(.tags, reason: "a tag may not hold a comma: commas separate tags")
        }
        guard fits(tag, maximumTagLength, bytes: maximumTagLength * 4), !hasControlCharacters(tag) else {
            throw .invalidField(
                .tags, reason: "each tag needs 1 to \(maximumTagLength) characters and no control characters")
        }
        return (SearchTerms.fold(tag), tag)
    }

    /// Distinct tags in the order a set of them is kept: by folded form.
    static func inTagOrder(_ tags: [FoldedTag]) -> [String] {
        tags.sorted { ($0.folded, $0.tag) < ($1.folded, $1.tag) }.map(\.tag)
    }

    /// Tags as typed: "a, b, c".
    public static func tags(text raw: String) throws(BookFailure) -> [String] {
        try tags(raw.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }

    /// Notes as kept: line breaks ("\r\n" and "\r" become "\n") are data, trailing blank
    /// lines and spaces at the ends are dropped; any other control character is refused.
    public static func notes(_ raw: String) throws(BookFailure) -> String {
        let trimmed = trim(unifiedLineBreaks(raw))
        guard fits(trimmed, maximumNotesLength, bytes: maximumNotesBytes) else {
            throw .invalidField(.notes, reason: "at most \(maximumNotesLength) characters")
        }
        guard !hasControlCharacters(trimmed, besides: "\n") else {
            throw .invalidField(.notes, reason: "line breaks are kept, but no other control characters")
        }
        return trimmed
    }

    /// `text` with "\r\n" and "\r" as "\n".
    static func unifiedLineBreaks(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\r")) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// One line of text of at most `limit` characters, possibly empty.
    private static func line(_ raw: String, _ field: BookField, _ limit: Int) throws(BookFailure) -> String {
        let trimmed = trim(raw)
        guard fits(trimmed, limit, bytes: limit * 4), !hasControlCharacters(trimmed) else {
            throw .invalidField(field, reason: "at most \(limit) characters and no control characters")
        }
        return trimmed
    }

    private static func quoted(_ text: String) -> String {
        "\"" + String(text.unicodeScalars.prefix(20).map { isControl($0) ? "?" : Character($0) }) + "\""
    }

    public static func hasControlCharacters(_ text: String) -> Bool {
        TerminalSafety.containsUnsafe(text)
    }

    /// Whether `text` has a control character other than `kept` (an ASCII one, "\n" for notes).
    static func hasControlCharacters(_ text: String, besides kept: Unicode.Scalar) -> Bool {
        TerminalSafety.containsUnsafe(text, besides: kept)
    }

    /// A character that may never be stored: one a terminal would act on, or one that
    /// could disguise text (`TerminalSafety.isUnsafe`, the one definition).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        TerminalSafety.isUnsafe(scalar)
    }

    /// True when `text` shows nothing: empty, or only spaces and invisible scalars
    /// (zero-width ones such as U+200B and U+FEFF, and noncharacters such as U+FFFE).
    public static func isBlank(_ text: String) -> Bool {
        // A printable ASCII character other than the space shows: most text is settled there.
        if text.utf8.contains(where: { 0x21...0x7E ~= $0 }) { return false }
        return text.unicodeScalars.allSatisfy(isInvisible)
    }

    /// A scalar that shows nothing: whitespace, a default-ignorable scalar (U+200B, U+FEFF…)
    /// or a noncharacter (U+FFFE…). The one definition of the set: PostgreSQL's CHECK on
    /// titles holds it as it stood in schema version 7, and a test keeps the two equal.
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
        // Text that begins and ends with printable ASCII other than the space has nothing to trim.
        if let first = text.utf8.first, let last = text.utf8.last, 0x21...0x7E ~= first, 0x21...0x7E ~= last {
            return text
        }
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
