/// One of the eight ANSI colours every colour terminal has. `nil` in a `Style` means
/// the terminal's own default colour.
public enum Color: Int, Hashable, Sendable, CaseIterable {
    case black = 0, red, green, yellow, blue, magenta, cyan, white
}

/// How a cell looks. Colours are dropped on monochrome terminals and when `NO_COLOR`
/// is set, attributes never are: anything that must stay visible (a selection, a
/// cursor row) should use `reverse` or `bold`, with colour only as decoration.
public struct Style: Hashable, Sendable {
    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Attributes(rawValue: 1 << 0)
        public static let dim = Attributes(rawValue: 1 << 1)
        public static let reverse = Attributes(rawValue: 1 << 2)
        public static let underline = Attributes(rawValue: 1 << 3)
    }

    public var foreground: Color?
    public var background: Color?
    public var attributes: Attributes

    public init(foreground: Color? = nil, background: Color? = nil, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = Style()
    public static let bold = Style(attributes: .bold)
    public static let reverse = Style(attributes: .reverse)
    public static let underline = Style(attributes: .underline)
    public static let dim = Style(attributes: .dim)

    /// This style with extra attributes, e.g. `base.adding(.bold)`.
    public func adding(_ extra: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(extra)
        return copy
    }
}
