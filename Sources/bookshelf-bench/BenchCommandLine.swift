import CommandLineOptions
import Foundation

/// One benchmark mode of `bookshelf-bench`: its options, declared once (the parser and the
/// help read them), and what it runs. To add a mode, write a type conforming to `BenchMode`
/// in its own file and list it in `BenchCommandLine.modes`.
protocol BenchMode {
    static var name: String { get }
    static var summary: String { get }
    /// Every option a user may give, --help left out (every mode has it).
    static var options: [any OptionDeclaration] { get }
    /// Options the bench gives its own child processes (`saves --writer`): parsed, never listed.
    static var internalOptions: [any OptionDeclaration] { get }
    /// Paragraphs after the option list in `--help`.
    static var details: String { get }
    /// Runs with the options after the mode name, parsed and their values checked.
    static func run(_ arguments: ParsedArguments) async throws
}

extension BenchMode {
    static var internalOptions: [any OptionDeclaration] { [] }
    static var details: String { "" }
}

/// The command line of `bookshelf-bench MODE [options]`, on the parser the other two programs use.
enum BenchCommandLine {
    static let program = "bookshelf-bench"

    static var modes: [any BenchMode.Type] {
        [
            SearchBench.self, KeysBench.self, CliBench.self, PostgresBench.self, CompareBench.self,
            SQLiteSavesBench.self,
            SessionBench.self, ReplicasBench.self, ImportBench.self, CalibreBench.self, BulkBench.self,
        ]
    }

    /// What a command line asks for.
    enum Request {
        /// Print this on standard output and exit 0.
        case help(String)
        case run(any BenchMode.Type, ParsedArguments)
        /// Print this on standard error and exit 2.
        case usageError(String)
    }

    static func parse(_ arguments: [String]) -> Request {
        guard let name = arguments.first else { return .usageError(usage) }
        if ["-h", "--help", "help"].contains(name) { return .help(usage) }
        guard let mode = modes.first(where: { $0.name == name }) else {
            return .usageError("\(program): unknown mode \"\(name.printable)\"\n\n\(usage)")
        }
        let declarations = mode.options + mode.internalOptions + [Flag.help]
        do {
            let (parsed, _) = try ArgumentParser(options: declarations).parse(Array(arguments.dropFirst()))
            if parsed.isSet(.help) { return .help(help(of: mode)) }
            try Positionals.none.check(parsed.positionals)
            try parsed.checkValues(of: declarations)
            return .run(mode, parsed)
        } catch {
            return .usageError(message(error, of: mode))
        }
    }

    /// A usage error in a mode's options, as `bookshelf` words its own.
    static func message(_ error: UsageError, of mode: any BenchMode.Type) -> String {
        let message = error.message.hasSuffix(".") ? error.message : error.message + "."
        return "\(program) \(mode.name): \(message) See '\(program) \(mode.name) --help'."
    }

    static var usage: String {
        let width = modes.map { $0.name.count }.max() ?? 0
        return """
            usage: \(program) MODE [options]     (build with -c release for meaningful figures)

            modes:
            \(modes.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))   \($0.summary)" }.joined(separator: "\n"))

            `\(program) MODE --help` lists the options of a mode.
            """
    }

    static func reference(of mode: any BenchMode.Type) -> CommandReference {
        CommandReference(
            name: mode.name, summary: mode.summary.capitalizedFirst + ".", positionals: .none,
            options: mode.options + [Flag.help], details: mode.details)
    }

    /// A mode's `--help`, as `bookshelf COMMAND --help` is written.
    static func help(of mode: any BenchMode.Type) -> String {
        // The usage line reads only the program's name.
        let program = ProgramReference(
            name: program, version: "", summary: "", usages: [], commands: [reference(of: mode)],
            options: [Flag.help], sections: [])
        return String(HelpText.command(reference(of: mode), in: program).dropLast())
    }
}

/// A whole number of the bench (`1_000_000` may be written with underscores), not negative,
/// with its default said once: the help ends "(default N)" and reading it gives N when absent.
struct BenchNumber: OptionDeclaration {
    let option: Option<Int>
    let fallback: Int

    init(_ name: String, value: String = "N", default fallback: Int, help: String) {
        self.fallback = fallback
        option = Option(name, value: value, help: "\(help) (default \(fallback))") { text throws(UsageError) in
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= 0 else {
                throw UsageError("--\(name) needs a non-negative whole number, not \(text.printable)")
            }
            return number
        }
    }

    var spec: OptionSpec { option.spec }
    func checkValue(_ text: String) throws(UsageError) { try option.checkValue(text) }
}

extension Option where Value == [Int] {
    /// Whole numbers separated by commas ("1000000,10000000"), in the order given.
    static func wholeNumbers(_ name: String, value: String, help: String) -> Option<[Int]> {
        Option(name, value: value, help: help) { text throws(UsageError) in
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: ""))
            }
            guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw UsageError(
                    "--\(name) needs non-negative whole numbers separated by commas, not \(text.printable)")
            }
            return numbers.map { $0! }
        }
    }
}

extension ParsedArguments {
    func value(_ number: BenchNumber) throws(UsageError) -> Int { try value(number.option, default: number.fallback) }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
