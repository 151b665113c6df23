import BookshelfTestSupport
import Foundation
import TestTags
import Testing

/// Runs the built `bookshelf-demo` in `--script` mode (virtual time, no terminal) and reads
/// its verdict: the exit status says whether the real model was ever wrong, the SUMMARY line
/// whether the naive model was caught. The demo's oracle does the checking after every
/// event; these tests make sure it runs for every scene over many schedules and that it
/// does catch the naive model's defects.
@Suite("bookshelf-demo --script", .tags(.tmux))
struct DemoScriptTests {
    static let scenes = ["typing", "accounts", "conflict"]
    static let seeds: [UInt64] = Array(1...8)

    @Test(
        "the real model is never wrong and the naive one is caught, over the default and eight random schedules",
        arguments: scenes)
    func realModelNeverWrong(scene: String) throws {
        let defaultRun = try DemoRun(scene, "--script")
        #expect(defaultRun.status == 0, "\(scene), default schedule:\n\(defaultRun.output)")
        #expect(defaultRun.summary["real"] == "ok")
        // The default schedules are tuned so that the naive model goes wrong.
        #expect(defaultRun.summary["naive"] == "caught", "\(scene): naive not caught with the default schedule")

        var caught = 0
        for seed in Self.seeds {
            let run = try DemoRun(scene, "--script", "--latency", "random:50-600", "--seed", "\(seed)")
            #expect(run.status == 0, "\(scene), seed \(seed):\n\(run.output)")
            #expect(run.summary["real"] == "ok", "\(scene), seed \(seed)")
            if run.summary["naive"] == "caught" { caught += 1 }
        }
        print(
            "\(scene): real model right in all \(Self.seeds.count + 1) runs; naive caught in \(caught) of \(Self.seeds.count) random schedules"
        )
        #expect(caught >= 1)
    }

