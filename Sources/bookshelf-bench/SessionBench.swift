import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import Foundation
import SQLiteCatalog
import TerminalUI

/// A long interactive session, simulated: the real `BookshelfModel` and `BookshelfApp` on an
/// SQLite catalog with `--latency` on (a `LatencyScript` built as the app builds it), fed a
/// stream of keystrokes that types queries, clears them, opens books, edits and saves them,
/// and switches between accounts. Resident and peak memory are printed at the start (after a
/// warm-up), along the way and at the end; in a session whose logs are bounded they stay flat.
///
/// `--unbounded-script` keeps the latency script's full call log (as the demo does), to show
/// what an unbounded log costs over the same session.
enum SessionBench: BenchMode {
    static let name = "session"
    static let summary = "a simulated 100,000-key session with saves and account switches under --latency: memory start vs end"

    static let help = """
        usage: bookshelf-bench session [--keys N] [--count N] [--latency SPEC] [--unbounded-script]

          --keys N            keystrokes to simulate (default 100000)
          --count N           books in the catalog (default 20000)
          --latency SPEC      as the app's --latency (default 0,1,0,2)
          --unbounded-script  keep every latency-script call, as the demo does (for comparison)
        """

    static let words = ["history", "rome", "the secret", "garden", "war peace", "murakami", "日本", "cafe", "a", "zzqx", "night"]
    static let accounts = ["bench", "bench-two", "bench-reader"]

    static func run(_ arguments: [String]) async throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(help)
            return
        }
        let options = try BenchOptions(arguments, valued: ["--keys", "--count", "--latency"], flags: ["--unbounded-script"])
        let keys = try options.int("--keys", default: 100_000)
        let count = try options.int("--count", default: 20_000)
        let schedule = try LatencySchedule.parse(options.string("--latency") ?? "0,1,0,2")
        #if DEBUG
        print("warning: debug build; use `swift run -c release bookshelf-bench session` for real figures")
        #endif
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-session-\(getpid()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let catalog = try SearchBench.prepareCatalog(path: path, count: count)
        try catalog.addAccount(Account(name: "bench-two", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "bench-reader", role: .reader, scope: "main"))
        let script = LatencyScript(schedule: schedule, sleeper: WallClockSleeper(),
                                   retainedCalls: options.has("--unbounded-script") ? nil : LatencyScript.interactiveRetainedCalls)
        try await simulate(catalog: catalog, path: path, script: script, keys: keys)
    }

    @MainActor
    static func simulate(catalog: SQLiteCatalog, path: String, script: LatencyScript, keys total: Int) async throws {
        // As the app builds it with `--latency`.
        let connector = LatencyScriptedConnector(SQLiteConnector(catalog: catalog), script: script)
        let model = BookshelfModel(connector: connector, account: "bench")
        let size = TerminalSize(rows: 40, columns: 120)
        let app = BookshelfApp(model: model, store: StoreInfo(kind: "SQLite", location: path), size: size)
        var backend = MemoryBackend(width: size.columns, height: size.rows)
        var keys = 0, saves = 0, switches = 0
        func settle() async {
            while let request = model.runningRequests.first { await model.finished(request: request) }
            var canvas = Canvas(width: size.columns, height: size.rows)
            app.render(into: &canvas)
            backend.present(canvas)
        }
        func press(_ key: Key) async {
            app.handle(.key(key))
            keys += 1
            // A fast typist: the app catches up every few keys, so some searches are superseded.
            if keys % 3 == 0 { await settle() }
        }
        func report(_ label: String) {
            print("\(label.padding(toLength: 14, withPad: " ", startingAt: 0)) keys \(String(keys).padding(toLength: 7, withPad: " ", startingAt: 0))"
                  + " resident \(memory("VmRSS")), peak \(memory("VmHWM")); script calls kept \(script.calls.count) of \(script.callCount),"
                  + " request log \(model.log.entries.count) of \(model.log.recordedCount); saves \(saves), switches \(switches)")
        }

        app.start()
        await settle()
        guard model.state.account == "bench" else { throw BenchError("the app did not connect") }
        var cycle = 0
        var started = false
        while keys < total {
            cycle += 1
            let word = words[cycle % words.count]
            for character in word { await press(.character(character)) }
            await settle()
            if cycle % 5 == 0, model.state.accountRole == .editor, !model.state.search.rows.isEmpty {
                // Open the selected book, change its title, save, close.
                await press(.enter)
                await settle()
                await press(.character(Character(String(cycle % 10))))
                await press(.enter)
                await settle()
                if case .saved? = model.state.editor?.outcome { saves += 1 }
                await press(.escape)
                await settle()
                if model.state.confirmation != nil { await press(.character("y")); await settle() }
            }
            await press(.ctrl("u"))
            if cycle % 40 == 0 {
                // Switch to the next account through the picker.
                let current = accounts.firstIndex(of: model.state.account ?? "") ?? 0
                let next = accounts[(current + 1) % accounts.count]
                await press(.function(2))
                await settle()
                let listed = model.state.accounts.map(\.name)
                guard let from = listed.firstIndex(of: model.state.account ?? ""), let to = listed.firstIndex(of: next) else { continue }
                for _ in 0..<abs(to - from) { await press(to > from ? .down : .up) }
                await press(.enter)
                await settle()
                if model.state.account == next { switches += 1 }
            }
            if !started && keys >= 2_000 {
                started = true
                report("start")
            } else if started && cycle % 2_000 == 0 {
                report("along the way")
            }
        }
        await settle()
        report("end")
    }

    /// A `/proc/self/status` figure (VmRSS: resident now, VmHWM: peak).
    static func memory(_ field: String) -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return "unknown" }
        return line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)
    }
}
