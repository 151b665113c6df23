import TestTags
@testable import bookshelf_bench
import BookshelfTestSupport
import CommandLineOptions
import Foundation
import Testing

/// `bookshelf-bench` on the shared parser: every mode keeps the option names it had, a mistake
/// is a usage error (exit 2) in the words `bookshelf` uses, and --help comes from the declarations.
@Suite(.tags(.process)) struct BenchCommandLineTests {
    /// The options each mode took before it moved onto CommandLineOptions (its own string-keyed
    /// parser's lists), --help aside, and those added since (`typing-writer-rate`; the replicas
    /// mode's `standby-wait`, `typing-seconds`, `restart-seconds`; the calibre mode's key to paint,
    /// `key-rounds`, `columns`, `rows`, `each`, `changes-before-clearing`, `keys-only`; the bulk mode's `postgres`): none may be lost or renamed.
    static let namesBefore: [String: Set<String>] = [
        "search": [
            "count", "db", "iterations", "raw-iterations", "scale-phase", "no-raw", "no-fzf", "rebuild-index", "scale",
            "class",
        ],
        "keys": [
            "count", "db", "rounds", "columns", "rows", "cold", "no-index", "each", "many-arenas", "without",
            "changes-before-clearing",
        ],
        "cli": ["count", "db", "runs", "bookshelf", "static-bookshelf", "cold-runs", "limit"],
        "postgres": [
            "count", "db", "iterations", "writers", "seconds", "hot-books", "sessions", "typing-seconds",
            "typing-writer-rate",
        ],
        "compare": ["count", "db", "pg", "iterations"],
        "saves": ["processes", "seconds", "books", "db", "log", "writer"],
        "session": [
            "keys", "count", "latency", "every", "unbounded-script", "no-saves", "no-switches", "trim", "many-arenas",
        ],
        "replicas": [
            "count", "iterations", "lag", "saves", "save-every", "standby-wait", "typing-seconds", "restart-seconds",
        ],
        "import": ["megabytes", "line-megabytes", "runs", "reimport-books", "dir", "bookshelf"],
        "bulk": ["count", "db", "bookshelf", "writers", "books", "race-books", "postgres"],
        "calibre": [
            "count", "library", "iterations", "runs", "writers", "rounds", "bookshelf", "key-rounds", "columns", "rows",
            "each", "changes-before-clearing", "keys-only",
        ],
    ]

    @Test func everyModeKeepsItsOptionNames() {
        #expect(Set(BenchCommandLine.modes.map { $0.name }) == Set(Self.namesBefore.keys))
        for mode in BenchCommandLine.modes {
            let names = Set((mode.options + mode.internalOptions).map(\.spec.name))
            #expect(names == Self.namesBefore[mode.name], "\(mode.name)")
        }
    }

    @Test func optionsAreReadAsTyped() throws {
        guard
            case let .run(mode, arguments) = BenchCommandLine.parse([
                "search", "--count", "1_000,2000", "--no-fzf", "--iterations=7",
            ])
        else { Issue.record("search did not parse"); return }
        #expect(ObjectIdentifier(mode) == ObjectIdentifier(SearchBench.self))
        #expect(try arguments.value(SearchBench.count) == [1_000, 2_000])
        #expect(try arguments.value(SearchBench.iterations) == 7)
        #expect(try arguments.value(SearchBench.rawIterations) == 40, "the default")
        #expect(arguments.isSet(SearchBench.noFzf) && !arguments.isSet(SearchBench.noRaw))

        guard
            case let .run(_, writer) = BenchCommandLine.parse([
                "saves", "--writer", "--db", "c.sqlite", "--log", "w.log",
                "--seconds", "3", "--books", "5",
            ])
        else { Issue.record("the saves writer did not parse"); return }
        #expect(writer.isSet(SQLiteSavesBench.writer) && writer.value(SQLiteSavesBench.log) == "w.log")
        #expect(try writer.value(SQLiteSavesBench.seconds) == 3 && writer.value(SQLiteSavesBench.books) == 5)
    }

    /// The cli mode times a second executable (the static build) and cold runs when asked.
    @Test func theCliModeTakesASecondExecutableAndColdRuns() throws {
        guard
            case let .run(mode, arguments) = BenchCommandLine.parse([
                "cli", "--static-bookshelf", "static/bookshelf", "--cold-runs", "3",
            ])
        else { Issue.record("cli did not parse"); return }
        #expect(ObjectIdentifier(mode) == ObjectIdentifier(CliBench.self))
        #expect(arguments.value(CliBench.staticBookshelf) == "static/bookshelf")
        #expect(try arguments.value(CliBench.coldRuns) == 3)
        guard case let .run(_, defaults) = BenchCommandLine.parse(["cli"]) else { Issue.record("cli"); return }
        #expect(defaults.value(CliBench.staticBookshelf) == nil, "no second executable unless given")
        #expect(try defaults.value(CliBench.coldRuns) == 5, "the default")
    }

    @Test func mistakesAreUsageErrors() {
        let cases: [([String], String)] = [
            (["search", "--bogus"], "bookshelf-bench search: unknown option --bogus"),
            (["keys", "--count", "ten"], "bookshelf-bench keys: --count needs a non-negative whole number, not ten."),
            (["cli", "--runs", "-3"], "bookshelf-bench cli: --runs needs a non-negative whole number, not -3."),
            (["cli", "--static-bookshelf"], "bookshelf-bench cli: --static-bookshelf PATH needs a value."),
            (
                ["search", "--count", "1000,x"],
                "bookshelf-bench search: --count needs non-negative whole numbers separated by commas, not 1000,x."
            ),
            (["postgres", "--writers"], "bookshelf-bench postgres: --writers N needs a value."),
            (["session", "--latency", "fast"], "bookshelf-bench session: --latency: "),
            (["compare", "extra"], "bookshelf-bench compare: unexpected argument \"extra\"."),
            (["keys", "--each=yes"], "bookshelf-bench keys: --each takes no value."),
            (["nosuch"], "bookshelf-bench: unknown mode \"nosuch\""),
        ]
        for (arguments, message) in cases {
            guard case let .usageError(said) = BenchCommandLine.parse(arguments) else {
                Issue.record("\(arguments) was not a usage error")
                continue
            }
            #expect(said.hasPrefix(message), "\(arguments): \(said)")
        }
        guard case .usageError = BenchCommandLine.parse([]) else { Issue.record("no mode is a usage error"); return }
    }

    /// A mode's help lists what a user may give, from the declarations; never the options the
    /// bench gives its own child processes.
    @Test func helpListsTheDeclaredOptions() {
        for mode in BenchCommandLine.modes {
            guard case let .help(text) = BenchCommandLine.parse([mode.name, "--help"]) else {
                Issue.record("\(mode.name) --help")
                continue
            }
            #expect(text.hasPrefix("Usage: bookshelf-bench \(mode.name) [options]"), "\(mode.name)")
            for option in mode.options + [Flag.help] {
                #expect(
                    text.contains("  " + option.spec.synopsis + " "),
                    "\(mode.name) --help lists \(option.spec.synopsis)")
            }
            for option in mode.internalOptions {
                #expect(
                    !text.contains("  " + option.spec.synopsis + " "),
                    "\(mode.name) --help leaves out \(option.spec.synopsis)")
            }
        }
        guard case let .help(usage) = BenchCommandLine.parse(["--help"]) else { Issue.record("--help"); return }
        for mode in BenchCommandLine.modes {
            #expect(usage.contains("  \(mode.name) "), "the mode list names \(mode.name)")
        }
    }

    /// The built program: a usage error exits 2 with its message on standard error, before any work.
    @Test func theProgramExitsTwoOnAMistake() throws {
        let bench = try #require(
            BuildProducts.executable(named: "bookshelf-bench"), "bookshelf-bench is built beside the tests")
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        for (arguments, message) in [
            (["search", "--no-such-option"], "bookshelf-bench search: unknown option --no-such-option"),
            (
                ["keys", "--count", "many"],
                "bookshelf-bench keys: --count needs a non-negative whole number, not many."
            ),
            (
                ["saves", "--writer", "--db", directory.path("c.sqlite")],
                "bookshelf-bench saves: --writer needs --db and --log."
            ),
            (["nosuch"], "bookshelf-bench: unknown mode \"nosuch\""),
        ] {
            let status = try ChildProcess.run(
                [bench.path] + arguments, output: directory.path("out"), errors: directory.path("err"))
            let errors = try String(contentsOfFile: directory.path("err"), encoding: .utf8)
            #expect(status == 2, "\(arguments): exit \(status), \(errors)")
            #expect(errors.hasPrefix(message), "\(arguments): \(errors)")
            #expect(
                try String(contentsOfFile: directory.path("out"), encoding: .utf8).isEmpty,
                "\(arguments): nothing on standard output")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("c.sqlite")), "no catalog made")
    }

    /// `import` on small files: both programs take turns on the rows, and the one-line file is
    /// refused; every figure the mode promises is printed.
    @Test func theImportModeMeasuresBothFilesAndTakesTurnsWithSQLite() throws {
        let bench = try #require(
            BuildProducts.executable(named: "bookshelf-bench"), "bookshelf-bench is built beside the tests")
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let status = try ChildProcess.run(
            [
                bench.path, "import", "--megabytes", "1", "--line-megabytes", "2", "--runs", "2",
                "--reimport-books", "1000", "--dir", directory.path(""),
            ],
            output: directory.path("out"), errors: directory.path("err"))
        let output = try String(contentsOfFile: directory.path("out"), encoding: .utf8)
        let errors = try String(contentsOfFile: directory.path("err"), encoding: .utf8)
        #expect(status == 0, "\(errors)")
        let lines = output.split(separator: "\n").map(String.init)
        // 1 MiB of "Bench book N,Author M" rows: about 40,000.
        let rows = try #require(lines.first { $0.hasPrefix("rows: ") }, "\(output)")
        #expect(rows.contains("valid rows, 1 MiB"), "\(output)")
        #expect(
            lines.filter { $0.hasPrefix("bookshelf import, run ") && $0.contains("peak RSS") }.count == 2, "\(output)")
        if executableOnPathForTests("sqlite3") {
            #expect(lines.filter { $0.hasPrefix("sqlite3 .import,  run ") }.count == 2, "\(output)")
            #expect(lines.contains { $0.hasPrefix("rows/s (medians): bookshelf ") }, "\(output)")
        }
        #expect(lines.contains { $0.hasPrefix("one line of 2 MiB, refused: ") && $0.contains("peak RSS") }, "\(output)")
        // Issue 60: the re-import, with the first import's figures beside it.
        #expect(lines.contains("re-import: 1000 Goodreads-shaped books, 1% changed in the source, 10 edited here"))
        #expect(lines.contains { $0.hasPrefix("first import: ") && $0.contains("peak RSS") }, "\(output)")
        #expect(lines.contains { $0.hasPrefix("re-import   : ") && $0.contains("peak RSS") }, "\(output)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path("")).allSatisfy {
                !$0.hasPrefix("bookshelf-bench-import")
            }, "its files are removed")
    }

    private func executableOnPathForTests(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }
}
