/// `--help` as text for a terminal, from the program's reference.
public enum HelpText {
    /// Aligned `  --name VALUE   help` lines; a help of several lines keeps to its column.
    public static func optionList(_ options: [OptionSpec]) -> String {
        let width = options.map(\.synopsis.count).max() ?? 0
        let indent = "\n" + String(repeating: " ", count: width + 5)
        return options.map { option in
            let help = option.help.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: indent)
            return "  " + option.synopsis.padding(to: width) + "   " + help + "\n"
        }.joined()
    }

    public static func usage(of command: CommandReference, in program: ProgramReference) -> String {
        let hasOwnOptions = command.options.contains { $0.name != Flag.help.spec.name }
        return "\(program.name) \(command.name)\(command.positionals.synopsis)" + (hasOwnOptions ? " [options]" : "")
    }

    public static func command(_ command: CommandReference, in program: ProgramReference) -> String {
        var text = "Usage: \(usage(of: command, in: program))\n\n\(command.summary)\n\nOptions:\n"
        text += optionList(command.options)
        if !command.details.isEmpty { text += "\n\(command.details)\n" }
        return text
    }

    /// The usage lines put their meaning in a column; a line too long for it has its
    /// meaning on the next line, in the same column.
    static let meaningColumn = 44

    public static func program(_ program: ProgramReference) -> String {
        let usages = program.usages.map { usage in
            let line = "  " + usage.line
            return line.count + 3 <= meaningColumn
                ? line.padding(to: meaningColumn) + usage.meaning
                : line + "\n" + String(repeating: " ", count: meaningColumn) + usage.meaning
        }
        let width = program.commands.map(\.name.count).max() ?? 0
        let list = program.commands.map { "  \($0.name.padding(to: width))   \($0.summary)\n" }.joined()
        let sections = program.sections.map { section in
            section.title.map { "\($0): \(section.text)" } ?? section.text
        }
        return """
            \(program.name) \(program.version): \(program.summary).

            Usage:
            \(usages.joined(separator: "\n"))

            Commands:
            \(list)
            Options:
            \(optionList(program.options))
            \(sections.joined(separator: "\n\n"))
            """
    }
}

extension String {
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
