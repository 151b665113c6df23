import TerminalSafeText

/// What a shell may offer as the value of an option or a positional argument. The completion
/// scripts are written from it, so a new option completes without editing any script.
public enum ValueCompletion: Sendable, Equatable {
    /// Nothing to offer (a number, a free text).
    case none
    /// File paths.
    case file
    /// The account names of the catalog (asked of the program itself, never guessed).
    case accounts
    /// The program's command names.
    case commands
    /// One of a fixed list.
    case choices([String])
}

/// One option as the parser, the help, the man page and the completions see it: its name,
/// its value's placeholder and its one line of help. Programs never build these directly:
/// they declare a `Flag` or an `Option` and use that one declaration everywhere.
public struct OptionSpec: Sendable, Equatable {
    /// The long name without dashes: `limit` is written `--limit`.
    public let name: String
    public let short: Character?
    /// The placeholder for the option's value in help (`N`, `PATH`); nil for a flag.
    public let valueName: String?
    public let help: String
    public let completion: ValueCompletion
    /// The option may be given more than once, each value kept (`--add-tag a --add-tag b`);
    /// any other option's later occurrence wins.
    public let repeats: Bool

    init(
        name: String, short: Character?, valueName: String?, help: String, completion: ValueCompletion,
        repeats: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
        self.completion = completion
        self.repeats = repeats
    }

    public var takesValue: Bool { valueName != nil }

    /// `--limit N`, `-h, --help`.
    public var synopsis: String {
        let long = "--\(name)" + (valueName.map { " \($0)" } ?? "")
        return short.map { "-\($0), \(long)" } ?? long
    }
}

/// Anything a command's option table lists: a `Flag` or an `Option` of some value type.
public protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
    /// Whether `text` is a value the option takes: the usage error its reading would throw.
    func checkValue(_ text: String) throws(UsageError)
}

extension OptionDeclaration {
    public func checkValue(_ text: String) throws(UsageError) {}
}

/// An option without a value (`--json`). Read it with `ParsedArguments.isSet`.
public struct Flag: OptionDeclaration {
    public let spec: OptionSpec

    public init(_ name: String, short: Character? = nil, help: String) {
        spec = OptionSpec(name: name, short: short, valueName: nil, help: help, completion: .none)
    }

    public static let help = Flag("help", short: "h", help: "Show this help and exit.")
}

/// An option with a value of type `Value`, converted when the command reads it, so that
/// a bad value is reported in the option's own words (`--limit needs a whole number ...`).
public struct Option<Value: Sendable>: OptionDeclaration {
    public internal(set) var spec: OptionSpec
    let convert: @Sendable (String) throws(UsageError) -> Value

    public init(
        _ name: String, short: Character? = nil, value valueName: String, completes completion: ValueCompletion = .none,
        help: String, convert: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(name: name, short: short, valueName: valueName, help: help, completion: completion)
        self.convert = convert
    }

    public func checkValue(_ text: String) throws(UsageError) { _ = try convert(text) }
}

extension Option where Value == String {
    /// A text option, taken as written.
    public init(
        _ name: String, short: Character? = nil, value valueName: String, completes completion: ValueCompletion = .none,
        help: String
    ) {
        self.init(name, short: short, value: valueName, completes: completion, help: help) { text throws(UsageError) in
            text
        }
    }

    /// A text option that may be given more than once: read every value with
    /// `ParsedArguments.values(_:)`.
    public static func repeating(_ name: String, value valueName: String, help: String) -> Option<String> {
        var option = Option(name, value: valueName, help: help)
        option.spec = OptionSpec(
            name: name, short: nil, valueName: valueName, help: help, completion: .none, repeats: true)
        return option
    }
}

extension Option where Value == Int {
    /// A whole number in `range`; anything else is "--NAME needs a whole number from A to B".
    public static func integer(
        _ name: String, value valueName: String = "N", in range: ClosedRange<Int>,
        help: String
    ) -> Option<Int> {
        Option(name, value: valueName, help: help) { text throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    "--\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text.printable)\""
                )
            }
            return number
        }
    }
}

/// A command-line mistake: what was wrong, in one line. Exit status 2.
public struct UsageError: Error, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

extension StringProtocol {
    /// The text with unsafe characters replaced, for echoing user input in messages.
    public var printable: String {
        TerminalSafety.replacingUnsafe(in: String(self)) { _ in TerminalSafety.replacementCharacter }
    }
}
