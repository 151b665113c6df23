import BookshelfModel
import TerminalUI

/// What the screen needs besides the model's state: which overlay is open, how far the list
/// is scrolled (the lines being edited, with their cursors, are the model's). Small, plain and
/// owned by `BookshelfApp`; the screen is a pure function of `BookshelfState` plus this.
public struct UIState: Equatable, Sendable {
    public enum Overlay: Equatable, Sendable {
        /// The key list; `scroll` is the first line shown.
        case help(scroll: Int)
        /// The account switcher, with the catalogs opened recently below the accounts;
        /// `highlighted` names the choice the highlight is on (nil: the current account). A
        /// choice, not a row: the list may arrive, or change, while it is open.
        case accounts(highlighted: SwitcherChoice?)
        /// The request panel (`RequestPanel`); `scroll` is the first line shown.
        case requests(scroll: Int)
        /// The saves the catalog lost.
        case lostSaves
    }

    public var overlay: Overlay?
    /// What the user is typing into the password prompt. Never drawn, never logged.
    public var password = SecretText()
    /// Advances on every timer tick while something is busy.
    public var spinnerPhase = 0
    /// A one-line hint about the last key (e.g. why nothing was saved), cleared by the next key.
    public var notice: Notice?

    public init() {}

    /// Whether the request panel is open (the app then hands the screen the request log).
    var showsRequests: Bool {
        if case .requests? = overlay { true } else { false }
    }
}

/// A row of the switcher: an account of this catalog, or another catalog opened recently.
public enum SwitcherChoice: Equatable, Sendable {
    case account(String)
    case catalog(RecentCatalog)

    /// The switcher's rows, in order: the accounts, then the other catalogs.
    static func all(in state: BookshelfState) -> [SwitcherChoice] {
        state.accounts.map { .account($0.name) } + state.otherCatalogs.map { .catalog($0) }
    }
}

extension BookshelfState {
    /// The switcher's highlighted row among `SwitcherChoice.all`: the choice named, else the
    /// current account, else the first.
    func switcherRow(highlighting choice: SwitcherChoice?) -> Int {
        let choices = SwitcherChoice.all(in: self)
        return choice.flatMap { choices.firstIndex(of: $0) } ?? accounts.firstIndex(where: \.isCurrent) ?? 0
    }
}

/// A one-line hint for the status line. A hint that names a path may be too long for a
/// narrow screen; it then brings shorter forms, so what matters is never cut off.
public struct Notice: Equatable, Sendable, ExpressibleByStringLiteral {
    /// Longest first: the status line shows the first form that fits.
    public let forms: [String]

    public init(_ text: String, shorter: [String] = []) { forms = [text] + shorter }
    public init(stringLiteral text: String) { self.init(text) }

    public var text: String { forms[0] }

    /// The first form at most `width` columns wide, else the shortest (which is then cut).
    public func fitting(_ width: Int) -> String {
        forms.first { TextLayout.width($0) <= width } ?? forms[forms.count - 1]
    }
}

/// Text that must never reach the screen, a log or a description: a password.
public struct SecretText: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private var storage = ""

    public init() {}

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public mutating func append(_ text: String) { storage += text }
    public mutating func removeLast() { if !storage.isEmpty { storage.removeLast() } }
    public mutating func clear() { storage = "" }
    /// The secret, for handing to the connector only.
    public func reveal() -> String { storage }

    public var description: String { "<secret>" }
    public var debugDescription: String { "<secret>" }
}
