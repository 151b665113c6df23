/// The options and positional arguments of one command line, as written. Options are read
/// through their declarations (`arguments.value(SearchCommand.limit)`), never by a name in
/// a string, so a misspelt option is a compile error rather than an option never found.
public struct ParsedArguments: Equatable, Sendable {
    public var positionals: [String] = []
    var values: [String: String] = [:]
    /// Every value of each repeating option, in the order written.
    var repeatedValues: [String: [String]] = [:]
    var flags: Set<String> = []

    public init() {}

    public func isSet(_ flag: Flag) -> Bool { flags.contains(flag.spec.name) }

    /// Whether the option was written at all, whatever its value.
    public func isGiven(_ option: some OptionDeclaration) -> Bool {
        values[option.spec.name] != nil || flags.contains(option.spec.name)
    }

    /// A text option's value as written, nil when absent.
    public func value(_ option: Option<String>) -> String? { values[option.spec.name] }

    /// Every value of a repeating text option, in the order written; empty when absent.
    public func values(_ option: Option<String>) -> [String] { repeatedValues[option.spec.name] ?? [] }

    /// The option's value converted, nil when absent; a bad value is a usage error.
    public func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard let text = values[option.spec.name] else { return nil }
        return try option.convert(text)
    }

    /// The option's value converted, `fallback` when absent.
    public func value<Value>(_ option: Option<Value>, default fallback: Value) throws(UsageError) -> Value {
        try value(option) ?? fallback
    }

    /// Converts the value of each of `options` that was written, so that a bad value is a usage
    /// error before a program starts any work (rather than when it first reads the option).
    public func checkValues(of options: [any OptionDeclaration]) throws(UsageError) {
        for option in options {
            guard let text = values[option.spec.name] else { continue }
            try option.checkValue(text)
        }
    }

    /// The names of the options written (for refusing those a command does not take).
    public var givenNames: Set<String> { Set(values.keys).union(flags) }

    /// Options already given (say, before the command name) that `self` did not set itself.
    public func filling(from defaults: ParsedArguments) -> ParsedArguments {
        var merged = self
        merged.values.merge(defaults.values) { own, _ in own }
        merged.repeatedValues.merge(defaults.repeatedValues) { own, _ in own }
        merged.flags.formUnion(defaults.flags)
        return merged
    }
}

/// Reads arguments against a table of option declarations. Accepts `--name value`,
/// `--name=value`, `-x value`, and `--` to end options (so a search can start with a dash).
/// A lone `-` is a positional (conventionally standard input). Later occurrences of an
/// option win.
public struct ArgumentParser {
    public let options: [OptionSpec]

    public init(options: [any OptionDeclaration]) {
        self.options = options.map(\.spec)
    }

    /// With `stopAtPositional`, parsing ends at the first positional, which is returned with
    /// everything after it untouched (for a program whose first word names a command).
    public func parse(_ arguments: [String], stopAtPositional: Bool = false) throws(UsageError) -> (
        ParsedArguments, rest: [String]
    ) {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                parsed.positionals += arguments[index...]
                return (parsed, [])
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                if stopAtPositional { return (parsed, Array(arguments[(index - 1)...])) }
                parsed.positionals.append(argument)
                continue
            }
            let (spec, attached) = try lookUp(argument)
            guard spec.takesValue else {
                guard attached == nil else { throw UsageError("--\(spec.name) takes no value") }
                parsed.flags.insert(spec.name)
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("\(spec.synopsis) needs a value")
            }
            parsed.values[spec.name] = value
            if spec.repeats { parsed.repeatedValues[spec.name, default: []].append(value) }
        }
        return (parsed, [])
    }

    private static let dashHint = " (put -- before arguments that start with a dash)"

    private func lookUp(_ argument: String) throws(UsageError) -> (OptionSpec, attached: String?) {
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            let name = body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let attached = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option --\(name.printable)\(Self.dashHint)")
            }
            return (spec, attached)
        }
        let letters = argument.dropFirst()
        guard letters.count == 1, let spec = options.first(where: { $0.short == letters.first }) else {
            throw UsageError("unknown option \(argument.printable)\(Self.dashHint)")
        }
        return (spec, nil)
    }
}

/// Which positional arguments a command takes.
public enum Positionals: Sendable, Equatable {
    case none
    /// Exactly one, named in help (`FILE`).
    case one(String, completes: ValueCompletion = .none)
    /// None or one (`help [COMMAND]`).
    case optional(String, completes: ValueCompletion = .none)
    /// One or more, joined by spaces (`QUERY`): `search history rome` needs no quotes.
    case words(String)

    public func check(_ given: [String]) throws(UsageError) {
        switch self {
        case .none where !given.isEmpty:
            throw UsageError("unexpected argument \"\(given[0].printable)\"")
        case let .one(name, _) where given.count != 1:
            throw UsageError(given.isEmpty ? "\(name) is missing" : "expected one \(name), got \(given.count)")
        case let .optional(name, _) where given.count > 1:
            throw UsageError("expected at most one \(name), got \(given.count)")
        case let .words(name) where given.isEmpty:
            throw UsageError("\(name) is missing")
        default:
            break
        }
    }

    public var synopsis: String {
        switch self {
        case .none: ""
        case let .one(name, _): " \(name)"
        case let .optional(name, _): " [\(name)]"
        case let .words(name): " \(name)"
        }
    }

    /// What a shell may offer for the positional argument.
    public var completion: ValueCompletion {
        switch self {
        case .none, .words: .none
        case let .one(_, completion), let .optional(_, completion): completion
        }
    }
}
