import CTextWidth
import TerminalSafeText

/// One grapheme cluster ready for the grid: already sanitised, and `width` is the
/// number of cells it covers (1; 2 for CJK and most emoji; 3 or more for a Devanagari
/// conjunct with a vowel sign, whose every spacing letter takes a column).
public struct Glyph: Hashable, Sendable {
    public let symbol: String
    public let width: Int

    init(symbol: String, width: Int) {
        self.symbol = symbol
        self.width = width
    }

    static let space = Glyph(symbol: " ", width: 1)
    static let ellipsis = Glyph(symbol: "…", width: 1)
}

/// Display widths, the single definition shared by the canvas and every caller that
/// measures text. Widths come from the C library's `wcwidth` (the same table ncurses
/// uses to place characters), so the canvas and the terminal never disagree.
///
/// Rules for a grapheme cluster (drawn whole, never cut):
/// - an emoji sequence (flag, skin tone, U+FE0F or keycap sequence, ZWJ sequence) is 2;
/// - otherwise its width is the sum of its scalars' widths, so combining marks, variation
///   selectors and zero-width joiners add nothing and a spacing vowel sign adds one ("न्दी",
///   two letters and a vowel sign joined by a virama, is 3, as tmux places it);
/// - a cluster whose first scalar has width 0 (a lone combining mark, ZWSP, a stray
///   ZWJ) is dropped, except that a cluster with an emoji-presentation scalar counts
///   at least 1;
/// - a cluster the C library cannot print (`wcwidth` is -1: unassigned, or newer than
///   the system's Unicode tables) is shown as U+FFFD, width 1, because ncurses could
///   not place it either.
public enum TextLayout {
    /// The glyphs `text` is drawn as, after `sanitize`.
    public static func glyphs(_ text: String) -> [Glyph] {
        TerminalLocale.prepare()
        var glyphs: [Glyph] = []
        glyphs.reserveCapacity(text.utf8.count)
        for character in sanitize(text) {
            if let glyph = glyph(character) { glyphs.append(glyph) }
        }
        return glyphs
    }

    /// Columns `text` occupies when drawn.
    public static func width(_ text: String) -> Int {
        glyphs(text).reduce(0) { $0 + $1.width }
    }

    /// Columns one character occupies when drawn (0 if it is dropped).
    public static func width(_ character: Character) -> Int {
        TerminalLocale.prepare()
        return sanitize(String(character)).reduce(0) { $0 + (glyph($1)?.width ?? 0) }
    }

    /// `text` cut to at most `width` columns. When something had to be cut the last
    /// visible column is "…"; if a wide character would have straddled the cut, the
    /// ellipsis follows the text directly and a space pads the result, so a truncated
    /// result is always exactly `width` columns wide and no character is cut in half.
    public static func truncate(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        let all = glyphs(text)
        let total = all.reduce(0) { $0 + $1.width }
        if total <= width { return joined(all) }
        var kept: [Glyph] = []
        var used = 0
        for glyph in all {
            if used + glyph.width > width - 1 { break }
            kept.append(glyph)
            used += glyph.width
        }
        kept.append(.ellipsis)
        used += 1
        return joined(kept) + String(repeating: " ", count: width - used)
    }

    /// The symbols of `glyphs` as one string that lays out as the same glyphs again. Two
    /// glyphs can fuse into one grapheme cluster once a dropped zero-width cluster no longer
    /// separates them (a prepended concatenation mark such as U+0601 before a letter, a
    /// spacing mark after one); the one that attaches is shown as U+FFFD instead, as a
    /// cluster the terminal cannot place is. A symbol may be more than one character (a wide
    /// glyph's replacement is two), so fusing is told by the count of the two together.
    static func joined(_ glyphs: [Glyph]) -> String {
        let mark = String(TerminalSafety.replacementCharacter)
        func fuse(_ first: String, _ second: String) -> Bool { (first + second).count < first.count + second.count }
        var symbols = glyphs.map(\.symbol)
        for index in symbols.indices.dropFirst() where fuse(symbols[index - 1], symbols[index]) {
            // A mark that attaches to whatever follows (prepended) goes; otherwise the one after it.
            if fuse(symbols[index - 1], mark) {
                symbols[index - 1] = replacement(width: glyphs[index - 1].width)
            } else {
                symbols[index] = replacement(width: glyphs[index].width)
            }
        }
        return symbols.joined()
    }

    private static func replacement(width: Int) -> String {
        String(repeating: String(TerminalSafety.replacementCharacter), count: width)
    }

    static func glyph(_ character: Character) -> Glyph? {
        let scalars = Array(character.unicodeScalars)
        guard let first = scalars.first else { return nil }
        let leadWidth = scalarWidth(first)
        if leadWidth < 0 {
            return Glyph(symbol: String(TerminalSafety.replacementCharacter), width: 1)
        }
        if isEmojiSequence(scalars) {
            return Glyph(symbol: String(character), width: 2)
        }
        if leadWidth == 0 {
            guard scalars.contains(where: { $0.properties.isEmojiPresentation }) else { return nil }
            return Glyph(symbol: String(character), width: 1)
        }
        // Terminals give each spacing scalar of a cluster its own columns (a Devanagari or
        // Thai spacing vowel sign takes one), and nothing to marks, joiners and selectors.
        let width = scalars.reduce(0) { $0 + max(0, scalarWidth($1)) }
        return Glyph(symbol: String(character), width: width)
    }

    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    private static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        Int(text_width_of_scalar(scalar.value))
    }

    /// A cluster terminals draw as one emoji two columns wide (as unicode-width and fzf
    /// measure it): a flag (two regional indicators), an emoji with a skin-tone modifier,
    /// an emoji-presentation sequence (a base with U+FE0F, a keycap), a ZWJ sequence.
    static func isEmojiSequence(_ scalars: [Unicode.Scalar]) -> Bool {
        guard scalars.count > 1, let first = scalars.first else { return false }
        let properties = first.properties
        if isRegionalIndicator(first) { return isRegionalIndicator(scalars[1]) }
        guard properties.isEmoji else { return false }
        let rest = scalars.dropFirst()
        return rest.contains { $0.value == 0xFE0F || $0.value == 0x20E3 || $0.properties.isEmojiModifier }
            || (rest.contains { $0.value == 0x200D }
                && (properties.isEmojiPresentation || properties.isEmojiModifierBase))
    }
}

/// `wcwidth` answers according to LC_CTYPE, and ncurses only draws wide characters in
/// a UTF-8 locale, so both the terminal and any width query first make sure the
/// process runs in one: the user's locale if it is UTF-8, otherwise C.UTF-8.
/// Runs once per process.
public enum TerminalLocale {
    private static let prepared: Bool = {
        setlocale(LC_ALL, "")
        if text_width_locale_is_utf8() == 0 {
            setlocale(LC_ALL, "C.UTF-8")
        }
        return text_width_locale_is_utf8() != 0
    }()

    /// Whether the process now has a UTF-8 LC_CTYPE.
    @discardableResult
    public static func prepare() -> Bool { prepared }
}
