import Foundation

/// What a catalog keeps about a book beyond its title and author: the fields real catalogs
/// (Goodreads, Calibre, a library's) keep. Every field is optional; an empty value is "none".
///
/// A value of this type is always canonical: built only through `BookDetails.validated` or
/// from a store's own row, so two equal books are equal values (tags in one order, an ISBN in
/// one form).
public struct BookDetails: Sendable, Hashable {
    /// ISBN-13 digits, no hyphens ("9780141439518"); nil for none.
    public let isbn: String?
    /// Publication year, -3000 (3001 BCE) to next year; nil for none.
    public let year: Int?
    public let publisher: String
    public let series: String
    /// The book's place in its series ("1", "2.5"); nil for none.
    public let seriesIndex: SeriesIndex?
    /// A set: no two equal when folded (case and accents), sorted by their folded form.
    public let tags: [String]
    /// Lines separated by "\n"; not searched.
    public let notes: String

    /// No details: what a book has until someone adds them. (Not `none`: in an optional
    /// context such as `SaveRequest.details`, `.none` would be nil, which keeps the stored details.)
    public static let empty = BookDetails()

    /// A book's details exactly as given: for values a store returns or a test writes, already
    /// canonical. Text a person typed goes through `validated` instead.
    public init(
        isbn: String? = nil, year: Int? = nil, publisher: String = "", series: String = "",
        seriesIndex: SeriesIndex? = nil, tags: [String] = [], notes: String = ""
    ) {
        self.isbn = isbn
        self.year = year
        self.publisher = publisher
        self.series = series
        self.seriesIndex = seriesIndex
        self.tags = tags
        self.notes = notes
    }

    public var isEmpty: Bool { self == .empty }

    /// The details as a store keeps them, or the first field that breaks its rule.
    public func validated() throws(BookFailure) -> BookDetails {
        BookDetails(
            isbn: try isbn.flatMap { raw throws(BookFailure) in try BookValidation.isbn(raw) },
            year: try year.map { raw throws(BookFailure) in try BookValidation.year(raw) },
            publisher: try BookValidation.publisher(publisher),
            series: try BookValidation.series(series),
            seriesIndex: seriesIndex,
            tags: try BookValidation.tags(tags),
            notes: try BookValidation.notes(notes))
    }

    /// Tags as a person edits them: "a, b, c".
    public var tagsText: String { tags.joined(separator: ", ") }
}

/// The fields of a book, in the order a form shows them and messages name them.
public enum BookField: String, Sendable, Hashable, CaseIterable {
    case title, author, isbn, year, publisher, series, seriesIndex, tags, notes

    /// The field's name in a message or beside its input.
    public var label: String {
        switch self {
        case .title: "Title"
        case .author: "Author"
        case .isbn: "ISBN"
        case .year: "Year"
        case .publisher: "Publisher"
        case .series: "Series"
        case .seriesIndex: "Series index"
        case .tags: "Tags"
        case .notes: "Notes"
        }
    }
}

