import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Each completion script, as `bookshelf completions SHELL` prints it, run in its own shell
/// against the real binary: what a Tab offers after a line.
@Suite(.tags(.tmux)) struct CompletionScriptTests {
    /// The starter accounts of a catalog made by `bookshelf setup`, and one added to it.
    static let accounts = ["alice", "bob", "carol", "dave"]

    @Test(.enabled(if: Tool.bash.shouldRun)) func bash() throws {
        try Scenario(.bash).check { (scenario: Scenario) throws in
            let registered = try scenario.run(
                "source \(shellQuoted(scenario.directory.path("script"))); complete -p bookshelf")
            #expect(registered == ["complete -F _bookshelf bookshelf"])
        }
    }

    /// The issue's "done when", as a user does it: an interactive bash in a terminal, the
    /// script loaded as the README says, the line typed and a real Tab.
    @Test(.enabled(if: Tool.bash.shouldRun && TmuxPane.shouldRun)) func tabInAnInteractiveBash() throws {
        let scenario = try Scenario(.bash)
        defer { scenario.directory.remove() }
        let bash = try Tool.bash.require()
        let path = scenario.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        let pane = try TmuxPane(
            "env -i TERM=xterm HOME=\(shellQuoted(scenario.directory.path("home"))) PATH=\(shellQuoted(path)) "
                + "PS1='ready> ' \(bash) --norc --noprofile -i")
        defer { pane.kill() }
        try pane.waitFor(text: "ready>")
        try pane.type("source <(bookshelf completions bash); clear")
        try pane.send("Enter")
        // Cleared: the prompt alone. (The line typed before also begins with the prompt, and
        // typing on before `clear` ran put the next line before the prompt on a loaded machine.)
        try pane.waitFor("a clear prompt") { $0.hasPrefix("ready>") && !$0.contains("source") }
        try pane.type("bookshelf search --li")
        try pane.send("Tab")
        // The pane drops the space bash adds after a whole word: the line is complete when it ends there.
        try pane.waitFor("--limit") { $0.split(separator: "\n").contains("ready> bookshelf search --limit") }
    }

    @Test(.enabled(if: Tool.zsh.shouldRun)) func zsh() throws {
        try Scenario(.zsh).check { _ in }
    }

    @Test(.enabled(if: Tool.fish.shouldRun)) func fish() throws {
        try Scenario(.fish).check { _ in }
    }

    /// A catalog with the accounts above, a file beside it, and the script of one shell.
    struct Scenario {
        let shell: Shell
        let directory: ScratchDirectory
        let binary: URL

        init(_ shell: Shell) throws {
            self.shell = shell
            directory = try ScratchDirectory()
            binary = try #require(
                BuildProducts.executable(named: "bookshelf"), "the bookshelf executable is built beside the tests")
        }

        func check(_ more: (Scenario) throws -> Void) throws {
            defer { directory.remove() }
            _ = try shell.tool.require()
            #expect(try run([binary.path, "completions", shell.rawValue], output: "script") == 0)
            let catalog = directory.path("catalog.sqlite")
            #expect(try run([binary.path, "setup", "--db", catalog, "--account", "dave"]) == 0)

            #expect(try offers("bookshelf search --li") == ["--limit"], "the issue's own example")
            #expect(try offers("bookshelf se") == ["search", "setup"])
            #expect(try offers("bookshelf help s") == ["sample", "search", "setup"])
            #expect(try offers("bookshelf completions ") == ["bash", "fish", "zsh"])
            #expect(try offers("bookshelf setup --role ") == ["editor", "reader"])
            #expect(
                try offers("bookshelf search --db \(directory.url.path)/cat").map(lastComponent) == ["catalog.sqlite"])
            #expect(
                try offers("bookshelf --db \(catalog) search --account ") == CompletionScriptTests.accounts,
                "account names from the catalog named before the command")
            #expect(try offers("bookshelf export --db=\(catalog) --account c") == ["carol"])
            #expect(
                try offers("bookshelf search --db \(directory.path("missing.sqlite")) --account ") == [],
                "no catalog there: nothing to offer, and none is created")
            #expect(!FileManager.default.fileExists(atPath: directory.path("missing.sqlite")))
            #expect(try offers("bookshelf search --limit ") == [], "a number: nothing to offer")
            try more(self)
        }

        func lastComponent(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

        /// What the shell offers at the end of `line` (words separated by single spaces).
        func offers(_ line: String) throws -> [String] {
            let script = directory.path("script")
            switch shell {
            case .bash:
                var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
                // bash puts "=" in a word of its own (COMP_WORDBREAKS).
                words = words.flatMap { word -> [String] in
                    guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return [word] }
                    return [String(word[..<equals]), "=", String(word[word.index(after: equals)...])]
                }
                return try run(
                    """
                    source \(shellQuoted(script))
                    COMP_WORDS=(\(words.map(shellQuoted).joined(separator: " ")))
                    COMP_CWORD=\(words.count - 1) COMP_LINE=\(shellQuoted(line)) COMP_POINT=\(line.utf8.count)
                    _bookshelf
                    (( ${#COMPREPLY[@]} )) && printf '<%s>\\n' "${COMPREPLY[@]}"
                    exit 0
                    """
                ).map { String($0.dropFirst().dropLast()) }.sorted()
            case .zsh:
                // An interactive zsh on a pseudo-terminal, sent the line and a Tab; compadd is
                // wrapped to write down what it was given, and the shell exits after completing.
                let capture = directory.path("zsh-offers")
                try? FileManager.default.removeItem(atPath: capture)
                let setup = """
                    PROMPT= ; autoload -Uz compinit; compinit -u -D; source \(shellQuoted(script)); \
                    compadd() { if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi; \
                    local -a hits; builtin compadd -A hits "$@"; (( $#hits )) && print -rl -- $hits >> \(shellQuoted(capture)); \
                    builtin compadd "$@"; }; comppostfuncs=(exit); bindkey '^I' complete-word
                    """
                _ = try run(
                    """
                    zmodload zsh/zpty || exit 3
                    zpty shell zsh -f -i
                    zpty -w shell \(shellQuoted(setup))
                    zpty -w -n shell \(shellQuoted(line))$'\\t'
                    while zpty -r shell chunk; do :; done
                    """)
                let written = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
                return Set(written.split(separator: "\n").map(String.init)).sorted()
            case .fish:
                return try run("source \(shellQuoted(script)); complete -C \(shellQuoted(line))")
                    .map { String($0.prefix { $0 != "\t" }) }.sorted()
            }
        }

        /// Runs `script` in the shell with the binary first on PATH; its output lines.
        func run(_ script: String) throws -> [String] {
            let file = directory.path("test-script")
            try script.write(toFile: file, atomically: true, encoding: .utf8)
            let shellPath = try shell.tool.require()
            let arguments =
                switch shell {
                case .bash: [shellPath, "--norc", "--noprofile", file]
                case .zsh: [shellPath, "-f", file]
                case .fish: [shellPath, "--no-config", file]
                }
            let status = try run(arguments, output: "shell-output")
            let output = try String(contentsOfFile: directory.path("shell-output"), encoding: .utf8)
            #expect(status == 0, "\(shell.rawValue) exited with \(status): \(output)")
            return output.split(separator: "\n").map(String.init)
        }

        @discardableResult
        func run(_ command: [String], output: String = "output") throws -> Int32 {
            var environment = ProcessInfo.processInfo.environment
            for name in ["BOOKSHELF_DB", "XDG_DATA_HOME", "ENV", "BASH_ENV"] { environment[name] = nil }
            environment["HOME"] = directory.path("home")
            environment["PATH"] =
                binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["TERM"] = "dumb"
            return try ChildProcess.run(
                command, output: directory.path(output), errors: directory.path(output + "-errors"),
                environment: environment)
        }
    }

    enum Shell: String {
        case bash, zsh, fish
        var tool: Tool {
            switch self {
            case .bash: .bash;
            case .zsh: .zsh;
            case .fish: .fish
            }
        }
    }
}

/// The build's products directory holds the test bundle and the package's executables.
enum BuildProducts {
    static func executable(named name: String) -> URL? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
