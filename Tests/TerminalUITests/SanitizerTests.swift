import Testing
@testable import TerminalUI

@Suite("Sanitising text from outside")
struct SanitizerTests {
    /// Scalars a terminal acts on instead of printing.
    static func isDangerous(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    @Test("Every C0, DEL, C1 and bidi control is replaced; nothing dangerous survives")
    func everyControl() {
        var scalars = String.UnicodeScalarView()
        for value in Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F)
            + [
                0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028,
                0x2029,
            ]
        {
            scalars.append(Unicode.Scalar(UInt32(value))!)
        }
        let input = String(scalars)
        let output = sanitize(input)
        #expect(!output.unicodeScalars.contains(where: Self.isDangerous))
        #expect(output.unicodeScalars.count == input.unicodeScalars.count, "one placeholder per control")
    }

    @Test("An ANSI escape sequence becomes inert visible text")
    func ansiSequence() {
        #expect(sanitize("\u{1B}[1;31mred\u{1B}[0m") == "␛[1;31mred␛[0m")
        #expect(sanitize("\u{1B}]0;owned\u{07}") == "␛]0;owned␇", "OSC title change")
        #expect(sanitize("\u{9B}2J") == "\u{FFFD}2J", "8-bit CSI")
    }

    @Test("C0 controls become Control Pictures, DEL becomes ␡")
    func placeholders() {
        #expect(sanitize("a\tb\nc\rd\u{0}") == "a␉b␊c␍d␀")
        #expect(sanitize("x\u{7F}") == "x␡")
    }

    @Test("Bidi overrides cannot reorder what follows")
    func bidi() {
        #expect(sanitize("abc\u{202E}fdp.exe") == "abc\u{FFFD}fdp.exe")
        #expect(sanitize("\u{2066}x\u{2069}") == "\u{FFFD}x\u{FFFD}")
    }

    @Test("Ordinary text, CJK, emoji, combining marks and ZWJ are untouched")
    func ordinary() {
        let text = "Café Müller ノルウェイの森 👨\u{200D}👩\u{200D}👧 e\u{301} ❤️"
        #expect(sanitize(text) == text)
    }

    @Test("The canvas sanitises even when the caller forgets")
    func canvasRefusesControls() {
        var canvas = Canvas(width: 20, height: 1)
        canvas.draw("a\u{1B}[31mb\u{7}\u{9B}c", x: 0, y: 0)
        #expect(canvas.trimmedLine(0) == "a␛[31mb␇\u{FFFD}c")
        for x in 0..<canvas.width {
            #expect(!canvas[x, 0].symbol.unicodeScalars.contains(where: Self.isDangerous))
        }
    }
}
