import BookCatalog
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TerminalSafeText

/// `bookshelf-bench search --count 1000000,10000000`: the same figures at each size, side by
/// side, so that growth is visible. Each figure that depends on the process (memory, opening)
/// is measured in a fresh child process per count and per state of the stored index: VmHWM is
/// a per-process peak, and an index built earlier in the same process would be counted again.
///
/// The phases, for each count, in this order (each leaves the catalog as the next needs it):
/// - missing: the stored index is deleted; a child opens, searches once (answered while the
///   index is built), waits for the build and its storing.
/// - current: a child opens (the stored index is current), measures every query class, reads
///   its memory, then another connection changes 10,000 books in one commit and the next
///   search is timed: the incremental catch-up (past the overlay's limit, the store answers
///   from the books table and rebuilds instead; the child waits for that rebuild).
/// - stale: another connection changes 10,000 books again; a child opens with the stored
///   index that far behind (or further: how far is counted and shown), searches once, then
///   waits until a current index is stored again if the store rebuilds one.
enum SearchScaling {
    static let edits = 10_000
    static let phases = ["missing", "current", "stale"]

    /// Figures a child reports, one `scale KEY VALUE` line each.
    typealias Figures = [String: String]

    // MARK: Parent

    static func run(counts: [Int], directory: String, iterations: Int) async throws {
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench search` for real figures")
        #endif
        let executable = try selfExecutable()
        print(
            "scaling: \(counts.map { NumberText.grouped($0) }.joined(separator: ", ")) books; "
                + "\(iterations) searches per class; load average \(loadAverage())")
        var columns: [Figures] = []
        for count in counts {
            let path = (directory as NSString).appendingPathComponent("bookshelf-bench-\(count).sqlite")
            try prepare(path: path, count: count)
            var figures: Figures = ["count": String(count)]
            var snapshot = (sequence: 0, modified: Date.distantPast)
            for phase in phases {
                if phase == "stale" {
                    // The stored index is as old as the last one stored: by the missing phase,
                    // or by a rebuild the current phase waited for (then the file is newer).
                    let modified = indexFileModified(catalogPath: path)
                    let stored = modified != snapshot.modified ? try maxChangeSequence(path) : snapshot.sequence
                    let step = max(1, count / edits)
                    figures["stale.edited"] = String(try RawSQLiteSearch(path: path).touchBooks(every: step))
                    figures["stale.behind"] = String(try booksChanged(since: stored, path))
                }
                print("  \(NumberText.grouped(count)) books: index \(phase)…")
                let reported = try runChild(executable, phase: phase, count: count, path: path, iterations: iterations)
                for (key, value) in reported { figures["\(phase).\(key)"] = value }
                if phase == "missing" { snapshot = (try maxChangeSequence(path), indexFileModified(catalogPath: path)) }
            }
            figures["index file bytes"] = String(indexFileBytes(catalogPath: path))
            columns.append(figures)
        }
        print("")
        ScalingTable(columns: columns).print()
        print("\nload average after: \(loadAverage())")
    }

    private static func prepare(path: String, count: Int) throws {
        let catalog = try SearchBench.prepareCatalog(path: path, count: count)
        // The first phase measures the index missing: only the stored snapshot goes.
        try catalog.discardSearchSnapshots()
    }

    private static func runChild(_ executable: String, phase: String, count: Int, path: String, iterations: Int) throws
        -> Figures
    {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-bench-scale-\(getpid())-\(phase).out"
        ).path
        let errors = output + ".err"
        defer { for file in [output, errors] { try? FileManager.default.removeItem(atPath: file) } }
        let status = try ChildProcess.run(
            [
                executable, "search", "--scale-phase", phase, "--count", String(count),
                "--db", path, "--iterations", String(iterations),
            ],
            output: output, errors: errors)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let why = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw BenchError("the \(phase) phase at \(count) books exited with \(status): \(why)\(text)")
        }
        var figures: Figures = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("scale ") {
            let parts = line.dropFirst("scale ".count).split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { figures[String(parts[0])] = String(parts[1]) }
        }
        return figures
    }

    /// This program, to start children of.
    private static func selfExecutable() throws -> String {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw BenchError("cannot find this program's own path (/proc/self/exe)")
        }
        return path
    }

    /// Bytes of the stored index files beside the catalog (`CATALOG-search-*`, not temporaries).
    static func indexFileBytes(catalogPath: String) -> Int {
        let directory = (catalogPath as NSString).deletingLastPathComponent
        let prefix = (catalogPath as NSString).lastPathComponent + "-search-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) && !$0.contains(".tmp") }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: (directory as NSString).appendingPathComponent(name))
            return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    static func indexFileModified(catalogPath: String) -> Date {
        let directory = (catalogPath as NSString).deletingLastPathComponent
        let prefix = (catalogPath as NSString).lastPathComponent + "-search-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) && !$0.contains(".tmp") }.compactMap { name in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: (directory as NSString).appendingPathComponent(name))
            return attributes?[.modificationDate] as? Date
        }.max() ?? .distantPast
    }

    static func maxChangeSequence(_ path: String) throws -> Int {
        try count("SELECT coalesce(max(change_seq), 0) FROM books", path)
    }

    static func booksChanged(since sequence: Int, _ path: String) throws -> Int {
        try count("SELECT count(*) FROM books WHERE change_seq > \(sequence)", path)
    }

    /// One whole number from the catalog, read with a connection of its own.
    private static func count(_ sql: String, _ path: String) throws -> Int {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK
        else {
            throw BenchError("cannot read \(path): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("no answer to \(sql)") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    // MARK: Child

    static func runPhase(_ phase: String, path: String, count: Int, iterations: Int) async throws {
        switch phase {
        case "missing": try await missing(path: path)
        case "current": try await current(path: path, count: count, iterations: iterations)
        case "stale": try await stale(path: path)
        default: throw BenchError("unknown phase \(phase)")
        }
    }

    private static func report(_ key: String, _ value: String) { print("scale \(key)\t\(value)") }
    private static func report(_ key: String, _ duration: Duration) { report(key, String(duration.milliseconds)) }

    /// Opens the catalog as the app does and times the first search ("a", the broadest).
    private static func openAndSearch(_ path: String) async throws -> (SQLiteBookRemote, BookRepository) {
        let clock = ContinuousClock()
        let start = clock.now
        let remote = try SQLiteCatalog.open(path: path, create: false).remote(account: "bench")
        let recording = AnswerRecordingRemote(remote)
        let repository = BookRepository(remote: recording)
        _ = try await repository.search(SearchQuery(text: "a"))
        report("first", clock.now - start)
        report("first answered by", answerName(recording.lastAnswer))
        return (remote, repository)
    }

    private static func answerName(_ source: SearchAnswerSource?) -> String {
        switch source {
        case .firstResults?: "first results"
        case .index?: "index"
        case .staleIndex?: "stale index"
        case .indexBehind?: "index behind"
        case .booksTable?: "books table"
        case .earlierScan?: "earlier scan"
        case .booksCopy?: "books copy"
        case .titleOrder?: "title order"
        case .leadingMatches?: "an earlier scan's first matches"
        case .orderedMatches?: "an earlier scan's matches in order"
        case .searchFunction?, .noSearchableWords?, .memory?, nil: "?"
        }
    }

    private static func reportIndex(_ remote: SQLiteBookRemote) async throws {
        let (index, stored) = try await remote.searchIndexReport()
        report("origin", index.origin == .built ? "built" : "loaded")
        report("index duration", index.duration)
        report("index bytes", String(index.bytes))
        report("index mapped", index.mapped ? "yes" : "no")
        report("stored", stored ? "yes" : "no")
    }

    private static func reportMemory(_ prefix: String = "") {
        report(prefix + "VmHWM", String(memoryStatus("VmHWM") ?? 0))
        report(prefix + "RssAnon", String(memoryStatus("RssAnon") ?? 0))
    }

    private static func missing(path: String) async throws {
        let peaks = ResidentPeaks()
        let (remote, _) = try await openAndSearch(path)
        await remote.finishIndexPreparation()
        let (anonymous, file) = peaks.stop()
        try await reportIndex(remote)
        reportMemory()
        report("peak RssAnon", String(anonymous))
        report("peak RssFile", String(file))
    }

    private static func current(path: String, count: Int, iterations: Int) async throws {
        let (remote, repository) = try await openAndSearch(path)
        try await reportIndex(remote)
        let table = try await ClassTable.measure(repository, iterations: iterations)
        for row in table.rows {
            report("p50 \(row.name)", row.timings.p50)
            report("p99 \(row.name)", row.timings.p99)
        }
        reportMemory()

        // Another program changes 10,000 books spread over the catalog, in one commit; the
        // next search catches the index up with them (or, past the overlay's limit, does not).
        let step = max(1, count / edits)
        let touched = try RawSQLiteSearch(path: path).touchBooks(every: step)
        report("edited", String(touched))
        let clock = ContinuousClock()
        var start = clock.now
        let caughtUp = try await remote.search(SearchQuery(text: "history"))
        report("catch-up", clock.now - start)
        report("catch-up answered by", answerName(caughtUp.source))
        start = clock.now
        let after = try await remote.search(SearchQuery(text: "river"))
        report("after catch-up", clock.now - start)
        report("after catch-up answered by", answerName(after.source))
        reportMemory("after edits ")
        // A rebuild the edits started is finished and stored, so the stale phase starts from it.
        await remote.finishIndexPreparation()
    }

    private static func stale(path: String) async throws {
        let (remote, _) = try await openAndSearch(path)
        // Leave a current index stored for the next run (the store decides whether to rebuild).
        await remote.finishIndexPreparation()
        try await reportIndex(remote)
        reportMemory()
    }
}

/// One column per count, one row per figure, in the style of `ClassTable`.
struct ScalingTable {
    let columns: [Figures]
    typealias Figures = SearchScaling.Figures

    func print() {
        let header =
            "".padding(toLength: 46, withPad: " ", startingAt: 0)
            + columns.map { cell(CountText.short(Int($0["count"] ?? "") ?? 0) + " books") }.joined()
        Swift.print(header)
        for queryClass in SearchBench.classes {
            row("search p50 / p99, \(queryClass.name)") { figures in
                guard let p50 = double(figures["current.p50 \(queryClass.name)"]),
                    let p99 = double(figures["current.p99 \(queryClass.name)"])
                else { return "-" }
                return String(format: "%.2f / %.2f ms", p50, p99)
            }
        }
        row("search p99, worst class") { figures in
            let worst = SearchBench.classes.compactMap { queryClass in
                double(figures["current.p99 \(queryClass.name)"]).map { (queryClass.name, $0) }
            }.max { $0.1 < $1.1 }
            return worst.map { String(format: "%.2f ms", $0.1) + " (\($0.0))" } ?? "-"
        }
        row("index file on disk (mapped)") { megabytes($0["index file bytes"]) }
        row("index base, where it is held") { figures in
            let bytes = megabytes(figures["current.index bytes"])
            return figures["current.index mapped"] == "yes" ? "\(bytes), mapped" : "\(bytes), anonymous"
        }
        row("peak process memory (VmHWM), index current") { kilobytes($0["current.VmHWM"]) }
        row("resident anonymous (RssAnon), index current") { kilobytes($0["current.RssAnon"]) }
        row("peak process memory, index built") { kilobytes($0["missing.VmHWM"]) }
        row("peak resident anonymous (RssAnon), build") { kilobytes($0["missing.peak RssAnon"]) }
        row("peak resident file pages (RssFile), build") { kilobytes($0["missing.peak RssFile"]) }
        row("full index build") { milliseconds($0["missing.index duration"]) }
        row("open → first result, index missing") { opening($0, "missing") }
        row("open → first result, index stale") { opening($0, "stale") }
        row("  (books changed since it was stored)") { figures in
            (Int(figures["stale.behind"] ?? "")).map { NumberText.grouped($0) } ?? "-"
        }
        row("open → first result, index current") { opening($0, "current") }
        row("catch-up after 10,000 edits (next search)") { figures in
            milliseconds(figures["current.catch-up"]) + " (" + (figures["current.catch-up answered by"] ?? "?") + ")"
        }
        row("the search after that") { figures in
            milliseconds(figures["current.after catch-up"]) + " ("
                + (figures["current.after catch-up answered by"] ?? "?") + ")"
        }
        Swift.print(
            "\nopen → first result: opening the catalog and a remote, then searching \"a\"; "
                + "in parentheses what answered it.")
        Swift.print(
            "catch-up answered by the books table: more changes than the index catches up with; the store "
                + "answered without it while it rebuilt.")
        Swift.print(
            "VmHWM of the current phase also counts the bench's deep-page set-up (a page of 100,000 books "
                + "read once to reach offset 100,000).")
        Swift.print(
            "memory: each state of the index is measured in a fresh process; a mapped index's pages "
                + "belong to the file (page cache), not to RssAnon, and so do a build's scratch files. The peaks "
                + "of RssAnon and RssFile are sampled every 5 ms, so they may miss a short spike; VmHWM is exact.")
    }

    private func row(_ label: String, _ value: (Figures) -> String) {
        Swift.print(label.padding(toLength: 46, withPad: " ", startingAt: 0) + columns.map { cell(value($0)) }.joined())
    }

    private func cell(_ text: String) -> String {
        text.count >= 30 ? text + "  " : text.padding(toLength: 32, withPad: " ", startingAt: 0)
    }

    private func opening(_ figures: Figures, _ phase: String) -> String {
        milliseconds(figures["\(phase).first"]) + " (" + (figures["\(phase).first answered by"] ?? "?") + ")"
    }

    private func double(_ text: String?) -> Double? { text.flatMap(Double.init) }

    private func milliseconds(_ text: String?) -> String {
        guard let value = double(text) else { return "-" }
        return value >= 1_000 ? String(format: "%.2f s", value / 1_000) : String(format: "%.1f ms", value)
    }

    private func megabytes(_ text: String?) -> String {
        guard let value = double(text) else { return "-" }
        return String(format: "%.1f MB", value / 1_000_000)
    }

    private func kilobytes(_ text: String?) -> String {
        guard let value = double(text), value > 0 else { return "-" }
        return String(format: "%.1f MB", value / 1_000)
    }
}

/// Counts as the tables print them.
enum CountText {
    /// "1M", "10M", "250k", "1,500".
    static func short(_ number: Int) -> String {
        if number >= 1_000_000, number % 1_000_000 == 0 { return "\(number / 1_000_000)M" }
        if number >= 1_000, number % 1_000 == 0 { return "\(number / 1_000)k" }
        return NumberText.grouped(number)
    }
}
