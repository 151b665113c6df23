/// What one command of a program is, for every place that describes it: `--help`, the man
/// page, the markdown reference and the shell completions all read these, never a copy.
public struct CommandReference: Sendable {
    public let name: String
    /// One line for the program's command list.
    public let summary: String
    public let positionals: Positionals
    /// Every option, --help included.
    public let options: [OptionSpec]
    /// Paragraphs after the option list: formats, defaults, exit status.
    public let details: String

    public init(
        name: String, summary: String, positionals: Positionals, options: [any OptionDeclaration], details: String
    ) {
        self.name = name
        self.summary = summary
        self.positionals = positionals
        self.options = options.map(\.spec)
        self.details = details
    }
}

/// A whole program: its commands, the options taken before a command name, and the prose
/// its help ends with.
public struct ProgramReference: Sendable {
    /// One way to run the program, with what it does (`bookshelf COMMAND [options]`).
    public struct Usage: Sendable {
        public let line: String
        public let meaning: String
        public init(_ line: String, _ meaning: String) {
            self.line = line
            self.meaning = meaning
        }
    }

    /// A block of prose. In `--help` a titled one reads "Title: text"; in the man page the
    /// title is a section heading.
    public struct Section: Sendable {
        public let title: String?
        public let text: String
        public init(title: String? = nil, _ text: String) {
            self.title = title
            self.text = text
        }
    }

    public let name: String
    public let version: String
    /// "search and edit a book catalog from the terminal"
    public let summary: String
    public let usages: [Usage]
    public let commands: [CommandReference]
    /// Options before a command name, --help included.
    public let options: [OptionSpec]
    public let sections: [Section]

    public init(
        name: String, version: String, summary: String, usages: [Usage], commands: [CommandReference],
        options: [any OptionDeclaration], sections: [Section]
    ) {
        self.name = name
        self.version = version
        self.summary = summary
        self.usages = usages
        self.commands = commands
        self.options = options.map(\.spec)
        self.sections = sections
    }

    /// Every option of the program, before or after a command name, once each.
    public var allOptionNames: [String] {
        var seen = Set<String>()
        return (options + commands.flatMap(\.options)).map(\.name).filter { seen.insert($0).inserted }
    }
}