    @Test("scripted failures: the naive model shows stale errors, the real model never does")
    func failuresStayFresh() throws {
        let run = try DemoRun("typing", "--script", "--latency", "random:50-600", "--seed", "3", "--fail", "2,5,9,16")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.summary["real"] == "ok")
        #expect(run.output.contains("!! naive: stale error"))
        #expect(!run.output.contains("!! real"))
    }

    @Test("the same seed gives the same transcript, another seed another one")
    func deterministic() throws {
        let arguments = ["typing", "--script", "--latency", "random:20-400", "--typing-ms", "50", "--seed"]
        let first = try DemoRun(arguments + ["11"])
        let second = try DemoRun(arguments + ["11"])
        let other = try DemoRun(arguments + ["12"])
        #expect(first.status == 0)
        #expect(first.output == second.output)
        #expect(other.output != first.output)
    }

    @Test(
        "a store that is slow to read, as on a busy machine, changes nothing in the transcript",
        arguments: scenes)
    func aSlowStoreChangesNothing(scene: String) throws {
        // The store reads before it parks on the virtual clock; a driver that moves time on
        // while a request is still reading answers it late, or never (the accounts scene
        // ended with carol's search "never answered" on a loaded machine).
        let quick = try DemoRun(scene, "--script")
        let slow = try DemoRun(scene, "--script", "--store-pause-ms", "15")
        #expect(quick.status == 0 && slow.status == 0, "\(slow.output)")
        #expect(slow.output == quick.output, "\(slow.output)")
    }

    @Test("a switch with no save to wait for: carol's first search is her own, on both panes")
    func aSwitchWithNothingToWaitFor() throws {
        // #1 search 60 ms, #2 load 60, #3 save 60 (through at 510 ms, before the switch at 700),
        // #4 "history" for alice 900 (answers at 1400, after the switch). The naive pane's #5 is
        // carol's search; the real pane's #5 is the save's refresh of alice's rows, its #6 carol's.
        let run = try DemoRun("accounts", "--script", "--latency", "60,60,60,900,100")
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("!! real"), "\(run.output)")
        let naive = run.requestTable(pane: "naive")
        let real = run.requestTable(pane: "real")
        #expect(naive.count == 5 && real.count == 6, "\(run.output)")
        for table in [naive, real] {
            #expect(table.last?.contains("step 6    search \"history\" (carol)") == true, "\(run.output)")
        }
        // Carol's own rows are right for carol; alice's late answer is what the naive pane gets wrong.
        #expect(naive.last?.hasSuffix("applied") == true, "\(run.output)")
        #expect(naive.count == 5 && naive[3].contains("(alice)") && naive[3].hasSuffix("applied, WRONG"))
        #expect(real.last?.hasSuffix("published") == true, "\(run.output)")
        #expect(real.count == 6 && real[3].hasSuffix("dropped-old-session"), "\(run.output)")
    }

    @Test("the request table maps each request to the typed text, its latency and its fate")
    func transcriptShowsRequests() throws {
        // #1 "" 300 ms, #2 "r" 10, #3 "ro" 300, #4 "rom" 10, #5 "rome" 300: the newest answers last.
        let run = try DemoRun("typing", "--script", "--query", "rome", "--latency", "300,10")
        #expect(run.status == 0)
        let table = run.requestTable(pane: "real").filter { $0.contains("search \"") }
        #expect(table.count == 5)
        #expect(table.last?.contains("search \"rome\" (alice)") == true)
        #expect(table.last?.contains("300 ms") == true)
        #expect(table.last?.hasSuffix("published") == true)
        #expect(table.first?.hasSuffix("dropped-stale") == true)
        #expect(run.output.contains("real  account alice, query \"rome\""))
    }

    @Test(
        "each pane's table names its own requests: the switch's search is carol's on the left, the save's refresh alice's on the right"
    )
    func tablesAttributeEachPanesRequests() throws {
        // Scene steps: 1 start, 2 open, 3 edit, 4 save (900 ms), 5 query "history" (900 ms), 6 switch to carol.
        // The naive pane searches for carol at once (its #5); the real pane waits for the save,
        // re-reads alice's "history" (its #5), and only then searches for carol (its #6).
        let run = try DemoRun("accounts", "--script")
        #expect(run.status == 0, "\(run.output)")
        let naive = run.requestTable(pane: "naive")
        let real = run.requestTable(pane: "real")
        #expect(naive.count == 5 && real.count == 6, "\(run.output)")
        #expect(
            naive.last?.contains("step 6") == true && naive.last?.contains("search \"history\" (carol)") == true,
            "\(run.output)")
        #expect(
            real.count == 6 && real[2].contains("save #63 (alice)") && real[2].hasSuffix("published"), "\(run.output)")
        #expect(real.count == 6 && real[4].contains("search \"history\" (alice)"), "\(run.output)")
        #expect(
            real.last?.contains("search \"history\" (carol)") == true && real.last?.hasSuffix("published") == true,
            "\(run.output)")
        // A search is named by its own query, never by an empty one it did not ask.
        #expect(!run.output.contains("search \"\" (carol)"), "\(run.output)")
        #expect(!run.output.contains("numbered alike"))
        for word in [
            "applied ", "published ", "dropped-stale ", "dropped-old-session ", "failed(conflict) ", ", WRONG ",
        ] {
            #expect(run.outputLines.contains { $0.hasPrefix(word) }, "no legend line for \(word)")
        }
    }

    @Test(
        "a full standard output is one line on standard error and status 3, never a trap",
        arguments: [
            ["typing", "--script"], ["--help"],
        ])
    func aFullOutputIsOneErrorLine(arguments: [String]) throws {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("demo-errors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errors) }
        let ending = try ChildProcess.runToEnd(
            [try DemoRun.binary().path] + arguments, output: "/dev/full", errors: errors.path)
        let said = try String(contentsOf: errors, encoding: .utf8)
        #expect(ending.signal == nil && ending.status == 3, "\(arguments): \(ending)")
        #expect(said == "bookshelf-demo: cannot write standard output: No space left on device\n", "\(said)")
    }

    @Test("the help says what the real pane does with alice's save, in the words of the table")
    func helpMatchesTheResult() throws {
        let help = try DemoRun("--help").output
        #expect(!help.contains("drops both"))
        #expect(help.contains("published: her edit"))
        #expect(help.contains("dropped-old-session"))
        #expect(help.contains("failed(conflict)"))
    }

    @Test(
        "bad options are refused with status 2 and a message",
        arguments: [
            ["typing", "--latency", "random:600-50"],
            ["typing", "--latency", "fast"],
            ["typing", "--fail", "0"],
            ["typing", "--typing-ms", "0"],
            ["dancing"],
            [],
        ])
    func badOptions(arguments: [String]) throws {
        let run = try DemoRun(arguments + ["--script"])
        #expect(run.status == 2)
        #expect(run.errors.contains("bookshelf-demo:"))
    }

    // MARK: The interactive demo, in a terminal

    /// The demo in a tmux pane, `columns` wide; the left half is the naive pane.
    static func interactive(_ arguments: String, columns: Int = 200, rows: Int = 45) throws -> TmuxPane {
        let binary = try DemoRun.binary()
        return try TmuxPane(
            "env TERM=xterm-256color \(shellQuoted(binary.path)) \(arguments); exec sleep 600",
            columns: columns, rows: rows)
    }

    static func halves(_ screen: String, columns: Int = 200) -> (left: String, right: String) {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let half = (columns - 1) / 2
        return (
            lines.map { String($0.prefix(half)) }.joined(separator: "\n"),
            lines.map { String($0.dropFirst(half + 1)) }.joined(separator: "\n")
        )
    }

    @Test(.enabled(if: TmuxPane.shouldRun))
    func theInteractiveConflictSceneMarksWrongPublicationsAndStopsItsClock() throws {
        let pane = try Self.interactive("conflict")
        defer { pane.kill() }
        // The scene holds on the real conflict banner, in the table's words, until a key.
        // The demo's clock runs, so its screen never settles (see `TmuxPane.waitFor`).
        let held = try pane.waitFor("the conflict banner", settled: false) {
            $0.contains("Holding on the conflict") && $0.contains("Yours:")
        }
        let heldReal = Self.halves(held).right
        #expect(heldReal.contains("Base:   History of Rome (rev 1)"), "\(held)")
        #expect(heldReal.contains("Theirs: History of Rome, 2nd edition (rev 2)"), "\(held)")
        #expect(heldReal.contains("Yours:  History of Rome (annotated)"), "\(held)")
        #expect(heldReal.contains("#4 (step 6) save #1 (alice) 300 ms failed(conflict)"), "\(held)")
        #expect(
            !held.contains(" ms shown") && !held.contains(" ms no change"), "the panel uses the table's words:\n\(held)"
        )
        #expect(!held.contains("numbered alike"), "\(held)")
        // The count beside the wall clock's is the one `--script` gives for the same latencies.
        let scripted = try DemoRun("conflict", "--script").summary
        let naiveCount = try #require(scripted["naive_violations"])
        #expect(Self.halves(held).left.contains("violations here (wall clock) · \(naiveCount) in --script"), "\(held)")
        #expect(
            heldReal.contains("violations here (wall clock) · \(scripted["real_violations"] ?? "?") in --script"),
            "\(held)")
        // Waiting for nothing to happen can only be a sleep: longer than the scene's next step
        // would take (its latencies are a few hundred ms) if the banner did not hold it.
        usleep(1_500_000)
        #expect(try pane.capture().contains("Holding on the conflict"), "the banner was not held")
        try pane.send("Space")
        try pane.waitFor(text: "(scene over)")
        let screen = try pane.waitFor(text: "✗ at the end")
        let (naive, real) = Self.halves(screen)
        // The naive pane says what it did to the other writer; the request panels agree on numbers.
        #expect(naive.contains("silently overwriting someone else's revision 2"), "\(screen)")
        // Scene steps: 1 start, 2 the query, 3 open, 4 edit, 5 the other writer saves, 6 save.
        for request in [
            "#1 (step 1) search \"\" (alice)", "#2 (step 2) search \"history of rome\" (alice)",
            "#3 (step 3) load #1 (alice)", "#4 (step 6) save #1 (alice)",
        ] {
            #expect(naive.contains(request) && real.contains(request), "\(request) on both sides:\n\(screen)")
        }
        #expect(naive.contains("✗ at the end: lost update"), "the naive side's lost update is called so:\n\(screen)")
        // Only the scene's end check is asserted for the real side: the interactive judge runs
        // on wall-clock time and, on a loaded machine, can judge an answer after the next
        // keystroke's search was sent and call it superseded. The `--script` tests, on virtual
        // time, are where the real model is shown never to be wrong.
        #expect(!real.contains("✗"), "\(screen)")
        #expect(real.contains("editor #1 rev 2: History of Rome, 2nd edition"), "the real side took theirs:\n\(screen)")
        // The clock stopped with the scene.
        let clock = try #require(screen.split(separator: "\n").first { $0.contains("t = ") })
        // A stopped clock is the absence of a change: a sleep of several of its ticks (50 ms).
        usleep(400_000)
        #expect(try pane.capture().contains(clock), "the clock moved after the scene ended")
    }

    @Test(.enabled(if: TmuxPane.shouldRun))
    func theInteractiveAccountsSceneMarksRowsThatDoNotAnswerTheQuery() throws {
        // The scene's slow save and search (requests 3 and 4) take 5 s instead of 0.9 s: the
        // switch, due 0.2 s after them on the wall clock, must come first even on a machine
        // so loaded that the scene's steps run seconds late.
        let pane = try Self.interactive("accounts --latency 60,60,5000,5000,100")
        defer { pane.kill() }
        let screen = try pane.waitFor(text: "(scene over)")
        let (naive, real) = Self.halves(screen)
        // The naive pane ends on alice's rows as carol: each is marked as not answering.
        #expect(naive.contains("do not answer \"history\""), "\(screen)")
        #expect(naive.contains("✗ History of"), "\(screen)")
        #expect(!real.contains("✗"), "\(screen)")
    }

    @Test(.enabled(if: TmuxPane.shouldRun))
    func requestsInFlightSayWhatTheyAre() throws {
        // Slow enough that nothing answers while the test reads the screen.
        let pane = try Self.interactive("typing --latency 30000 --query ro")
        defer { pane.kill() }
        let screen = try pane.waitFor("both panels to list #3", settled: false) { screen in
            Self.halves(screen).right.contains("#3 (step 3) search \"ro\" (alice) 30000 ms in flight")
                && Self.halves(screen).left.contains("#3 (step 3) search \"ro\" (alice) 30000 ms in flight")
        }
        let (naive, real) = Self.halves(screen)
        for line in [
            "#1 (step 1) search \"\" (alice) 30000 ms in flight", "#2 (step 2) search \"r\" (alice) 30000 ms in flight",
        ] {
            #expect(naive.contains(line) && real.contains(line), "\(screen)")
        }
    }

    @Test("--help explains the scenes, options and keys")
    func help() throws {
        let run = try DemoRun("--help")
        #expect(run.status == 0)
        for word in [
            "typing", "accounts", "conflict", "--script", "--latency", "--seed", "--typing-ms", "--query", "Ctrl-Q",
        ] {
            #expect(run.output.contains(word), "help lacks \(word)")
        }
    }
}

