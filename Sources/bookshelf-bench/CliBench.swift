import CommandLineOptions
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whole processes, as a user or a script starts them: `bookshelf search QUERY` against
/// `fzf --filter QUERY` over the same titles, taking turns (which goes first alternates), each
/// child's wall time and peak RSS from its own rusage (`wait4`). Ratios are fzf / bookshelf per
/// pair of runs; the table gives their medians per query and over all pairs.
enum CliBench: BenchMode {
    static let name = "cli"
    static let summary =
        "whole `bookshelf search` processes vs `fzf --filter` on the same titles (wall time, peak RSS, ratios)"

    static let count = BenchNumber("count", default: 1_000_000, help: "books in the catalog")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: "catalog file, shared with the search mode (reused when it holds exactly N books)")
    static let runs = BenchNumber("runs", default: 9, help: "pairs of runs per query")
    static let bookshelf = Option<String>(
        "bookshelf", value: "PATH", completes: .file,
        help: "the bookshelf executable (default: beside this one)")
    static let limit = BenchNumber("limit", default: 50, help: "--limit given to bookshelf search")
    static let options: [any OptionDeclaration] = [count, db, runs, bookshelf, limit]

    static let details = """
        Both get the same machine at the same minute: runs alternate between the two programs
        and between queries, so a neighbour's load affects both alike. The stored search index
        is made (by one untimed search) before timing; `bookshelf --version` is timed as the
        process floor. fzf must be on PATH (Debian: apt-get install fzf); without it only
        bookshelf is timed and the ratios are left out.
        """

    static let queries = ["hist", "a", "history of", "murakami", "zzqx"]

    struct Sample {
        let wall: Duration
        let peakKB: Int
    }

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let runs = max(1, try arguments.value(Self.runs))
        let limit = max(1, try arguments.value(Self.limit))
        let path =
            arguments.value(Self.db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-bench-\(count).sqlite").path
        let bookshelf =
            arguments.value(Self.bookshelf)
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "bookshelf"
            ).path
        guard FileManager.default.isExecutableFile(atPath: bookshelf) else {
            throw BenchError("no bookshelf executable at \(bookshelf) (build it, or give --bookshelf)")
        }
        #if DEBUG
            print("warning: debug build; use `swift build -c release` for real figures")
        #endif
        let catalog = try SearchBench.prepareCatalog(path: path, count: count)
        let fzf = executableOnPath("fzf")
        let titles = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-bench-cli-titles-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: titles) }
        if fzf != nil { try RawSQLiteSearch(path: catalog.path).writeTitles(to: titles) }

        func bookshelfRun(_ query: String) throws -> Sample {
            try spawn(bookshelf, ["search", query, "--limit", String(limit), "--db", path], stdin: nil)
        }
        func fzfRun(_ query: String) throws -> Sample {
            try spawn(fzf!, ["--filter", query], stdin: titles.path)
        }

        // Untimed: the stored index is made if missing, and both programs' files are in the page cache.
        _ = try bookshelfRun("a")
        if fzf != nil { _ = try fzfRun("a") }

        var floor: [Sample] = []
        for _ in 0..<runs { floor.append(try spawn(bookshelf, ["--version"], stdin: nil)) }
        print("\(count) books; \(runs) pairs of runs per query, interleaved; `bookshelf search QUERY --limit \(limit)`")
        print(
            fzf == nil
                ? "fzf: NOT INSTALLED (apt-get install fzf); only bookshelf is timed, no ratios"
                : "fzf: \(fzf!) --filter QUERY < titles (\(count) lines, default sort)")
        print(
            launcher.map {
                "peak RSS: each child's own rusage, as \($0) reports it (wall time includes its start, for both alike)"
            }
                ?? "peak RSS: from wait4; WARNING: no /usr/bin/time, so each child's figure includes this bench's own memory"
        )
        print(
            String(
                format: "process floor, `bookshelf --version`: %.1f ms, %.1f MB (medians)",
                median(floor.map { $0.wall.milliseconds }), median(floor.map { Double($0.peakKB) / 1024 })))

        var allSpeed: [Double] = []
        var allMemory: [Double] = []
        print("\nquery        bookshelf wall    RSS        fzf wall    RSS      fzf/bookshelf: wall   RSS (medians)")
        for query in queries {
            var mine: [Sample] = [], theirs: [Sample] = []
            for run in 0..<runs {
                // Taking turns: whoever went first last time goes second now.
                if run % 2 == 0 || fzf == nil {
                    mine.append(try bookshelfRun(query))
                    if fzf != nil { theirs.append(try fzfRun(query)) }
                } else {
                    theirs.append(try fzfRun(query))
                    mine.append(try bookshelfRun(query))
                }
            }
            let wall = median(mine.map { $0.wall.milliseconds })
            let rss = median(mine.map { Double($0.peakKB) / 1024 })
            var line =
                query.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: " %9.1f ms %7.1f MB", wall, rss)
            if fzf != nil {
                let speed = zip(theirs, mine).map { $0.wall.milliseconds / $1.wall.milliseconds }
                let memory = zip(theirs, mine).map { Double($1.peakKB) / Double($0.peakKB) }
                allSpeed += speed
                allMemory += memory
                line += String(
                    format: " %9.1f ms %7.1f MB      %6.1fx faster   %.2f of its RSS",
                    median(theirs.map { $0.wall.milliseconds }), median(theirs.map { Double($0.peakKB) / 1024 }),
                    median(speed), median(memory))
            }
            print(line)
        }
        if fzf != nil {
            print(
                String(
                    format:
                        "\nall pairs (%d): bookshelf is %.1fx faster than fzf --filter (median), at %.2f of its peak RSS (median)",
                    allSpeed.count, median(allSpeed), median(allMemory)))
            print("target: at least 20x faster, under 0.25 of its peak RSS")
        }
    }

    /// Where the peak RSS comes from. A child started from this process inherits, at `exec`,
    /// the high-water mark of the memory it shared or copied from this one (Linux keeps the
    /// larger), so its own `wait4` figure would include this bench's memory. GNU time is a small
    /// C launcher: its child's rusage, which it reports, is the program's own.
    static let launcher = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil
    static let launcherReport = FileManager.default.temporaryDirectory.appendingPathComponent(
        "bookshelf-bench-cli-rss-\(getpid())"
    ).path

    /// Runs `executable` to the end with stdout (and stderr) discarded and stdin from `stdin`
    /// (or /dev/null); its wall time from spawn to reaping, and its own peak RSS (the child's
    /// rusage as `launcher` reports it; without a launcher, this process's child's own).
    static func spawn(_ executable: String, _ arguments: [String], stdin: String?) throws -> Sample {
        guard let launcher else { return try spawnDirectly(executable, arguments, stdin: stdin) }
        let launched = try spawnDirectly(
            launcher, ["-f", "%x %M", "-o", launcherReport, executable] + arguments, stdin: stdin)
        let report = try String(contentsOfFile: launcherReport, encoding: .utf8).split(whereSeparator: \.isWhitespace)
        guard report.count >= 2, let status = Int(report[report.count - 2]), let peak = Int(report[report.count - 1])
        else {
            throw BenchError("cannot read \(launcher)'s report")
        }
        guard (0...1).contains(status) else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)")
        }
        return Sample(wall: launched.wall, peakKB: peak)
    }

    private static func spawnDirectly(_ executable: String, _ arguments: [String], stdin: String?) throws -> Sample {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let clock = ContinuousClock()
        let start = clock.now
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(child, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4: \(String(cString: strerror(errno)))") }
        }
        let wall = clock.now - start
        // Exit status 1 is "nothing matched" for both programs.
        let exited = status & 0x7F == 0, code = (status >> 8) & 0xFF
        guard exited, code <= 1 else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return Sample(wall: wall, peakKB: Int(usage.ru_maxrss))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
