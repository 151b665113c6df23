/// Turns the bytes a terminal sends into keys, mouse actions and pastes, whatever TERM
/// claims: the xterm, VT220 and rxvt forms of the editing, cursor and function keys are
/// all understood, because terminals (and tmux above all) do not always send what
/// terminfo says.
///
/// Pure and incremental: input may be split across `feed` calls at any byte, and the
/// result is the same as if it had arrived in one piece. Bytes that could still be the
/// start of a longer sequence are held back; `timeOut()` (called by the terminal when
/// nothing more arrived within the escape delay) settles them: a lone Esc is the Esc key,
/// an unfinished sequence is dropped.
///
/// An escape sequence that is not recognised is consumed whole and dropped: it never
/// becomes text and never acts as Esc.
public struct InputDecoder: Sendable {
    /// Sequences the terminal's own terminfo entry names; they win over the built-in forms.
    private let terminfo: [[UInt8]: Key]
    /// Every proper prefix of a terminfo sequence, to know when to wait for more.
    private let terminfoPrefixes: Set<[UInt8]>
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: the text so far.
    private var paste: [UInt8]?
    /// Inside an over-long control sequence: dropping bytes until its final byte.
    private var skippingSequence = false

    /// A paste larger than this keeps its first bytes only: no field takes anywhere near
    /// as much, and the rest would only cost memory.
    public static let maximumPasteBytes = 1 << 16
    /// Control sequences longer than this are never keys; they are skipped, not buffered.
    static let maximumSequenceBytes = 64

    static let escape: UInt8 = 0x1B
    static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
    static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// `terminfo`: sequences (starting with Esc) the current terminal type defines for keys.
    public init(terminfo: [[UInt8]: Key] = [:]) {
        let sequences = terminfo.filter { $0.key.count >= 2 && $0.key.first == Self.escape }
        self.terminfo = sequences
        var prefixes = Set<[UInt8]>()
        for sequence in sequences.keys {
            for length in 1..<sequence.count { prefixes.insert(Array(sequence.prefix(length))) }
        }
        terminfoPrefixes = prefixes
    }

    /// Bytes are held back, waiting for the rest of a sequence (or of a paste).
    public var isWaiting: Bool { !pending.isEmpty || paste != nil || skippingSequence }

    /// Inside a bracketed paste whose end has not arrived yet.
    public var isInPaste: Bool { paste != nil }

