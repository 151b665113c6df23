/// A key press, mouse action or paste after decoding.
public enum Key: Hashable, Sendable {
    /// A printable character: letters, digits, punctuation, space, CJK, emoji.
    case character(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case insert, delete, backspace
    case enter, tab, backTab, escape
    /// Ctrl plus a letter, lowercase "a"..."z". Ctrl-H, Ctrl-I, Ctrl-J and Ctrl-M are the
    /// same bytes as Backspace, Tab and Enter and decode as those. Ctrl-Z suspends the
    /// program (the terminal handles it; the app never sees it).
    case ctrl(Character)
    /// F1...F12.
    case function(Int)
    case mouse(MouseEvent)
    /// A key held with modifiers the plain cases cannot express: Alt+letter (`ESC b`),
    /// Ctrl-Right (`ESC [1;5C`), Shift-Up (`ESC [1;2A`). The base key is never itself
    /// `.modified`, `.mouse` or `.paste`.
    indirect case modified(Key, KeyModifiers)
    /// Text the terminal delivered as a bracketed paste, exactly as it arrived (line
    /// breaks and control characters included). It is text, never keys: the app decides
    /// how it enters a field.
    case paste(String)
}

/// Modifier keys reported with a key.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1)
    /// Alt, Option or Meta: terminals send it as Esc before the key.
    public static let alt = KeyModifiers(rawValue: 2)
    public static let ctrl = KeyModifiers(rawValue: 4)
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

extension Key {
    /// This key with `extra` modifiers added (Alt sent as an Esc prefix to a sequence
    /// that already carries modifiers). Empty `extra` leaves the key as it is.
    public func adding(_ extra: KeyModifiers) -> Key {
        guard !extra.isEmpty else { return self }
        switch self {
        case let .modified(base, modifiers): return .modified(base, modifiers.union(extra))
        case .mouse, .paste: return self
        default: return .modified(self, extra)
        }
    }
}
