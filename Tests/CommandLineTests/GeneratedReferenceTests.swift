import TestTags
@testable import bookshelf
import BookshelfTestSupport
import CommandLineOptions
import Foundation
import Testing

/// docs/cli.md and the man page are committed; they must be what the command table gives now.
@Suite(.tags(.process)) struct GeneratedReferenceTests {
    @Test func docsCliIsTheCommandTable() throws {
        let committed = try String(contentsOf: RepositoryFile.url("docs/cli.md"), encoding: .utf8)
        #expect(
            committed == Bookshelf.markdownReference,
            "docs/cli.md differs from the command table: regenerate it with `\(Bookshelf.regenerateMarkdown)`")
    }

    @Test func theManPageIsTheCommandTable() throws {
        let committed = try String(contentsOf: RepositoryFile.url("docs/man/bookshelf.1"), encoding: .utf8)
        #expect(
            committed == Bookshelf.manualPage,
            "docs/man/bookshelf.1 differs from the command table: regenerate it with `\(Bookshelf.regenerateManPage)`")
    }

    /// Every command and option of the table, with its help, in `--help`, docs/cli.md and the
    /// page as `man` shows it; the command the scripts run is in none of them.
    @Test(.enabled(if: Tool.man.shouldRun)) func theManPageRendersEveryCommandAndOption() throws {
        let man = try Tool.man.require()
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let output = directory.path("man.txt"), errors = directory.path("man-errors.txt")
        let status = try ChildProcess.run(
            [man, "--warnings", "-l", RepositoryFile.url("docs/man/bookshelf.1").path],
            output: output, errors: errors,
            environment: [
                "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "MANWIDTH": "100",
                "MAN_KEEP_FORMATTING": "", "HOME": directory.url.path,
            ])
        let warnings = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(status == 0 && warnings.isEmpty, "man -l: status \(status), \(warnings)")
        let shown = try String(contentsOfFile: output, encoding: .utf8).onOneLine
        let markdown = Bookshelf.markdownReference

        let reference = Bookshelf.reference
        #expect(shown.contains("BOOKSHELF(1)") && shown.contains("bookshelf - \(reference.summary)"))
        for command in Bookshelf.commands where !command.hidden {
            let usage = "bookshelf \(command.name)\(command.positionals.synopsis)"
            #expect(shown.contains(usage) && shown.contains(command.summary.onOneLine), "man: \(command.name)")
            #expect(
                markdown.contains("## bookshelf \(command.name)\n") && markdown.contains(usage),
                "docs/cli.md: \(command.name)")
            #expect(Bookshelf.help.contains(command.summary), "--help: \(command.name)")
            for option in command.allOptions.map(\.spec) {
                #expect(
                    shown.contains(option.synopsis + " " + option.help.onOneLine),
                    "man: \(command.name) \(option.synopsis)")
                #expect(
                    markdown.contains("| `\(option.synopsis)` |"), "docs/cli.md: \(command.name) \(option.synopsis)")
                #expect(command.help.contains(option.synopsis), "--help: \(command.name) \(option.synopsis)")
            }
        }
        for option in reference.options {
            #expect(shown.contains(option.synopsis + " " + option.help.onOneLine), "man: \(option.synopsis)")
        }
        let hidden = CompletionsCommand.accountNames.name
        #expect(!shown.contains(hidden) && !markdown.contains(hidden) && !Bookshelf.help.contains(hidden))
    }

    @Test func helpPrintsTheReferenceItIsAskedFor() async throws {
        let console = Console()
        #expect(await Bookshelf.run(["help", "--markdown", "search"], environment: [:], console: console) == .usage)
        #expect(await Bookshelf.run(["help", "--man", "--markdown"], environment: [:], console: console) == .usage)
        #expect(
            await Bookshelf.run(["help", CompletionsCommand.accountNames.name], environment: [:], console: console)
                == .usage)
        #expect(await Bookshelf.run(["completions", "tcsh"], environment: [:], console: console) == .usage)
    }
}

extension String {
    /// Every run of whitespace one space, as `man` fills a paragraph.
    var onOneLine: String { split(whereSeparator: \.isWhitespace).joined(separator: " ") }
}

/// A file of this repository, found from this source file's place in it.
enum RepositoryFile {
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent(path)
    }
}

/// A program a test runs: with `CI` set a missing one fails the test, otherwise it is skipped.
struct Tool {
    let name: String
    let package: String

    static let man = Tool(name: "man", package: "man-db")
    static let bash = Tool(name: "bash", package: "bash")
    static let zsh = Tool(name: "zsh", package: "zsh")
    static let fish = Tool(name: "fish", package: "fish")

    var path: String? { ChildProcess.onPath(name) }
    var shouldRun: Bool { path != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    func require() throws -> String {
        guard let path else {
            throw ChildProcessFailure("\(name) is required with CI set (apt-get install \(package))")
        }
        return path
    }
}

struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