/// A position in a series: a non-negative decimal of at most three places ("1", "2.5"), kept
/// in thousandths so that it compares and stores exactly.
public struct SeriesIndex: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let thousandths: Int

    /// Largest position accepted: 99,999.999.
    public static let maximumThousandths = 99_999_999

    public init?(thousandths: Int) {
        guard (0...Self.maximumThousandths).contains(thousandths) else { return nil }
        self.thousandths = thousandths
    }

    /// "2", "2.5", "02.50", " 3 "; nil for anything else (a sign, a comma, four decimals).
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !whole.isEmpty, whole.count <= 5, fraction.count <= 3, parts.count == 1 || !fraction.isEmpty,
            (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }),
            let wholeValue = Int(whole), let fractionValue = Int(fraction.isEmpty ? "0" : fraction)
        else { return nil }
        let scale = [1000, 100, 10, 1][fraction.count]
        self.init(thousandths: wholeValue * 1000 + fractionValue * (fraction.isEmpty ? 0 : scale))
    }

    /// The shortest text for the value: "2", "2.5", "2.125".
    public var description: String {
        let whole = thousandths / 1000, fraction = thousandths % 1000
        guard fraction != 0 else { return String(whole) }
        var digits = String(fraction + 1000).dropFirst()
        while digits.last == "0" { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    public static func < (lhs: SeriesIndex, rhs: SeriesIndex) -> Bool { lhs.thousandths < rhs.thousandths }
}

/// ISBN-10 and ISBN-13 as people type them, and the one canonical form a store keeps.
public enum ISBN {
    /// The ISBN-13 digits of `text`, or why it is not an ISBN. Hyphens and spaces may stand
    /// anywhere; an ISBN-10 may end in X; an ISBN-10 becomes the ISBN-13 "978" form.
    public static func canonical(_ text: String) -> Result<String, ISBNProblem> {
        if let stored = canonicalThirteenDigits(text) { return stored }
        let characters = text.filter { $0 != "-" && $0 != " " }
        guard characters.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "X" || $0 == "x") }) else {
            return .failure(.notDigits)
        }
        let digits = characters.uppercased()
        switch digits.count {
        case 10:
            let body = digits.prefix(9)
            guard body.allSatisfy(\.isNumber), let check = digits.last else { return .failure(.notDigits) }
            guard check10(of: body) == check else { return .failure(.wrongCheckDigit) }
            let thirteen = "978" + body
            return .success(thirteen + String(check13(of: Substring(thirteen))))
        case 13:
            guard digits.allSatisfy(\.isNumber) else { return .failure(.notDigits) }
            guard digits.hasPrefix("978") || digits.hasPrefix("979") else { return .failure(.wrongPrefix) }
            guard check13(of: digits.prefix(12)) == digits.last else { return .failure(.wrongCheckDigit) }
            return .success(digits)
        default:
            return .failure(.wrongLength)
        }
    }

    /// The answer for thirteen ASCII digits, the form stores keep, from their bytes (the
    /// general path above walks characters: an eighth of the client's time on a PostgreSQL page); nil for
    /// any other text.
    private static func canonicalThirteenDigits(_ text: String) -> Result<String, ISBNProblem>? {
        let digits = text.utf8
        guard digits.count == 13, digits.allSatisfy({ 0x30...0x39 ~= $0 }) else { return nil }
        let values = digits.map { Int($0 - 0x30) }
        guard values[0] == 9, values[1] == 7, values[2] == 8 || values[2] == 9 else { return .failure(.wrongPrefix) }
        let sum = values.prefix(12).enumerated().reduce(0) { $0 + ($1.offset.isMultiple(of: 2) ? 1 : 3) * $1.element }
        return (10 - sum % 10) % 10 == values[12] ? .success(text) : .failure(.wrongCheckDigit)
    }

    /// True when `text` is written as an ISBN could be (10 or 13 digits, hyphens or spaces
    /// between, an X last), whatever its check digit: a query of that shape looks for an ISBN.
    public static func looksLikeOne(_ text: String) -> Bool {
        let characters = text.filter { $0 != "-" && $0 != " " }
        guard characters.count == 10 || characters.count == 13,
            characters.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }),
            let last = characters.last, last.isASCII && (last.isNumber || last == "X" || last == "x")
        else { return false }
        return characters.count == 10 || last.isNumber
    }

    /// The ISBN-10 form of a canonical ISBN-13, when it has one (the 978 prefix).
    public static func tenDigitForm(of isbn13: String) -> String? {
        guard isbn13.count == 13, isbn13.hasPrefix("978") else { return nil }
        let body = isbn13.dropFirst(3).prefix(9)
        return String(body) + String(check10(of: body))
    }

    private static func check10(of body: Substring) -> Character {
        let sum = body.enumerated().reduce(0) { sum, element in
            sum + (10 - element.offset) * Int(String(element.element))!
        }
        let check = (11 - sum % 11) % 11
        return check == 10 ? "X" : Character(String(check))
    }

    private static func check13(of body: Substring) -> Character {
        let sum = body.enumerated().reduce(0) { sum, element in
            sum + (element.offset.isMultiple(of: 2) ? 1 : 3) * Int(String(element.element))!
        }
        return Character(String((10 - sum % 10) % 10))
    }
}

public enum ISBNProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notDigits, wrongLength, wrongPrefix, wrongCheckDigit

    public var description: String {
        switch self {
        case .notDigits: "an ISBN is digits (an ISBN-10 may end in X), with hyphens or spaces between"
        case .wrongLength: "an ISBN has 10 or 13 digits"
        case .wrongPrefix: "an ISBN-13 begins with 978 or 979"
        case .wrongCheckDigit: "its check digit is wrong: a digit was mistyped or two were swapped"
        }
    }
}

extension BookDetails {
    /// The details of values a store read back, which another program may have written: each
    /// field in its canonical form when it has one (an ISBN-10 as its ISBN-13, control
    /// characters shown as U+FFFD), the tags that keep their rule as one set of at most
    /// `BookValidation.maximumTagCount` (the first ones stored), and empty otherwise. A store
    /// never trusts what it reads; the book stays readable, and a save with details writes every
    /// field anew. One rule for every store, so that they read a damaged row alike.
    public init(
        stored isbn: String?, year: Int?, publisher: String, series: String, seriesIndex: SeriesIndex?,
        tags: [String], notes: String
    ) {
        self.init(
            isbn: isbn.flatMap { try? BookValidation.isbn($0) },
            year: year.flatMap { try? BookValidation.year($0) },
            publisher: (try? BookValidation.publisher(Self.visible(publisher))) ?? "",
            series: (try? BookValidation.series(Self.visible(series))) ?? "",
            seriesIndex: seriesIndex,
            tags: Self.storedTags(tags),
            notes: Self.storedNotes(notes))
    }

    private static func storedTags(_ stored: [String]) -> [String] {
        guard !stored.isEmpty else { return [] }
        var seen = Set<String>(), kept: [BookValidation.FoldedTag] = []
        for tag in stored where kept.count < BookValidation.maximumTagCount {
            guard let valid = (try? BookValidation.tag(visible(tag))) ?? nil, seen.insert(valid.folded).inserted
            else { continue }
            kept.append(valid)
        }
        return BookValidation.inTagOrder(kept)
    }

    private static func storedNotes(_ stored: String) -> String {
        // Line breaks first, so that a "\r" is kept as the break it stands for.
        (try? BookValidation.notes(visible(BookValidation.unifiedLineBreaks(stored), keeping: "\n"))) ?? ""
    }

    /// `text` with every control character (but `kept`) shown as U+FFFD.
    private static func visible(_ text: String, keeping kept: Unicode.Scalar? = nil) -> String {
        let hasControls =
            if let kept { BookValidation.hasControlCharacters(text, besides: kept) } else {
                BookValidation.hasControlCharacters(text)
            }
        guard hasControls else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar != kept && BookValidation.isControl(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(scalars)
    }
}
