import Testing
@testable import TerminalUI

/// Bytes as terminals send them (xterm, VT220/tmux/screen, rxvt, the Linux console),
/// written out byte by byte so the table is checked against the real encodings rather
/// than against the decoder's own constants.
struct KeySequence: CustomTestStringConvertible, Sendable {
    let bytes: [UInt8]
    let keys: [Key]
    let name: String

    init(_ text: String, _ keys: [Key], _ name: String) {
        bytes = Array(text.utf8)
        self.keys = keys
        self.name = name
    }

    init(_ text: String, _ key: Key, _ name: String) { self.init(text, [key], name) }

    init(bytes: [UInt8], _ keys: [Key], _ name: String) {
        self.bytes = bytes
        self.keys = keys
        self.name = name
    }

    var testDescription: String { name }
}

private let esc = "\u{1B}"

@Suite("Input decoding")
struct InputDecoderTests {
    static let editingKeys: [KeySequence] = [
        // VT220 (tmux, screen), including rxvt's 7~ / 8~.
        KeySequence("\(esc)[1~", .home, "VT220 Home"),
        KeySequence("\(esc)[2~", .insert, "VT220 Insert"),
        KeySequence("\(esc)[3~", .delete, "VT220 Delete"),
        KeySequence("\(esc)[4~", .end, "VT220 End"),
        KeySequence("\(esc)[5~", .pageUp, "VT220 PgUp"),
        KeySequence("\(esc)[6~", .pageDown, "VT220 PgDn"),
        KeySequence("\(esc)[7~", .home, "rxvt Home"),
        KeySequence("\(esc)[8~", .end, "rxvt End"),
        // xterm, normal and application cursor mode.
        KeySequence("\(esc)[H", .home, "xterm Home"),
        KeySequence("\(esc)[F", .end, "xterm End"),
        KeySequence("\(esc)OH", .home, "xterm application Home"),
        KeySequence("\(esc)OF", .end, "xterm application End"),
    ]

    static let arrows: [KeySequence] = [
        KeySequence("\(esc)[A", .up, "Up"), KeySequence("\(esc)[B", .down, "Down"),
        KeySequence("\(esc)[C", .right, "Right"), KeySequence("\(esc)[D", .left, "Left"),
        KeySequence("\(esc)OA", .up, "application Up"), KeySequence("\(esc)OB", .down, "application Down"),
        KeySequence("\(esc)OC", .right, "application Right"), KeySequence("\(esc)OD", .left, "application Left"),
        KeySequence("\(esc)[1;5C", .modified(.right, .ctrl), "Ctrl-Right"),
        KeySequence("\(esc)[1;5D", .modified(.left, .ctrl), "Ctrl-Left"),
        KeySequence("\(esc)[1;3D", .modified(.left, .alt), "Alt-Left"),
        KeySequence("\(esc)[1;3C", .modified(.right, .alt), "Alt-Right"),
        KeySequence("\(esc)[1;2A", .modified(.up, .shift), "Shift-Up"),
        KeySequence("\(esc)[1;6C", .modified(.right, [.ctrl, .shift]), "Ctrl-Shift-Right"),
        KeySequence("\(esc)[1;9D", .modified(.left, .alt), "Meta-Left (iTerm2)"),
        KeySequence("\(esc)[1;5H", .modified(.home, .ctrl), "Ctrl-Home"),
        KeySequence("\(esc)[3;5~", .modified(.delete, .ctrl), "Ctrl-Delete"),
        KeySequence("\(esc)O5C", .modified(.right, .ctrl), "old xterm Ctrl-Right"),
        // rxvt's own forms.
        KeySequence("\(esc)Oc", .modified(.right, .ctrl), "rxvt Ctrl-Right"),
        KeySequence("\(esc)Od", .modified(.left, .ctrl), "rxvt Ctrl-Left"),
        KeySequence("\(esc)[a", .modified(.up, .shift), "rxvt Shift-Up"),
        KeySequence("\(esc)[7^", .modified(.home, .ctrl), "rxvt Ctrl-Home"),
        KeySequence("\(esc)[2$", .modified(.insert, .shift), "rxvt Shift-Insert"),
        KeySequence("\(esc)[8@", .modified(.end, [.ctrl, .shift]), "rxvt Ctrl-Shift-End"),
        KeySequence("\(esc)\(esc)[C", .modified(.right, .alt), "rxvt Alt-Right (Esc prefix)"),
    ]

