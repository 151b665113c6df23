/// One option a command accepts. A table of these is the whole grammar of a command: the
/// parser reads it and the help text is printed from it, so the two never disagree.
struct OptionSpec: Sendable {
    /// The long name without dashes: `limit` is written `--limit`.
    let name: String
    let short: Character?
    /// The placeholder for the option's value in help (`N`, `PATH`); nil for a flag.
    let valueName: String?
    let help: String

    init(_ name: String, short: Character? = nil, value valueName: String? = nil, help: String) {
        self.name = name
        self.short = short
        self.valueName = valueName
        self.help = help
    }

    var takesValue: Bool { valueName != nil }

    /// `--limit N`, `-h, --help`.
    var synopsis: String {
        let long = "--\(name)" + (valueName.map { " \($0)" } ?? "")
        return short.map { "-\($0), \(long)" } ?? long
    }

    static let help = OptionSpec("help", short: "h", help: "Show this help and exit.")
}

/// A command-line mistake: what was wrong, in one line. Exit status 2.
struct UsageError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The options and positional arguments of one command line, as written.
struct ParsedArguments: Equatable {
    var positionals: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    func value(_ name: String) -> String? { values[name] }
    func isSet(_ flag: String) -> Bool { flags.contains(flag) }

    /// The option's value as an integer in `range`, `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    /// Options already given (say, before the command name) that `self` did not set itself.
    func filling(from defaults: ParsedArguments) -> ParsedArguments {
        var merged = self
        merged.values.merge(defaults.values) { own, _ in own }
        merged.flags.formUnion(defaults.flags)
        return merged
    }
}

/// Reads arguments against a table of `OptionSpec`s. Accepts `--name value`, `--name=value`,
/// `-x value`, and `--` to end options (so a search can start with a dash). A lone `-` is a
/// positional (conventionally standard input). Later occurrences of an option win.
struct ArgumentParser {
    let options: [OptionSpec]

    /// With `stopAtPositional`, parsing ends at the first positional, which is returned with
    /// everything after it untouched (for a program whose first word names a command).
    func parse(_ arguments: [String], stopAtPositional: Bool = false) throws(UsageError) -> (ParsedArguments, rest: [String]) {
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
            if let attached {
                parsed.values[spec.name] = attached
            } else if index < arguments.count {
                parsed.values[spec.name] = arguments[index]
                index += 1
            } else {
                throw UsageError("\(spec.synopsis) needs a value")
            }
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

extension StringProtocol {
    /// The text with control characters replaced, for echoing user input in messages.
    var printable: String { TerminalText.sanitized(String(self)) }
}
