import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import CommandLineOptions
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
    static let summary =
        "a simulated 100,000-key session with saves and account switches under --latency: memory start vs end"

    static let keys = BenchNumber("keys", default: 100_000, help: "keystrokes to simulate")
    static let count = BenchNumber("count", default: 20_000, help: "books in the catalog")
    static let defaultLatency = "0,1,0,2"
    static let latency = Option<LatencySchedule>(
        "latency", value: "SPEC", help: "as the app's --latency (default \(defaultLatency))"
    ) {
        text throws(UsageError) in
        do { return try LatencySchedule.parse(text) } catch { throw UsageError("--latency: \(error)") }
    }
    static let every = BenchNumber("every", default: 2_000, help: "print memory every N queries typed")
    static let unboundedScript = Flag(
        "unbounded-script", help: "keep every latency-script call, as the demo does (for comparison)")
    static let noSaves = Flag("no-saves", help: "never open and save a book (to find what memory follows)")
    static let noSwitches = Flag("no-switches", help: "never switch accounts (to find what memory follows)")
    static let trim = Flag(
        "trim",
        help: """
            hand malloc's free memory back (malloc_trim) before each report:
            what resident memory is without the allocator's free lists
            """)
    static let manyArenas = Flag(
        "many-arenas",
        help: """
            leave glibc's malloc arenas at their default (one per thread that
            allocates at once); the app limits itself to one, and so does this mode
            """)
    static let options: [any OptionDeclaration] = [
        keys, count, latency, every, unboundedScript, noSaves, noSwitches, trim, manyArenas,
    ]

    static let words = [
        "history", "rome", "the secret", "garden", "war peace", "murakami", "日本", "cafe", "a", "zzqx", "night",
    ]
    static let accounts = ["bench", "bench-two", "bench-reader"]

    static func run(_ arguments: ParsedArguments) async throws {
        let keys = try arguments.value(Self.keys)
        let count = try arguments.value(Self.count)
        let schedule = try arguments.value(latency) ?? LatencySchedule.parse(defaultLatency)
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench session` for real figures")
        #endif
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-session-\(getpid()).sqlite")
            .path
        defer {
            // The catalog, its journal files and the search-index file stored beside it.
            let directory = FileManager.default.temporaryDirectory
            let name = (path as NSString).lastPathComponent
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            where file.hasPrefix(name) {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
            }
        }
        let catalog = try SearchBench.prepareCatalog(path: path, count: count)
        try catalog.addAccount(Account(name: "bench-two", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "bench-reader", role: .reader, scope: "main"))
        let script = LatencyScript(
            schedule: schedule, sleeper: WallClockSleeper(),
            retainedCalls: arguments.isSet(unboundedScript) ? nil : LatencyScript.interactiveRetainedCalls)
        let plan = Plan(
            keys: keys, every: max(1, try arguments.value(every)),
            saves: !arguments.isSet(noSaves), switches: !arguments.isSet(noSwitches), trim: arguments.isSet(trim))
        try await simulate(catalog: catalog, path: path, script: script, plan: plan)
    }

    struct Plan {
        var keys: Int
        /// Print memory every this many queries typed.
        var every: Int
        var saves: Bool
        var switches: Bool
        var trim: Bool
    }

    @MainActor
    static func simulate(catalog: SQLiteCatalog, path: String, script: LatencyScript, plan: Plan) async throws {
        let total = plan.keys
        // As the app builds it with `--latency`, with a count of the sessions still alive.
        let sessions = SessionCountingConnector<SQLiteBookRemote>(SQLiteConnector(catalog: catalog))
        let connector = LatencyScriptedConnector(sessions, script: script)
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
            if plan.trim { HeapFigures.trim() }
            print(
                "\(label.padding(toLength: 14, withPad: " ", startingAt: 0)) keys \(String(keys).padding(toLength: 7, withPad: " ", startingAt: 0))"
                    + " resident \(memory("VmRSS")), peak \(memory("VmHWM")); script calls kept \(script.calls.count) of \(script.callCount),"
                    + " request log \(model.log.entries.count) of \(model.log.recordedCount); saves \(saves), switches \(switches),"
                    + " sessions alive \(sessions.alive) of \(sessions.opened); \(HeapFigures.now())")
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
            if plan.saves, cycle % 5 == 0, model.state.accountRole == .editor, !model.state.search.rows.isEmpty {
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
            if plan.switches, cycle % 40 == 0 {
                // Switch to the next account through the picker.
                let current = accounts.firstIndex(of: model.state.account ?? "") ?? 0
                let next = accounts[(current + 1) % accounts.count]
                await press(.function(2))
                await settle()
                let listed = model.state.accounts.map(\.name)
                guard let from = listed.firstIndex(of: model.state.account ?? ""), let to = listed.firstIndex(of: next)
                else { continue }
                for _ in 0..<abs(to - from) { await press(to > from ? .down : .up) }
                await press(.enter)
                await settle()
                if model.state.account == next { switches += 1 }
            }
            if !started && keys >= 2_000 {
                started = true
                report("start")
            } else if started && cycle % plan.every == 0 {
                report("along the way")
            }
        }
        await settle()
        report("end")
    }

    /// What malloc holds: bytes handed out and not freed ("in use": live objects), and bytes
    /// it keeps from the system but has free (its free lists, which resident memory includes).
    /// In-use flat while resident memory rises means the growth is the allocator's, not ours.
    enum HeapFigures {
        /// glibc's `malloc_info`, looked up at run time: `malloc.h` is not part of Swift's
        /// Glibc module. It writes its totals, over every arena, as XML.
        private typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

        static func now() -> String {
            guard let symbol = dlsym(nil, "malloc_info") else { return "heap figures unavailable" }
            var buffer: UnsafeMutablePointer<CChar>?
            var size = 0
            guard let stream = open_memstream(&buffer, &size) else { return "heap figures unavailable" }
            _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
            fclose(stream)
            guard let buffer else { return "heap figures unavailable" }
            defer { free(buffer) }
            // The totals come last, after one <heap> element per arena.
            let totals = String(cString: buffer).components(separatedBy: "</heap>").last ?? ""
            func figure(_ element: String, _ type: String) -> Int {
                guard let start = totals.range(of: "<\(element) type=\"\(type)\""),
                    let size = totals[start.upperBound...].range(of: "size=\"")
                else { return 0 }
                return Int(totals[size.upperBound...].prefix { $0.isNumber }) ?? 0
            }
            let free = figure("total", "fast") + figure("total", "rest")
            let inUse = figure("system", "current") - free + figure("total", "mmap")
            return "heap in use \(megabytes(inUse)), free in heap \(megabytes(free))"
        }

        /// glibc's `malloc_trim(0)`: returns free pages of every arena to the system.
        static func trim() {
            typealias MallocTrim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }

        static func megabytes(_ bytes: Int) -> String {
            String(format: "%.1f MB", Double(bytes) / 1_000_000)
        }
    }

    /// A `/proc/self/status` figure (VmRSS: resident now, VmHWM: peak).
    static func memory(_ field: String) -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return "unknown" }
        return line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)
    }
}
