import Testing
@testable import TerminalUI

/// Inputs the `CanvasLayout` fuzz target (in `Fuzz/`) found, kept so the fix stays.
@Suite struct TextLayoutRegressionFromFuzzingTests {
    /// Found by fuzzing: U+0601 (ARABIC SIGN SANAH, a prepended concatenation mark) followed
    /// by a zero-width space. The space is dropped, so in the truncated text the mark fused
    /// with the next glyph into one grapheme cluster, and the result was a column narrower
    /// than `truncate` promises.
    @Test(arguments: [
        "+\u{FFFD}\u{200F}\u{FFFD}\u{FFFD}\u{200F}\u{FFFD}\u{200B}\u{200F}\u{0601}\u{200B}\u{200F}",
        "\u{0601}\u{200B}abc",
        "a\u{200B}\u{093F}bc",           // a spacing mark left alone after a dropped space
        "🇫\u{200B}🇷 flags",             // regional indicators that would pair up
        "👩\u{200D}\u{200B}👧 family",   // a joiner left at the end of a glyph
    ])
    func truncatingLaysOutAsMeasured(text: String) {
        let total = TextLayout.width(text)
        for width in 0...(total + 2) {
            let truncated = TextLayout.truncate(text, toWidth: width)
            #expect(TextLayout.width(truncated) == min(total, width), "width \(width): \(truncated.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