    static let functionKeys: [KeySequence] = [
        KeySequence("\(esc)OP", .function(1), "xterm F1"), KeySequence("\(esc)OQ", .function(2), "xterm F2"),
        KeySequence("\(esc)OR", .function(3), "xterm F3"), KeySequence("\(esc)OS", .function(4), "xterm F4"),
        KeySequence("\(esc)[11~", .function(1), "VT220/rxvt F1"),
        KeySequence("\(esc)[12~", .function(2), "VT220/rxvt F2"),
        KeySequence("\(esc)[13~", .function(3), "VT220/rxvt F3"),
        KeySequence("\(esc)[14~", .function(4), "VT220/rxvt F4"),
        KeySequence("\(esc)[15~", .function(5), "F5"), KeySequence("\(esc)[17~", .function(6), "F6"),
        KeySequence("\(esc)[18~", .function(7), "F7"), KeySequence("\(esc)[19~", .function(8), "F8"),
        KeySequence("\(esc)[20~", .function(9), "F9"), KeySequence("\(esc)[21~", .function(10), "F10"),
        KeySequence("\(esc)[23~", .function(11), "F11"), KeySequence("\(esc)[24~", .function(12), "F12"),
        KeySequence("\(esc)[1;2P", .modified(.function(1), .shift), "xterm Shift-F1"),
        KeySequence("\(esc)[15;5~", .modified(.function(5), .ctrl), "xterm Ctrl-F5"),
        KeySequence("\(esc)[[A", .function(1), "Linux console F1"),
        KeySequence("\(esc)[[E", .function(5), "Linux console F5"),
        KeySequence("\(esc)[Z", .backTab, "Shift-Tab"),
        KeySequence("\(esc)OM", .enter, "keypad Enter (application mode)"),
        KeySequence(
            "\(esc)Op\(esc)Oy\(esc)Ok", [.character("0"), .character("9"), .character("+")],
            "keypad digits (application mode)"),
    ]

    static let altKeys: [KeySequence] = [
        KeySequence("\(esc)b", .modified(.character("b"), .alt), "Alt-B"),
        KeySequence("\(esc)f", .modified(.character("f"), .alt), "Alt-F"),
        KeySequence("\(esc)d", .modified(.character("d"), .alt), "Alt-D"),
        KeySequence("\(esc)B", .modified(.character("B"), .alt), "Alt-Shift-B"),
        KeySequence("\(esc)\u{7F}", .modified(.backspace, .alt), "Alt-Backspace (DEL)"),
        KeySequence("\(esc)\u{08}", .modified(.backspace, .alt), "Alt-Backspace (^H)"),
        KeySequence("\(esc)é", .modified(.character("é"), .alt), "Alt-é"),
        KeySequence("\(esc)\u{01}", .modified(.ctrl("a"), .alt), "Ctrl-Alt-A"),
        KeySequence("\(esc)\r", .modified(.enter, .alt), "Alt-Enter"),
    ]

    static let plain: [KeySequence] = [
        KeySequence("a", .character("a"), "a"), KeySequence("~", .character("~"), "tilde"),
        KeySequence("[1~", [.character("["), .character("1"), .character("~")], "brackets without Esc are text"),
        KeySequence("é", .character("é"), "two-byte UTF-8"), KeySequence("漢", .character("漢"), "three-byte UTF-8"),
        KeySequence("😀", .character("😀"), "four-byte UTF-8"),
        KeySequence("\r", .enter, "CR"), KeySequence("\n", .enter, "LF"), KeySequence("\t", .tab, "Tab"),
        KeySequence("\u{7F}", .backspace, "DEL"), KeySequence("\u{08}", .backspace, "^H"),
        KeySequence("\u{01}", .ctrl("a"), "Ctrl-A"), KeySequence("\u{17}", .ctrl("w"), "Ctrl-W"),
        KeySequence("\u{1A}", .ctrl("z"), "Ctrl-Z"),
        KeySequence("\u{00}\u{1C}\u{1F}", [], "unmapped control codes"),
        KeySequence("\u{85}", [], "C1 control (NEL) is not text"),
    ]

    static let mouse: [KeySequence] = [
        KeySequence("\(esc)[<0;5;3M", .mouse(MouseEvent(.click, row: 2, column: 4)), "SGR press"),
        KeySequence("\(esc)[<0;5;3m", [], "SGR release"),
        KeySequence("\(esc)[<64;1;1M", .mouse(MouseEvent(.wheelUp, row: 0, column: 0)), "SGR wheel up"),
        KeySequence("\(esc)[<65;120;40M", .mouse(MouseEvent(.wheelDown, row: 39, column: 119)), "SGR wheel down"),
        KeySequence("\(esc)[<32;5;3M", [], "SGR drag"),
        KeySequence("\(esc)[<2;5;3M", [], "SGR right button"),
        KeySequence("\(esc)[M %#", .mouse(MouseEvent(.click, row: 2, column: 4)), "X10 press"),
        KeySequence("\(esc)[M`!!", .mouse(MouseEvent(.wheelUp, row: 0, column: 0)), "X10 wheel up"),
        KeySequence("\(esc)[M#%#", [], "X10 release"),
    ]

