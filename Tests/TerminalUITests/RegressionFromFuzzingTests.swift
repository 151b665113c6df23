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
        "a\u{200B}\u{093F}bc",  // a spacing mark left alone after a dropped space
        "🇫\u{200B}🇷 flags",  // regional indicators that would pair up
        "👩\u{200D}\u{200B}👧 family",  // a joiner left at the end of a glyph
        // Found by fuzzing on 2026-12-02: the mark before a wide character. Its replacement
        // is two U+FFFD, and the mark fused with the first of them.
        "\u{0600}\u{200B}\u{490D}\u{FFFD}\u{FFFD}\u{FFFD}\nH",
        "\u{0600}\u{200B}界\u{200B}\u{0903}",  // ... and a spacing mark after that wide character
    ])
    func truncatingLaysOutAsMeasured(text: String) {
        let total = TextLayout.width(text)
        for width in 0...(total + 2) {
            let truncated = TextLayout.truncate(text, toWidth: width)
            #expect(
                TextLayout.width(truncated) == min(total, width),
                "width \(width): \(truncated.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}

/// Inputs the `KeyDecoding` fuzz target found.
@Suite struct InputDecoderRegressionFromFuzzingTests {
    /// Found by fuzzing (a hang): a run of a few hundred Escs recursed once per Esc and was
    /// parsed again after every byte, taking seconds. Each Esc but the last two is the Esc
    /// key, and the last two with the key after them are Alt and that key (as Esc Esc b was
    /// before); the decoding must not depend on how the bytes were split.
    @Test func aLongRunOfEscapesDecodesAsEscapeKeysWhateverTheSplit() {
        let input = Array("x".utf8) + [UInt8](repeating: 0x1B, count: 5_000) + Array("b".utf8)
        var whole = InputDecoder()
        let wholeKeys = whole.feed(input) + whole.timeOut()
        var split = InputDecoder()
        var splitKeys: [Key] = []
        for byte in input { splitKeys += split.feed([byte]) }
        splitKeys += split.timeOut()
        let expected: [Key] =
            [.character("x")] + Array(repeating: .escape, count: 4_998) + [.character("b").adding(.alt)]
        #expect(wholeKeys == expected)
        #expect(splitKeys == expected)
    }
}
