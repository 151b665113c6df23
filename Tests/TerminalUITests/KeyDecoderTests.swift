import Testing
@testable import TerminalUI

/// Raw codes are written as ncurses defines them (curses.h, octal), so the table is
/// checked against the library's real numbering.
@Suite("Key decoding")
struct KeyDecoderTests {
    static let keyCodes: [(Int32, Key)] = [
        (0o403, .up), (0o402, .down), (0o404, .left), (0o405, .right),
        (0o406, .home), (0o550, .end), (0o552, .home), (0o601, .end),
        (0o523, .pageUp), (0o522, .pageDown),
        (0o513, .insert), (0o512, .delete), (0o407, .backspace),
        (0o527, .enter), (0o541, .backTab),
        (0o411, .function(1)), (0o412, .function(2)), (0o417, .function(7)), (0o424, .function(12)),
    ]

    @Test("ncurses key codes", arguments: keyCodes)
    func keyCode(_ code: Int32, _ expected: Key) {
        #expect(KeyDecoder.decode(.keyCode(code)) == expected)
    }

    @Test("Key codes the app never sees")
    func ignoredKeyCodes() {
        #expect(KeyDecoder.decode(.keyCode(0o410)) == nil, "F0")
        #expect(KeyDecoder.decode(.keyCode(0o425)) == nil, "F13 (shifted F1)")
        #expect(KeyDecoder.decode(.keyCode(0o631)) == nil, "KEY_MOUSE is read with getmouse")
        #expect(KeyDecoder.decode(.keyCode(0o632)) == nil, "KEY_RESIZE is handled by the terminal")
    }

    static let characters: [(UInt32, Key?)] = [
        (13, .enter), (10, .enter), (9, .tab), (27, .escape),
        (127, .backspace), (8, .backspace),
        (1, .ctrl("a")), (3, .ctrl("c")), (11, .ctrl("k")), (21, .ctrl("u")), (23, .ctrl("w")), (26, .ctrl("z")),
        (0, nil), (28, nil), (31, nil), (0x85, nil), (0x9B, nil),
        (32, .character(" ")), (65, .character("A")), (0x7E, .character("~")),
        (0xE9, .character("é")), (0x6F22, .character("漢")), (0x3042, .character("あ")),
        (0x1F600, .character("😀")),
    ]

    @Test("Characters and control codes", arguments: characters)
    func character(_ code: UInt32, _ expected: Key?) {
        #expect(KeyDecoder.decode(.character(code)) == expected)
    }

    // NCURSES_MOUSE_VERSION 2: button b's bits start at (b - 1) * 5; pressed is 0o2.
    static let button1Released: UInt32 = 0o1
    static let button1Pressed: UInt32 = 0o2
    static let button1Clicked: UInt32 = 0o4
    static let button4Pressed: UInt32 = 0o2 << 15
    static let button5Pressed: UInt32 = 0o2 << 20

    @Test("Mouse wheel and clicks carry row and column")
    func mouse() {
        #expect(KeyDecoder.decode(.mouse(buttonState: Self.button4Pressed, row: 3, column: 7))
            == .mouse(MouseEvent(.wheelUp, row: 3, column: 7)))
        #expect(KeyDecoder.decode(.mouse(buttonState: Self.button5Pressed, row: 4, column: 0))
            == .mouse(MouseEvent(.wheelDown, row: 4, column: 0)))
        #expect(KeyDecoder.decode(.mouse(buttonState: Self.button1Pressed, row: 5, column: 12))
            == .mouse(MouseEvent(.click, row: 5, column: 12)))
        #expect(KeyDecoder.decode(.mouse(buttonState: Self.button1Clicked, row: 1, column: 2))
            == .mouse(MouseEvent(.click, row: 1, column: 2)))
        #expect(KeyDecoder.decode(.mouse(buttonState: Self.button1Released, row: 5, column: 12)) == nil)
        #expect(KeyDecoder.decode(.mouse(buttonState: 0, row: 0, column: 0)) == nil)
    }
}