/// One finished run of the demo binary, its output captured through files (a pipe could
/// fill up and stall the child).
struct DemoRun {
    let status: Int32
    let output: String
    let errors: String

    var outputLines: [String] { output.split(separator: "\n").map(String.init) }

    init(_ arguments: String...) throws { try self.init(arguments) }

    init(_ arguments: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        let ending = try ChildProcess.runToEnd(
            [try Self.binary().path] + arguments, output: outputURL.path,
            errors: errorURL.path, environment: ProcessInfo.processInfo.environment)
        #expect(ending.signal == nil, "bookshelf-demo \(arguments) was killed by signal \(ending.signal ?? 0)")
        status = ending.status
        output = try String(contentsOf: outputURL, encoding: .utf8)
        errors = try String(contentsOf: errorURL, encoding: .utf8)
    }

    /// The rows of one pane's request table (after its header line, up to its counts).
    func requestTable(pane: String) -> [String] {
        let lines = outputLines
        guard let title = lines.firstIndex(of: "\(pane) pane"), title + 1 < lines.count,
            lines[title + 1].hasPrefix("   #  sent by")
        else { return [] }
        let header = title + 1
        return Array(
            lines[(header + 1)...].prefix {
                $0.first == " " && $0.trimmingCharacters(in: .whitespaces).first?.isNumber == true
            })
    }

    /// The `key=value` words of the SUMMARY line.
    var summary: [String: String] {
        guard let line = outputLines.last(where: { $0.hasPrefix("SUMMARY ") }) else { return [:] }
        var pairs: [String: String] = [:]
        for word in line.split(separator: " ") {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { pairs[String(parts[0])] = String(parts[1]) }
        }
        return pairs
    }

    static func binary() throws -> URL {
        guard let url = BuildProducts.executable(named: "bookshelf-demo") else { throw DemoBinaryMissing() }
        return url
    }
}

struct DemoBinaryMissing: Error, CustomStringConvertible {
    var description: String { "bookshelf-demo was not found beside the test bundle" }
}
