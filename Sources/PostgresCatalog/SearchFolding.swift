import BookCatalog

/// `SearchTerms`' folding and tokenising, one Unicode scalar at a time, as rows for the
/// database's `bookshelf.folding` table, so that `bookshelf.index_text` (and through it the
/// trigger that derives the search columns of an edited book) cuts and folds text exactly
/// as the app does. Everything here is asked of `SearchTerms` itself, so a change to its
/// rules changes the table the next time it is written.
///
/// Kinds: `w` a letter or digit (tokens are runs of them), `i` a character that is a token on
/// its own (Han, kana, Hangul), `x` / `X` a scalar that joins the character before it (combining
/// marks, ZWJ; `X` when it would itself start a token at the very start of a text), `s` anything
/// else, stored only when it folds to something other than itself. A joining scalar's folding
/// is taken after a letter, as it occurs.
struct SearchFolding: Sendable {
    struct Entry: Sendable, Equatable {
        let code: UInt32
        let kind: Character
        /// Nil when the scalar folds to itself.
        let folded: String?
        /// A joining scalar's folding at the start of a text, where it joins nothing; nil when
        /// it is `folded` or the scalar itself.
        var foldedAlone: String? = nil
    }

    /// A letter to fold a combining mark after: "a" for the generic combining blocks,
    /// otherwise the nearest letter below the mark (marks sit in their script's block).
    private static func letter(before value: UInt32) -> String {
        let generic: [ClosedRange<UInt32>] = [
            0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F,
        ]
        guard !generic.contains(where: { $0.contains(value) }) else { return "a" }
        var candidate = value
        while candidate > 0 && value - candidate < 256 {
            candidate -= 1
            if let scalar = Unicode.Scalar(candidate), scalar.properties.isAlphabetic, ("a" + String(scalar)).count == 2
            {
                return String(scalar)
            }
        }
        return "a"
    }

    /// Computed once per process: about a second over every assigned scalar.
    static let entries: [Entry] = compute()

    private static func compute() -> [Entry] {
        var entries: [Entry] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            switch scalar.properties.generalCategory {
            case .unassigned, .privateUse, .surrogate, .control: continue
            default: break
            }
            let text = String(scalar)
            var folded = SearchTerms.fold(text)
            var alone: String?
            let startsToken = !SearchTerms.tokens(of: text).isEmpty
            let kind: Character
            if ("a" + text).count == 1 {
                kind = startsToken ? "X" : "x"
                // A mark folds with the character it joins, and Foundation's folding depends on
                // that character's script ("a" + U+0301 folds to "a", a Devanagari letter keeps
                // its virama): take a letter of the mark's own block. At the very start of a
                // text it stands alone (`foldedAlone`).
                let base = Self.letter(before: value)
                let joined = SearchTerms.fold(base + text)
                let foldedBase = SearchTerms.fold(base)
                alone = folded == text ? nil : folded
                // Compared by scalars: as Characters the mark and its letter are one.
                if joined.unicodeScalars.starts(with: foldedBase.unicodeScalars) {
                    folded = String(joined.unicodeScalars.dropFirst(foldedBase.unicodeScalars.count))
                }
            } else if !startsToken {
                kind = "s"
            } else {
                kind = SearchTerms.tokens(of: text + text).count == 2 ? "i" : "w"
            }
            if kind == "s" && folded == text { continue }
            entries.append(Entry(code: value, kind: kind, folded: folded == text ? nil : folded, foldedAlone: alone))
        }
        return entries
    }

    /// COPY text rows for `bookshelf.folding (code, kind, folded, folded_alone)`.
    static var copyRows: [String] {
        entries.map { entry in
            "\(entry.code)\t\(entry.kind)\t" + (entry.folded.map(PostgresCopyText.escaped) ?? "\\N")
                + "\t" + (entry.foldedAlone.map(PostgresCopyText.escaped) ?? "\\N") + "\n"
        }
    }
}