    static let pastes: [KeySequence] = [
        KeySequence("\(esc)[200~two\nlines\(esc)[201~", .paste("two\nlines"), "paste with a newline"),
        KeySequence(
            "\(esc)[200~\(esc)[1~\r\t\(esc)\(esc)[201~", .paste("\(esc)[1~\r\t\(esc)"), "keys inside a paste are text"),
        KeySequence(
            "x\(esc)[200~日本\(esc)[201~y", [.character("x"), .paste("日本"), .character("y")], "text around a paste"),
        KeySequence("\(esc)[200~\(esc)[201~", .paste(""), "empty paste"),
    ]

    /// Sequences nobody maps to a key: each is consumed whole, so the "a" after it is the
    /// only key, and nothing of the sequence becomes text or Esc.
    static let unknown: [KeySequence] = [
        KeySequence("\(esc)[99~a", .character("a"), "unknown VT220 number"),
        KeySequence("\(esc)[E" + "a", .character("a"), "keypad 5"),
        KeySequence("\(esc)[1;5E" + "a", .character("a"), "modified keypad 5"),
        KeySequence("\(esc)[?1;2c" + "a", .character("a"), "device attributes answer"),
        KeySequence("\(esc)[>0;276;0c" + "a", .character("a"), "secondary device attributes"),
        KeySequence("\(esc)[I\(esc)[O" + "a", .character("a"), "focus in / out"),
        KeySequence("\(esc)[201~a", .character("a"), "stray paste end"),
        KeySequence("\(esc)[25~a", .character("a"), "F13"),
        KeySequence("\(esc)[1 qa", .character("a"), "intermediate byte"),
        KeySequence("\(esc)Oza", .character("a"), "unknown SS3"),
        KeySequence("\(esc)[27;5;13~a", .character("a"), "modifyOtherKeys Ctrl-Enter"),
        KeySequence("\(esc)[[Za", .character("a"), "unknown Linux console key"),
        KeySequence("\(esc)[1\(esc)[A", .up, "a sequence cut short by another"),
        KeySequence("\(esc)[" + String(repeating: "1;", count: 60) + "~a", .character("a"), "over-long sequence"),
        KeySequence(bytes: [0xFF, 0xC3, 0x28, 0x61], [.character("("), .character("a")], "invalid UTF-8"),
    ]

    static let all = editingKeys + arrows + functionKeys + altKeys + plain + mouse + pastes + unknown

    @Test("Decodes in one read", arguments: all)
    func oneRead(_ sequence: KeySequence) {
        var decoder = InputDecoder()
        #expect(decoder.feed(sequence.bytes) == sequence.keys)
        #expect(!decoder.isWaiting, "nothing is held back once the sequence is complete")
    }

    @Test("Decodes split into two reads at every byte boundary", arguments: all)
    func everySplit(_ sequence: KeySequence) {
        for split in 1..<max(1, sequence.bytes.count) {
            var decoder = InputDecoder()
            let keys = decoder.feed(sequence.bytes[..<split]) + decoder.feed(sequence.bytes[split...])
            #expect(keys == sequence.keys, "split after byte \(split)")
            #expect(!decoder.isWaiting)
        }
    }

    @Test("Decodes one byte per read", arguments: all)
    func bytewise(_ sequence: KeySequence) {
        var decoder = InputDecoder()
        let keys = sequence.bytes.flatMap { decoder.feed([$0]) }
        #expect(keys == sequence.keys)
    }

    @Test("An escape sequence split across reads produces nothing until it is complete")
    func nothingEarly() {
        for sequence in Self.editingKeys + Self.arrows + Self.functionKeys where sequence.keys.count == 1 {
            var decoder = InputDecoder()
            let early = decoder.feed(sequence.bytes.dropLast())
            #expect(early.isEmpty, "\(sequence.name)")
            #expect(decoder.isWaiting)
        }
    }

