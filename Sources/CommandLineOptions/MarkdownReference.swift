/// The program's command-line reference in Markdown (docs/cli.md), from the same reference
/// as `--help`.
public enum MarkdownReference {
    public static func render(_ program: ProgramReference, regenerate: String) -> String {
        var text = [
            "# The \(program.name) command line",
            "",
            "<!-- Generated from the command table; do not edit. Regenerate: \(regenerate) -->",
            "",
            "\(program.name) \(program.version): \(escaped(program.summary)). "
                + "The same text is in `\(program.name) --help`, `\(program.name) COMMAND --help` and `man \(program.name)`.",
            "",
            "## Usage",
            "",
        ]
        text += program.usages.map { "- `\($0.line)`: \(escaped($0.meaning))" }
        text += ["", "## Commands", "", "| Command | What it does |", "|---|---|"]
        text += program.commands.map {
            "| [`\($0.name)`](#\(anchor(program.name + " " + $0.name))) | \(cell($0.summary)) |"
        }
        text += ["", "## Options", "", "Before a command name they apply to the command as if written after it.", ""]
        text += optionTable(program.options)
        for section in program.sections {
            text += [""] + (section.title.map { ["## \(escaped($0))", ""] } ?? []) + body(section.text)
        }
        for command in program.commands {
            text += [
                "", "## \(program.name) \(command.name)", "", "```", HelpText.usage(of: command, in: program), "```",
                "",
                escaped(command.summary), "",
            ]
            text += optionTable(command.options)
            if !command.details.isEmpty { text += [""] + body(command.details) }
        }
        return text.joined(separator: "\n") + "\n"
    }

    static func optionTable(_ options: [OptionSpec]) -> [String] {
        ["| Option | Meaning |", "|---|---|"] + options.map { "| `\($0.synopsis)` | \(cell($0.help.onOneLine)) |" }
    }

    static func body(_ text: String) -> [String] {
        TextBlock.blocks(text).flatMap { block -> [String] in
            switch block {
            case let .prose(lines): lines.enumerated().map { escaped($1, startsLine: true) }
            case let .preformatted(lines): ["```"] + lines + ["```"]
            case .paragraphBreak: [""]
            }
        }
    }

    /// GitHub's heading anchors: lower case, spaces to hyphens, other punctuation dropped.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap {
                $0 == " " ? "-" : ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : nil)
            })
    }

    static func cell(_ text: String) -> String {
        escaped(text).replacingOccurrences(of: "|", with: "\\|")
    }

    /// Text that Markdown shows as written: emphasis, link, HTML and strike-through characters
    /// escaped, and a line never read as a heading, a list item or a quote. Backticks are kept:
    /// the help writes code in them.
    static func escaped(_ text: String, startsLine: Bool = false) -> String {
        var result = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            switch character {
            case "\\", "*", "[", "]", "<", ">", "~":
                result += "\\" + String(character)
            case "_":
                // Inside a word (bookshelf_reader) an underscore is never emphasis.
                let before = index > 0 ? characters[index - 1] : " "
                let after = index + 1 < characters.count ? characters[index + 1] : " "
                let inWord = (before.isLetter || before.isNumber) && (after.isLetter || after.isNumber)
                result += inWord ? "_" : "\\_"
            default:
                result.append(character)
            }
        }
        guard startsLine else { return result }
        if let first = result.first, "#+-=".contains(first) {
            return "\\" + result
        }
        let digits = result.prefix { $0.isNumber }
        if !digits.isEmpty, let next = result.dropFirst(digits.count).first, next == "." || next == ")" {
            return digits + "\\" + result.dropFirst(digits.count)
        }
        return result
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