    /// Decodes `bytes` following everything fed before; returns the keys completed by them.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var start = 0
        while start < pending.count {
            if paste != nil {
                let (consumed, finished) = collectPaste(from: start, into: &keys)
                start = consumed
                if finished { continue }
                break
            }
            if skippingSequence {
                start += skipSequence(pending[start...])
                continue
            }
            guard case let .token(length, token) = parse(pending[start...]) else { break }
            start += length
            accept(token, into: &keys)
        }
        pending.removeFirst(start)
        return keys
    }

    /// Decodes the bytes of one read from the terminal. Unlike `feed`, whatever the same
    /// read completes after a paste is part of that paste: a pasted text that contains the
    /// end marker itself (`ESC [201~`) would otherwise end the paste early and run the rest
    /// as keys (pasting `abc ESC [201~ Ctrl-Q` would quit). A person cannot type within the
    /// read that delivers a paste, so nothing there is a key: printable characters (and the
    /// text of a paste that follows) join the paste's text, every other key is dropped.
    public mutating func feedRead(_ bytes: some Sequence<UInt8>) -> [Key] {
        Self.foldingKeysAfterPaste(feed(bytes))
    }

    static func foldingKeysAfterPaste(_ keys: [Key]) -> [Key] {
        guard let first = keys.firstIndex(where: { if case .paste = $0 { true } else { false } }),
            case var .paste(text) = keys[first]
        else { return keys }
        for key in keys[(first + 1)...] {
            switch key {
            case let .character(character): text.append(character)
            case let .paste(more): text += more
            default: continue
            }
        }
        return Array(keys[..<first]) + [.paste(text)]
    }

    /// Nothing more arrived within the escape delay: settles what is held back. A lone
    /// Esc becomes `.escape`, Esc-`[` and Esc-`O` become Alt-`[` and Alt-`O`, anything else
    /// unfinished is dropped. A paste whose end never came is delivered as it stands.
    public mutating func timeOut() -> [Key] {
        var keys: [Key] = []
        skippingSequence = false
        if var text = paste {
            text.append(contentsOf: pending)
            pending.removeAll()
            paste = nil
            keys.append(.paste(Self.text(text)))
            return keys
        }
        while !pending.isEmpty {
            if case let .token(length, token) = parse(pending[...]) {
                pending.removeFirst(length)
                accept(token, into: &keys)
                continue
            }
            if pending.first == Self.escape, pending.count == 1 || pending[1] == Self.escape {
                keys.append(.escape)
                pending.removeFirst()
            } else if pending.first == Self.escape, pending.count == 2,
                pending[1] == UInt8(ascii: "[") || pending[1] == UInt8(ascii: "O")
            {
                keys.append(.character(Character(Unicode.Scalar(pending[1]))).adding(.alt))
                pending.removeAll()
            } else {
                pending.removeAll()
            }
        }
        return keys
    }

    // MARK: - Tokens

    enum Token: Equatable {
        case key(Key)
        /// Consumed and dropped: an unknown sequence, a mouse release, an invalid byte.
        case nothing
        case pasteStart
        /// An over-long control sequence: drop what came so far and the rest of it.
        case skipRest
    }

    enum Parsed: Equatable {
        case token(length: Int, Token)
        case incomplete
    }

    private mutating func accept(_ token: Token, into keys: inout [Key]) {
        switch token {
        case let .key(key): keys.append(key)
        case .nothing: break
        case .pasteStart: paste = []
        case .skipRest: skippingSequence = true
        }
    }

    /// Moves paste bytes from `pending[start...]` into the paste; returns where it stopped
    /// and whether the end marker was found. A tail that may be the start of the end marker
    /// stays pending.
    private mutating func collectPaste(from start: Int, into keys: inout [Key]) -> (Int, Bool) {
        let end = Self.pasteEnd
        var index = start
        while index < pending.count {
            if pending[index] == Self.escape {
                let available = min(end.count, pending.count - index)
                if pending[index..<(index + available)].elementsEqual(end.prefix(available)) {
                    appendToPaste(pending[start..<index])
                    if available < end.count { return (index, false) }
                    keys.append(.paste(Self.text(paste ?? [])))
                    paste = nil
                    return (index + end.count, true)
                }
            }
            index += 1
        }
        appendToPaste(pending[start..<index])
        return (index, false)
    }

    private mutating func appendToPaste(_ bytes: ArraySlice<UInt8>) {
        let room = Self.maximumPasteBytes - (paste?.count ?? 0)
        if room > 0 { paste?.append(contentsOf: bytes.prefix(room)) }
    }

    /// Drops the rest of an over-long control sequence; returns how many bytes it used.
    private mutating func skipSequence(_ bytes: ArraySlice<UInt8>) -> Int {
        var used = 0
        for byte in bytes {
            switch byte {
            case 0x20...0x3F:
                used += 1
            case 0x40...0x7E:
                skippingSequence = false
                return used + 1
            default:
                skippingSequence = false  // not part of a sequence: decode it normally
                return used
            }
        }
        return used
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    // MARK: - Parsing

    /// The token at the start of `bytes`, or `.incomplete` if more bytes are needed to know.
    func parse(_ bytes: ArraySlice<UInt8>) -> Parsed {
        guard let first = bytes.first else { return .incomplete }
        switch first {
        case Self.escape: return parseEscape(bytes)
        case 0x00...0x1F, 0x7F: return .token(length: 1, Self.control(first).map(Token.key) ?? .nothing)
        case 0x20...0x7E: return .token(length: 1, .key(.character(Character(Unicode.Scalar(first)))))
        default: return parseUTF8(bytes)
        }
    }

    /// Control bytes. Ctrl-H and DEL are both Backspace (terminals differ in which they send).
    static func control(_ byte: UInt8) -> Key? {
        switch byte {
        case 13, 10: .enter  // CR, or LF from Ctrl-J
        case 9: .tab
        case 8, 127: .backspace
        case 27: .escape
        case 1...26: .ctrl(Character(Unicode.Scalar(byte + 0x60)))
        default: nil
        }
    }

    private func parseUTF8(_ bytes: ArraySlice<UInt8>) -> Parsed {
        let lead = bytes[bytes.startIndex]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .token(length: 1, .nothing)  // a stray continuation or invalid byte
        }
        let available = bytes.prefix(length)
        if available.dropFirst().contains(where: { $0 & 0xC0 != 0x80 }) { return .token(length: 1, .nothing) }
        guard available.count == length else { return .incomplete }
        var iterator = available.makeIterator()
        var codec = UTF8()
        guard case let .scalarValue(scalar) = codec.decode(&iterator) else { return .token(length: 1, .nothing) }
        // C1 controls are commands in some terminals, never text.
        if (0x80...0x9F).contains(scalar.value) { return .token(length: length, .nothing) }
        return .token(length: length, .key(.character(Character(scalar))))
    }

    private func parseEscape(_ bytes: ArraySlice<UInt8>) -> Parsed {
        guard bytes.count >= 2 else { return .incomplete }
        if let parsed = matchTerminfo(bytes) { return parsed }
        let second = bytes[bytes.startIndex + 1]
        switch second {
        case UInt8(ascii: "["): return parseControlSequence(bytes)
        case UInt8(ascii: "O"): return parseSingleShift(bytes)
        case Self.escape where bytes.count >= 3 && bytes[bytes.startIndex + 2] == Self.escape:
            // Esc Esc Esc: the first is the Esc key (Alt applies to one key, not to Alt itself).
            // Without this a run of Escs recursed once per Esc and was parsed again at every
            // byte: quadratic, seconds for a few hundred Escs (found by fuzzing).
            return .token(length: 1, .key(.escape))
        default:
            // Alt: Esc then a key, or Esc then a whole sequence (rxvt's Alt-arrows).
            switch parse(bytes.dropFirst()) {
            case .incomplete: return .incomplete
            case let .token(length, .key(key)): return .token(length: length + 1, .key(key.adding(.alt)))
            case let .token(length, token): return .token(length: length + 1, token)
            }
        }
    }

    private func matchTerminfo(_ bytes: ArraySlice<UInt8>) -> Parsed? {
        guard !terminfo.isEmpty else { return nil }
        let longest = min(bytes.count, Self.maximumSequenceBytes)
        for length in 2...max(2, longest) where length <= bytes.count {
            if let key = terminfo[Array(bytes.prefix(length))] { return .token(length: length, .key(key)) }
        }
        return terminfoPrefixes.contains(Array(bytes.prefix(longest))) && bytes.count < Self.maximumSequenceBytes
            ? .incomplete : nil
    }

    // MARK: CSI: Esc [ parameters intermediates final

    private func parseControlSequence(_ bytes: ArraySlice<UInt8>) -> Parsed {
        let start = bytes.startIndex
        guard bytes.count >= 3 else { return .incomplete }
        let third = bytes[start + 2]
        if third == UInt8(ascii: "M") {
            // X10 mouse: Esc [ M and three raw bytes (button, column, row; each + 32).
            guard bytes.count >= 6 else { return .incomplete }
            let values = bytes[(start + 3)..<(start + 6)].map { Int($0) - 32 }
            return .token(
                length: 6, Self.mouse(button: values[0], column: values[1] - 1, row: values[2] - 1, pressed: true))
        }
        if third == UInt8(ascii: "[") {
            // The Linux console's F1-F5: Esc [ [ A ... Esc [ [ E.
            guard bytes.count >= 4 else { return .incomplete }
            let letter = Int(bytes[start + 3])
            let key: Key? = (65...69).contains(letter) ? .function(letter - 64) : nil
            return .token(length: 4, key.map(Token.key) ?? .nothing)
        }
        var index = start + 2
        var parameters: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            let length = index - start + 1
            switch byte {
            case UInt8(ascii: "$") where !parameters.isEmpty && parameters.allSatisfy(Self.isDigit):
                // rxvt: Esc [ 2 $ is Shift-Insert ($ as a final byte).
                return .token(length: length, Self.controlSequence(parameters: parameters, final: byte))
            case 0x20...0x3F:
                if byte >= 0x30 { parameters.append(byte) }
                guard length < Self.maximumSequenceBytes else { return .token(length: length, .skipRest) }
                index += 1
            case 0x40...0x7E:
                return .token(length: length, Self.controlSequence(parameters: parameters, final: byte))
            default:
                // Not part of a sequence: drop what came before it, then decode it.
                if index == start + 2 { return .token(length: 2, .key(Key.character("[").adding(.alt))) }
                return .token(length: length - 1, .nothing)
            }
        }
        return .incomplete
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// "1;5" -> [1, 5]; an empty field is nil.
    static func numbers(_ parameters: [UInt8]) -> [Int?] {
        parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { field in
            guard !field.isEmpty, field.count < 7, field.allSatisfy(isDigit) else { return nil }
            return field.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
    }

    /// xterm's modifier parameter: 1 + (Shift 1, Alt 2, Ctrl 4, Meta 8).
    static func modifiers(_ parameter: Int?) -> KeyModifiers {
        guard let parameter, parameter > 1 else { return [] }
        let bits = parameter - 1
        var modifiers: KeyModifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & (2 | 8) != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.ctrl) }
        return modifiers
    }

    static func controlSequence(parameters: [UInt8], final: UInt8) -> Token {
        if let marker = parameters.first, (0x3C...0x3F).contains(marker) {
            // Private parameters: only SGR mouse reports (Esc [ < b ; x ; y M/m) are input.
            guard marker == UInt8(ascii: "<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") else {
                return .nothing
            }
            let values = numbers(Array(parameters.dropFirst()))
            guard values.count == 3, let button = values[0], let column = values[1], let row = values[2] else {
                return .nothing
            }
            return mouse(button: button, column: column - 1, row: row - 1, pressed: final == UInt8(ascii: "M"))
        }
        let values = numbers(parameters)
        let first = values.first ?? nil
        let modifier = modifiers(values.count >= 2 ? values[1] : nil)
        let key: Key?
        switch Character(Unicode.Scalar(final)) {
        case "A": key = .up
        case "B": key = .down
        case "C": key = .right
        case "D": key = .left
        case "H": key = .home
        case "F": key = .end
        case "Z": return .key(.backTab)
        case "P", "Q", "R", "S": key = .function(Int(final) - 0x50 + 1)  // xterm's modified F1-F4
        // rxvt's Shift-arrows.
        case "a": return .key(.modified(.up, .shift))
        case "b": return .key(.modified(.down, .shift))
        case "c": return .key(.modified(.right, .shift))
        case "d": return .key(.modified(.left, .shift))
        case "~":
            if first == 200 { return .pasteStart }
            key = first.flatMap(editingKey)
        // rxvt marks modifiers with the final byte instead of a parameter.
        case "^": return first.flatMap(editingKey).map { .key($0.adding(.ctrl)) } ?? .nothing
        case "@": return first.flatMap(editingKey).map { .key($0.adding([.ctrl, .shift])) } ?? .nothing
        case "$": return first.flatMap(editingKey).map { .key($0.adding(.shift)) } ?? .nothing
        default: key = nil
        }
        return key.map { .key($0.adding(modifier)) } ?? .nothing
    }

    /// VT220 and rxvt numbered keys: Esc [ n ~.
    static func editingKey(_ number: Int) -> Key? {
        switch number {
        case 1, 7: .home
        case 2: .insert
        case 3: .delete
        case 4, 8: .end
        case 5: .pageUp
        case 6: .pageDown
        case 11...15: .function(number - 10)
        case 17...21: .function(number - 11)
        case 23, 24: .function(number - 12)
        default: nil
        }
    }

    /// Button codes shared by X10 and SGR reports: 0 left, 64/65 wheel up/down; +32 motion;
    /// 4, 8, 16 modifiers. Releases, motion and other buttons are not events for the app.
    static func mouse(button: Int, column: Int, row: Int, pressed: Bool) -> Token {
        guard pressed, button & 32 == 0, row >= 0, column >= 0 else { return .nothing }
        let position = (row: row, column: column)
        if button & 64 != 0 {
            switch button & 3 {
            case 0: return .key(.mouse(MouseEvent(.wheelUp, row: position.row, column: position.column)))
            case 1: return .key(.mouse(MouseEvent(.wheelDown, row: position.row, column: position.column)))
            default: return .nothing
            }
        }
        guard button & 3 == 0 else { return .nothing }
        return .key(.mouse(MouseEvent(.click, row: position.row, column: position.column)))
    }

    // MARK: SS3: Esc O final

    private func parseSingleShift(_ bytes: ArraySlice<UInt8>) -> Parsed {
        let start = bytes.startIndex
        var index = start + 2
        var parameters: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            let length = index - start + 1
            switch byte {
            case 0x30...0x3B:
                // Old xterms put a modifier here: Esc O 5 C.
                parameters.append(byte)
                guard length < Self.maximumSequenceBytes else { return .token(length: length, .skipRest) }
                index += 1
            case 0x40...0x7E:
                let values = Self.numbers(parameters)
                let modifier = Self.modifiers(values.last ?? nil)
                return .token(
                    length: length, Self.singleShift(final: byte).map { .key($0.adding(modifier)) } ?? .nothing)
            default:
                if index == start + 2 { return .token(length: 2, .key(Key.character("O").adding(.alt))) }
                return .token(length: length - 1, .nothing)
            }
        }
        return .incomplete
    }

    static func singleShift(final: UInt8) -> Key? {
        switch Character(Unicode.Scalar(final)) {
        case "A": .up
        case "B": .down
        case "C": .right
        case "D": .left
        case "H": .home
        case "F": .end
        case "P", "Q", "R", "S": .function(Int(final) - 0x50 + 1)
        case "M": .enter  // keypad Enter in application mode
        // rxvt's Ctrl-arrows.
        case "a": .modified(.up, .ctrl)
        case "b": .modified(.down, .ctrl)
        case "c": .modified(.right, .ctrl)
        case "d": .modified(.left, .ctrl)
        // The numeric keypad in application mode (keypad_xmit turns it on): its characters.
        case "j": .character("*")
        case "k": .character("+")
        case "l": .character(",")
        case "m": .character("-")
        case "n": .character(".")
        case "o": .character("/")
        case "X": .character("=")
        case "p"..."y": .character(Character(Unicode.Scalar(final - UInt8(ascii: "p") + UInt8(ascii: "0"))))
        default: nil
        }
    }
}
