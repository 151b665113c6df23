import Testing
@testable import TerminalUI

@Suite("Display widths")
struct DisplayWidthTests {
    @Test("ASCII is one column per character")
    func ascii() {
        #expect(TextLayout.width("Dune") == 4)
        #expect(TextLayout.width("") == 0)
        #expect(TextLayout.width(" ") == 1)
    }

    @Test("CJK ideographs and kana take two columns each")
    func cjk() {
        #expect(TextLayout.width("漢字") == 4)
        #expect(TextLayout.width("ノルウェイの森") == 14)
        #expect(TextLayout.width("村上春樹 Murakami") == 8 + 1 + 8)
    }

    @Test("Emoji with emoji presentation take two columns")
    func emoji() {
        #expect(TextLayout.width("😀") == 2)
        #expect(TextLayout.width("👍🏽") == 2, "a skin-tone modifier joins its base")
    }

    @Test("A zero-width-joiner sequence is one glyph as wide as its first scalar")
    func zeroWidthJoiner() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(TextLayout.glyphs(family).count == 1)
        #expect(TextLayout.width(family) == 2)
        #expect(TextLayout.width("a\(family)b") == 4)
    }

    @Test("Combining marks and variation selectors never add columns")
    func combiningMarks() {
        #expect(TextLayout.width("e\u{301}") == 1)
        #expect(TextLayout.width("Cafe\u{301} Müller") == 11)
        #expect(TextLayout.width("a\u{301}\u{302}\u{303}") == 1)
        #expect(TextLayout.width("\u{2764}\u{FE0F}") == 1, "width of the first scalar (wcwidth of U+2764)")
    }

    @Test("Standalone zero-width characters are dropped, not given a column")
    func zeroWidthAlone() {
        #expect(TextLayout.width("a\u{200B}b") == 2)
        #expect(TextLayout.glyphs("a\u{200B}b").map(\.symbol) == ["a", "b"])
        #expect(TextLayout.width("\u{301}") == 0)
    }

    @Test("Characters the C library cannot print become U+FFFD, one column")
    func unprintable() {
        // U+FDD0 is a noncharacter: never assigned, so wcwidth is -1 on every system.
        let text = "a" + String(Unicode.Scalar(0xFDD0)!) + "b"
        #expect(TextLayout.glyphs(text).map(\.symbol) == ["a", "\u{FFFD}", "b"])
        #expect(TextLayout.width(text) == 3)
    }

    @Test("Control characters are measured as their visible placeholders")
    func controlCharacters() {
        #expect(TextLayout.width("a\tb\n") == 4)
    }

    @Test("Character width helper agrees with string width")
    func characterWidth() {
        #expect(TextLayout.width(Character("漢")) == 2)
        #expect(TextLayout.width(Character("a")) == 1)
        #expect(TextLayout.width(Character("\u{200B}")) == 0)
    }
}

@Suite("Truncation with an ellipsis")
struct TruncationTests {
    @Test("Text that fits exactly is left alone")
    func exactFit() {
        #expect(TextLayout.truncate("abcdef", toWidth: 6) == "abcdef")
        #expect(TextLayout.truncate("漢字", toWidth: 4) == "漢字")
        #expect(TextLayout.truncate("abc", toWidth: 10) == "abc", "no padding when nothing was cut")
    }

    @Test("One column too long puts the ellipsis in the last column")
    func oneTooLong() {
        let result = TextLayout.truncate("abcdefg", toWidth: 6)
        #expect(result == "abcde…")
        #expect(TextLayout.width(result) == 6)
    }

    @Test("A wide character is never cut: ellipsis after it, padded to the exact width")
    func wideAtCut() {
        #expect(TextLayout.truncate("漢字漢字", toWidth: 5) == "漢字…")
        let four = TextLayout.truncate("漢字漢字", toWidth: 4)
        #expect(four == "漢… ")
        #expect(TextLayout.width(four) == 4)
        for width in 1...9 {
            #expect(TextLayout.width(TextLayout.truncate("漢字漢字x", toWidth: width)) == width)
        }
    }

    @Test("Tiny widths")
    func tiny() {
        #expect(TextLayout.truncate("abc", toWidth: 0) == "")
        #expect(TextLayout.truncate("abc", toWidth: 1) == "…")
        #expect(TextLayout.truncate("漢字", toWidth: 1) == "…")
        #expect(TextLayout.truncate("漢字", toWidth: 2) == "… ")
    }

    @Test("Truncation keeps whole grapheme clusters")
    func clusters() {
        #expect(TextLayout.truncate("e\u{301}e\u{301}e\u{301}x", toWidth: 3) == "e\u{301}e\u{301}…")
    }
}
