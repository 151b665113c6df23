import CNcurses

/// A key press (or mouse action) after decoding.
public enum Key: Hashable, Sendable {
    /// A printable character: letters, digits, punctuation, space, CJK, emoji.
    case character(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case insert, delete, backspace
    case enter, tab, backTab, escape
    /// Ctrl plus a letter, lowercase "a"..."z". Ctrl-H, Ctrl-I, Ctrl-J and Ctrl-M are the
    /// same bytes as Backspace, Tab and Enter and decode as those; Ctrl-Z never arrives
    /// (the terminal suspends the program instead).
    case ctrl(Character)
    /// F1...F12.
    case function(Int)
    case mouse(MouseEvent)
}

public struct MouseEvent: Hashable, Sendable {
    public enum Action: Hashable, Sendable { case click, wheelUp, wheelDown }
    public var action: Action
    public var row: Int
    public var column: Int
    public init(_ action: Action, row: Int, column: Int) {
        self.action = action
        self.row = row
        self.column = column
    }
}

/// What ncurses hands over for one key, before interpretation.
public enum RawInput: Hashable, Sendable {
    /// `get_wch` returned OK: a character code (which may be a control code).
    case character(UInt32)
    /// `get_wch` returned KEY_CODE_YES: an ncurses KEY_* code.
    case keyCode(Int32)
    /// A KEY_MOUSE report from `getmouse`: button state bits and position.
    case mouse(buttonState: UInt32, row: Int, column: Int)
}

/// The pure mapping from ncurses' raw input to `Key`, testable without a terminal.
public enum KeyDecoder {
    /// The key for `input`, or nil for input the app never sees (mouse releases and
    /// motion, unmapped control codes, KEY_RESIZE/KEY_MOUSE themselves, which the
    /// terminal handles).
    public static func decode(_ input: RawInput) -> Key? {
        switch input {
        case .character(let code): return decodeCharacter(code)
        case .keyCode(let code): return decodeKeyCode(code)
        case .mouse(let state, let row, let column): return decodeMouse(state: state, row: row, column: column)
        }
    }

    static func decodeCharacter(_ code: UInt32) -> Key? {
        switch code {
        case 13, 10: return .enter  // CR with nonl(); LF from Ctrl-J or a pasted newline
        case 9: return .tab
        case 8, 127: return .backspace  // ^H and DEL: terminals differ in what Backspace sends
        case 27: return .escape
        case 1...26: return .ctrl(Character(Unicode.Scalar(UInt8(code) + 0x60)))
        case 0...31, 0x80...0x9F: return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            return .character(Character(scalar))
        }
    }

    static func decodeKeyCode(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        // Some terminfo entries (vt220-style, as under screen/tmux) name the keys on the
        // editing pad Find/Select instead of Home/End.
        case KEY_HOME, KEY_FIND, KEY_A1: return .home
        case KEY_END, KEY_SELECT, KEY_C1: return .end
        case KEY_PPAGE, KEY_A3: return .pageUp
        case KEY_NPAGE, KEY_C3: return .pageDown
        case KEY_IC: return .insert
        case KEY_DC: return .delete
        case KEY_BACKSPACE: return .backspace
        case KEY_ENTER: return .enter
        case KEY_BTAB: return .backTab
        case shim_key_f(1)...shim_key_f(12): return .function(Int(code - shim_key_f(0)))
        default: return nil
        }
    }

    static func decodeMouse(state: UInt32, row: Int, column: Int) -> Key? {
        let mask = mmask_t(state)
        if mask & shim_button4_pressed() != 0 { return .mouse(MouseEvent(.wheelUp, row: row, column: column)) }
        if mask & shim_button5_pressed() != 0 { return .mouse(MouseEvent(.wheelDown, row: row, column: column)) }
        if mask & (shim_button1_pressed() | shim_button1_clicked()) != 0 {
            return .mouse(MouseEvent(.click, row: row, column: column))
        }
        return nil
    }
}
