import TerminalUI

/// The app's styles. Anything that must stay visible without colour (selection, highlight,
/// errors, the focused field) carries an attribute too; colour is decoration only.
public enum Theme {
    public static let header = Style(foreground: .white, background: .blue, attributes: .bold)
    public static let prompt = Style(foreground: .cyan, attributes: .bold)
    public static let count = Style.dim
    public static let author = Style.dim
    public static let match = Style(foreground: .yellow, attributes: [.bold, .underline])
    public static let selected = Style(attributes: .reverse)
    public static let selectedMatch = Style(foreground: .yellow, attributes: [.reverse, .bold, .underline])
    public static let border = Style.dim
    public static let label = Style.bold
    public static let field = Style(attributes: .underline)
    public static let focusedField = Style(attributes: [.underline, .bold])
    public static let error = Style(foreground: .red, attributes: .bold)
    public static let success = Style(foreground: .green)
    public static let warning = Style(foreground: .yellow, attributes: .bold)
    public static let hint = Style.dim
    public static let status = Style(attributes: .reverse)
    public static let statusError = Style(foreground: .red, attributes: [.reverse, .bold])
    public static let overlay = Style.plain
    public static let overlayTitle = Style.bold
    public static let conflict = Style(foreground: .yellow, attributes: .bold)
    /// Where theirs and yours differ, in the conflict banner.
    public static let difference = Style(foreground: .magenta, attributes: [.bold, .underline])
    /// "(empty)" where a version has nothing in a field: a marker, never mistaken for text.
    public static let emptyValue = Style(foreground: .cyan, attributes: .dim)
}