    @Test("Esc alone is Esc once the escape delay passes")
    func loneEscape() {
        var decoder = InputDecoder()
        #expect(decoder.feed([0x1B]).isEmpty, "it may still be the start of a sequence")
        #expect(decoder.isWaiting)
        #expect(decoder.timeOut() == [.escape])
        #expect(!decoder.isWaiting)
        #expect(
            decoder.feed(Array("[1~".utf8)) == [.character("["), .character("1"), .character("~")],
            "after the delay the next bytes are keys of their own")
        #expect(decoder.timeOut().isEmpty, "nothing left to settle")
    }

    @Test("What a time-out settles")
    func timeOuts() {
        let cases: [([UInt8], [Key])] =
            [
                ([0xE6, 0xBC], []),  // two of the three bytes of 漢
                ([0x1B, 0xE6, 0xBC], []),
            ]
            + [(String, [Key])]([
                ("\(esc)\(esc)", [.escape, .escape]),
                ("\(esc)[", [.modified(.character("["), .alt)]),
                ("\(esc)O", [.modified(.character("O"), .alt)]),
                ("\(esc)[1;5", []),  // an unfinished sequence is dropped, not text
                ("\(esc)[<0;5", []),
                ("\(esc)[M ", []),
                ("\(esc)[200~abc", [.paste("abc")]),  // a paste whose end never came
                ("\(esc)[200~abc\(esc)[20", [.paste("abc\(esc)[20")]),
            ]).map { (Array($0.0.utf8), $0.1) }
        for (bytes, expected) in cases {
            var decoder = InputDecoder()
            #expect(decoder.feed(bytes).isEmpty, "\(bytes) waits")
            #expect(decoder.timeOut() == expected, "\(bytes)")
            #expect(!decoder.isWaiting)
            #expect(decoder.feed([UInt8(ascii: "a")]) == [.character("a")], "decoding goes on normally")
        }
    }

    @Test("Unknown sequences never produce text", arguments: unknown)
    func unknownProducesNoText(_ sequence: KeySequence) {
        // The table's expectations already pin this; here the check is independent of them:
        // no character key may carry a byte of the sequence itself.
        var decoder = InputDecoder()
        let keys =
            decoder.feed(sequence.bytes.dropLast())
            + decoder.timeOut()
        #expect(
            !keys.contains { if case .character = $0 { true } else { false } } || sequence.name == "invalid UTF-8",
            "\(keys)")
        #expect(!keys.contains(.escape))
    }

    @Test("terminfo's own sequences win, and extend the built-in forms")
    func terminfoWins() {
        // The Sun console's F1 (kf1=\E[224z) is unknown to the built-in forms; a terminal
        // whose terminfo says its Esc [ 1 ~ is Find is taken at its word (Find is Home).
        var decoder = InputDecoder(terminfo: [
            Array("\(esc)[224z".utf8): .function(1),
            Array("\(esc)[1~".utf8): .insert,
        ])
        #expect(decoder.feed(Array("\(esc)[224z".utf8)) == [.function(1)])
        #expect(decoder.feed(Array("\(esc)[1~".utf8)) == [.insert])
        #expect(decoder.feed(Array("\(esc)[4~".utf8)) == [.end], "built-in forms still apply")
        var plain = InputDecoder()
        #expect(plain.feed(Array("\(esc)[224z".utf8)).isEmpty)
        // A terminfo sequence split across reads waits for its end.
        #expect(decoder.feed(Array("\(esc)[22".utf8)).isEmpty)
        #expect(decoder.feed(Array("4z".utf8)) == [.function(1)])
    }

    @Test("In one read, nothing after a paste end is a key: a pasted end marker cannot smuggle keys out")
    func keysAfterPasteEndInOneRead() {
        let cases: [(String, [Key])] = [
            ("\(esc)[200~abc\(esc)[201~\u{11}after\(esc)[201~", [.paste("abcafter")]),
            ("\(esc)[200~abc\(esc)[201~\r\u{13}\(esc)[B\(esc)[<0;3;4M\u{4}x", [.paste("abcx")]),
            ("\(esc)[200~one\(esc)[201~\(esc)[200~two\(esc)[201~", [.paste("onetwo")]),
            ("x\(esc)[200~日本\(esc)[201~y", [.character("x"), .paste("日本y")]),
            ("\u{11}", [.ctrl("q")]),
        ]
        for (input, expected) in cases {
            var decoder = InputDecoder()
            #expect(decoder.feedRead(Array(input.utf8)) == expected, "\(input.debugDescription)")
        }
        var decoder = InputDecoder()
        _ = decoder.feedRead(Array("\(esc)[200~abc\(esc)[201~".utf8))
        #expect(decoder.feedRead([0x11]) == [.ctrl("q")], "a key in a later read is a key again")
    }

    @Test("A large paste is delivered once, bounded in size")
    func largePaste() {
        var decoder = InputDecoder()
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: InputDecoder.maximumPasteBytes + 5000)
        var keys = decoder.feed(Array("\(esc)[200~".utf8))
        for chunk in stride(from: 0, to: body.count, by: 4096) {
            keys += decoder.feed(body[chunk..<min(body.count, chunk + 4096)])
            #expect(decoder.isInPaste)
        }
        keys += decoder.feed(Array("\(esc)[201~z".utf8))
        #expect(keys == [.paste(String(repeating: "x", count: InputDecoder.maximumPasteBytes)), .character("z")])
    }
}
