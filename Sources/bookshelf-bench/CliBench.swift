import CommandLineOptions
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whole processes, as a user or a script starts them: `bookshelf search QUERY` against
/// `fzf --filter QUERY` over the same titles, taking turns (which goes first rotates), each
/// child's wall time and peak RSS from its own rusage (`wait4`). Ratios are fzf / bookshelf per
/// turn; the table gives their medians per query and over all turns. A second executable
/// (`--static-bookshelf`, the statically linked build) takes the same turns, and both are timed
/// again with the catalog and its index evicted from the page cache before each run.
enum CliBench: BenchMode {
    static let name = "cli"
    static let summary =
        "whole `bookshelf search` processes vs `fzf --filter` on the same titles (wall time, peak RSS, ratios)"

    static let count = BenchNumber("count", default: 1_000_000, help: "books in the catalog")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: "catalog file, shared with the search mode (reused when it holds exactly N books)")
    static let runs = BenchNumber("runs", default: 9, help: "turns per query")
    static let bookshelf = Option<String>(
        "bookshelf", value: "PATH", completes: .file,
        help: "the bookshelf executable (default: beside this one)")
    static let staticBookshelf = Option<String>(
        "static-bookshelf", value: "PATH", completes: .file,
        help:
            "a second bookshelf executable, the installed build (Scripts/install's, .build/static/release/bookshelf), timed in the same turns"
    )
    static let coldRuns = BenchNumber(
        "cold-runs", default: 5,
        help: "runs per query and executable with the catalog and its index evicted from the page cache first")
    static let limit = BenchNumber("limit", default: 50, help: "--limit given to bookshelf search")
    static let options: [any OptionDeclaration] = [count, db, runs, bookshelf, staticBookshelf, coldRuns, limit]

    static let details = """
        All get the same machine at the same minute: runs alternate between the programs and
        between queries, so a neighbour's load affects all alike. The stored search index is
        made (by one untimed search) before timing; `bookshelf --version` is timed as the
        process floor. fzf must be on PATH (Debian: apt-get install fzf); without it only
        bookshelf is timed and the ratios are left out. The cold runs evict the catalog, its
        WAL and the stored index with posix_fadvise(DONTNEED) before each run, and say how
        many of their pages stayed resident (mapped by another process, or dirty).
        """

    static let queries = ["hist", "a", "history of", "murakami", "zzqx"]

    struct Sample {
        let wall: Duration
        let peakKB: Int
    }

    /// One bookshelf executable under test, and what it was timed at.
    struct Contestant {
        let label: String
        let path: String
    }

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let runs = max(1, try arguments.value(Self.runs))
        let coldRuns = try arguments.value(Self.coldRuns)
        let limit = max(1, try arguments.value(Self.limit))
        let path =
            arguments.value(Self.db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-bench-\(count).sqlite").path
        var contestants = [
            Contestant(
                label: "bookshelf",
                path: arguments.value(Self.bookshelf)
                    ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                    .appendingPathComponent("bookshelf").path)
        ]
        if let second = arguments.value(Self.staticBookshelf) {
            contestants.append(Contestant(label: "static", path: second))
        }
        for contestant in contestants where !FileManager.default.isExecutableFile(atPath: contestant.path) {
            throw BenchError("no bookshelf executable at \(contestant.path) (build it, or give --bookshelf)")
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

        func search(_ contestant: Contestant, _ query: String) throws -> Sample {
            try spawn(contestant.path, ["search", query, "--limit", String(limit), "--db", path], stdin: nil)
        }
        func fzfRun(_ query: String) throws -> Sample {
            try spawn(fzf!, ["--filter", query], stdin: titles.path)
        }

        // Untimed: the stored index is made if missing, and every program's files are in the page cache.
        for contestant in contestants { _ = try search(contestant, "a") }
        if fzf != nil { _ = try fzfRun("a") }

        var floor = Array(repeating: [Sample](), count: contestants.count)
        for run in 0..<runs {
            for turn in 0..<contestants.count {
                let index = (run + turn) % contestants.count
                floor[index].append(try spawn(contestants[index].path, ["--version"], stdin: nil))
            }
        }
        print("\(count) books; \(runs) turns per query, interleaved; `bookshelf search QUERY --limit \(limit)`")
        for contestant in contestants { print("\(contestant.label): \(contestant.path)") }
        print(
            fzf == nil
                ? "fzf: NOT INSTALLED (apt-get install fzf); only bookshelf is timed, no ratios"
                : "fzf: \(fzf!) --filter QUERY < titles (\(count) lines, default sort)")
        print(
            launcher.map {
                "peak RSS: each child's own rusage, as \($0) reports it (wall time includes its start, for all alike)"
            }
                ?? "peak RSS: from wait4; WARNING: no /usr/bin/time, so each child's figure includes this bench's own memory"
        )
        for (contestant, samples) in zip(contestants, floor) {
            print(
                "process floor, `\(contestant.label) --version`: "
                    + String(
                        format: "%.1f ms, %.1f MB (medians)", median(samples.map { $0.wall.milliseconds }),
                        median(samples.map { Double($0.peakKB) / 1024 })))
        }

        var allSpeed = Array(repeating: [Double](), count: contestants.count)
        var allMemory = Array(repeating: [Double](), count: contestants.count)
        print("\nquery        program       wall       RSS     fzf/program: wall   RSS (medians of the turns' ratios)")
        for query in queries {
            var mine = Array(repeating: [Sample](), count: contestants.count)
            var theirs: [Sample] = []
            let players = contestants.count + (fzf == nil ? 0 : 1)
            for run in 0..<runs {
                // Taking turns: who goes first moves on by one each run.
                for turn in 0..<players {
                    let index = (run + turn) % players
                    if index == contestants.count {
                        theirs.append(try fzfRun(query))
                    } else {
                        mine[index].append(try search(contestants[index], query))
                    }
                }
            }
            for (index, contestant) in contestants.enumerated() {
                var line =
                    (index == 0 ? query : "").padding(toLength: 12, withPad: " ", startingAt: 0) + " "
                    + contestant.label.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + String(
                        format: " %7.1f ms %6.1f MB", median(mine[index].map { $0.wall.milliseconds }),
                        median(mine[index].map { Double($0.peakKB) / 1024 }))
                if fzf != nil {
                    let speed = zip(theirs, mine[index]).map { $0.wall.milliseconds / $1.wall.milliseconds }
                    let memory = zip(theirs, mine[index]).map { Double($1.peakKB) / Double($0.peakKB) }
                    allSpeed[index] += speed
                    allMemory[index] += memory
                    line += String(format: "     %6.1fx faster   %.2f of its RSS", median(speed), median(memory))
                }
                print(line)
            }
            if fzf != nil {
                print(
                    "".padding(toLength: 13, withPad: " ", startingAt: 0) + "fzf       "
                        + String(
                            format: " %7.1f ms %6.1f MB", median(theirs.map { $0.wall.milliseconds }),
                            median(theirs.map { Double($0.peakKB) / 1024 })))
            }
        }
        if fzf != nil {
            print("")
            for (index, contestant) in contestants.enumerated() {
                print(
                    "all turns (\(allSpeed[index].count)): \(contestant.label) is "
                        + String(
                            format: "%.1fx faster than fzf --filter (median), at %.2f of its peak RSS (median)",
                            median(allSpeed[index]), median(allMemory[index])))
            }
            print("target: at least 30x faster, under 0.2 of its peak RSS")
        }
        if coldRuns > 0 {
            try coldCache(contestants, queries: queries, runs: coldRuns, catalogPath: path, search: search)
        }
    }

    /// Each search again, after the catalog and its index were evicted from the page cache.
    static func coldCache(
        _ contestants: [Contestant], queries: [String], runs: Int, catalogPath: String,
        search: (Contestant, String) throws -> Sample
    ) throws {
        print(
            "\ncold page cache: the catalog, its WAL and its index evicted before each run; \(runs) runs per query"
        )
        print(
            "query        "
                + contestants.map { ($0.label + " wall").padding(toLength: 16, withPad: " ", startingAt: 0) }.joined()
                + "RSS (medians)")
        var leftResident = 0
        for query in queries {
            var samples = Array(repeating: [Sample](), count: contestants.count)
            for run in 0..<runs {
                for turn in 0..<contestants.count {
                    let index = (run + turn) % contestants.count
                    leftResident = max(leftResident, try PageCacheEviction.evict(catalog: catalogPath))
                    samples[index].append(try search(contestants[index], query))
                }
            }
            print(
                query.padding(toLength: 12, withPad: " ", startingAt: 0) + " "
                    + samples.map {
                        String(format: "%8.1f ms      ", median($0.map { $0.wall.milliseconds }))
                    }.joined()
                    + samples.map { String(format: "%.1f MB", median($0.map { Double($0.peakKB) / 1024 })) }.joined(
                        separator: ", "))
        }
        print("pages of those files still resident after an eviction: at most \(leftResident)")
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
        let ran = try TimedSpawn.run(executable, arguments, stdin: stdin ?? "/dev/null")
        // Exit status 1 is "nothing matched" for both programs.
        guard ran.exited, ran.exitCode <= 1 else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) failed (status \(ran.status))")
        }
        return Sample(wall: ran.wall, peakKB: ran.peakKB)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
