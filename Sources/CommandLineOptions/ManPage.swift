/// The program's manual page, in roff (the `man` macros), from the same reference as `--help`.
public enum ManPage {
    /// The page for section 1. It carries no date, so that it changes only when the commands do.
    public static func render(_ program: ProgramReference, regenerate: String) -> String {
        var page = [
            #".\" -*- coding: UTF-8 -*-"#,
            #".\" Generated from the command table; do not edit. Regenerate: \#(escaped(regenerate))"#,
            ".TH \(program.name.uppercased()) 1 \"\" \"\(program.name) \(program.version)\" \"User Commands\"",
            // No hyphenation (option names and paths break badly), no justification.
            ".nh",
            ".ad l",
            ".SH NAME",
            "\(escaped(program.name)) \\- \(escaped(program.summary))",
            ".SH SYNOPSIS",
            ".nf",
        ]
        page += program.usages.map { synopsisLine($0.line, program: program) }
        page += program.commands.map { synopsisLine(HelpText.usage(of: $0, in: program), program: program) }
        page += [".fi", ".SH DESCRIPTION", escaped(sentence(program.summary.capitalizedFirst))]
        for usage in program.usages {
            page += [
                ".TP", synopsisLine(usage.line, program: program), escaped(sentence(usage.meaning.capitalizedFirst)),
            ]
        }
        for section in program.sections where section.title == nil {
            page += [".PP"] + body(section.text)
        }
        page += [".SH OPTIONS"] + optionList(program.options)
        page += [".SH COMMANDS"]
        for command in program.commands {
            page += [
                ".SS \(escaped(command.name))",
                synopsisLine(HelpText.usage(of: command, in: program), program: program),
                ".PP", escaped(command.summary),
            ]
            page += optionList(command.options)
            if !command.details.isEmpty { page += [".PP"] + body(command.details) }
        }
        for section in program.sections {
            guard let title = section.title else { continue }
            page += [".SH \"\(escaped(title.uppercased()))\""] + body(section.text)
        }
        return page.joined(separator: "\n") + "\n"
    }

    /// `bookshelf search QUERY [options]` with the program and command names in bold.
    static func synopsisLine(_ line: String, program: ProgramReference) -> String {
        var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        var bold = 0
        if words.first == program.name { bold = 1 }
        if bold == 1, words.count > 1, program.commands.contains(where: { $0.name == words[1] }) { bold = 2 }
        for index in 0..<bold { words[index] = "\\fB\(escaped(words[index]))\\fR" }
        for index in bold..<words.count { words[index] = escaped(words[index]) }
        return words.joined(separator: " ")
    }

    static func optionList(_ options: [OptionSpec]) -> [String] {
        options.flatMap { option in
            let long =
                "\\fB\\-\\-\(escaped(option.name))\\fR" + (option.valueName.map { " \\fI\(escaped($0))\\fR" } ?? "")
            let tag = option.short.map { "\\fB\\-\(escaped(String($0)))\\fR, " + long } ?? long
            return [".TP", tag, escaped(option.help.onOneLine)]
        }
    }

    /// Paragraphs as `.PP`, indented lines kept as written (`.nf`), everything escaped.
    static func body(_ text: String) -> [String] {
        TextBlock.blocks(text).flatMap { block -> [String] in
            switch block {
            case let .prose(lines): lines.map(escaped)
            case let .preformatted(lines): [".RS 2", ".nf"] + lines.map(escaped) + [".fi", ".RE"]
            case .paragraphBreak: [".PP"]
            }
        }
    }

    /// Text that roff shows as written: a backslash is `\e`, every hyphen a minus sign (so that
    /// options copied from the page work), and a line never starts a request (`.` or `'`).
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case "`": result += "\\(ga"
            case "'": result += "\\(aq"
            default: result.append(character)
            }
        }
        if result.hasPrefix(".") { result = "\\&" + result }
        return result
    }

    static func sentence(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
