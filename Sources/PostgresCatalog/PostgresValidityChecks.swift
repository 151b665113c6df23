import BookCatalog

/// The CHECK constraints on `bookshelf.books`, generated from `BookValidation` so the
/// database and the app apply one rule: the byte bounds are its constants, and the two
/// character classes are its predicates (`isControl`, `isInvisible`) run over every scalar.
///
/// What the server cannot count it leaves to the app: a title's 500-character bound counts
/// grapheme clusters, which PostgreSQL cannot; its `char_length` counts scalars, more than
/// clusters for decomposed or combining text, so bounding it would refuse titles the app
/// takes. The byte bound holds the size instead.
enum PostgresValidityChecks {
    /// The SQL that replaces both constraints, NOT VALID: rows stored under an older rule stay
    /// (the screen and the command line show them harmlessly), and every row written is held to
    /// this one. Built from constants and `\u`/`\U` escapes only, never from stored text.
    static var replacingConstraints: String {
        """
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_title_valid;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_title_valid CHECK (
            octet_length(title) <= \(BookValidation.maximumTitleBytes) AND title = btrim(title)
            AND title !~ '\(controlClass)'
            AND title ~ '\(visibleClass)') NOT VALID;
        ALTER TABLE bookshelf.books DROP CONSTRAINT books_author_valid;
        ALTER TABLE bookshelf.books ADD CONSTRAINT books_author_valid CHECK (
            octet_length(author) <= \(BookValidation.maximumAuthorBytes)
            AND author !~ '\(controlClass)') NOT VALID;
        """
    }

    /// A bracket expression matching any scalar `BookValidation.isControl` refuses.
    static let controlClass = bracket(ranges(where: BookValidation.isControl), negated: false)

    /// The same for notes, whose line breaks are data: every scalar `isControl` refuses but U+000A.
    static let notesControlClass = bracket(
        ranges(where: { $0 != "\n" && BookValidation.isControl($0) }), negated: false)

    /// A bracket expression matching any scalar that is not invisible: a title needs one.
    static let visibleClass = bracket(ranges(where: BookValidation.isInvisible), negated: true)

    /// The scalar values for which `includes` holds, as ascending runs. U+0000 is left out:
    /// PostgreSQL text cannot hold it (nor a surrogate, which is no scalar).
    static func ranges(where includes: (Unicode.Scalar) -> Bool) -> [ClosedRange<UInt32>] {
        var runs: [ClosedRange<UInt32>] = []
        for value in UInt32(1)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), includes(scalar) else { continue }
            if let run = runs.last, run.upperBound + 1 == value {
                runs[runs.count - 1] = run.lowerBound...value
            } else {
                runs.append(value...value)
            }
        }
        return runs
    }

    /// `[...]` (or `[^...]`) in PostgreSQL's regular expressions, each scalar written as an
    /// escape (`\uXXXX`, `\UXXXXXXXX`), so the text holds only hex digits, `\`, `-` and brackets.
    static func bracket(_ runs: [ClosedRange<UInt32>], negated: Bool) -> String {
        func escape(_ value: UInt32) -> String {
            let hex = String(value, radix: 16)
            return value <= 0xFFFF
                ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        let body = runs.map { run in
            run.lowerBound == run.upperBound
                ? escape(run.lowerBound) : escape(run.lowerBound) + "-" + escape(run.upperBound)
        }.joined()
        return (negated ? "[^" : "[") + body + "]"
    }
}
