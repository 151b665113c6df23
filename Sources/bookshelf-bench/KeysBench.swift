import BookCatalog
import BookshelfModel
import BookshelfUI
import CommandLineOptions
import Foundation
import SQLiteCatalog
import SearchEngine
import Synchronization
import TerminalUI

/// Keystroke-to-paint latency of the interactive app on a large SQLite catalog: the real app
/// over `SQLiteBookRemote`, typing queries one character at a time (`TypedApp`, which says how
/// a key is timed), with the catalog's index stored and current, stale (`--cold`) or missing.
enum KeysBench: BenchMode {
    static let name = "keys"
    static let summary =
        "keystroke-to-paint latency of the app (model + screen) on an SQLite catalog (p50/p99, peak memory)"

    static let count = BenchNumber("count", default: 1_000_000, help: "books in the catalog")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: """
            catalog file, shared with the search mode: reused when it holds exactly N
            benchmark books, rebuilt otherwise
            (default: bookshelf-bench-N.sqlite in the temporary directory)
            """)
    static let rounds = BenchNumber("rounds", default: 3, help: "times the whole query set is typed")
    static let columns = BenchNumber("columns", value: "C", default: 120, help: "screen width")
    static let rows = BenchNumber("rows", value: "R", default: 40, help: "screen height")
    static let cold = Flag(
        "cold",
        help: """
            the cold case: before the app opens the catalog, another program changes more
            books than a stored index catches up with, so the app must rebuild its index;
            typing starts at once, and keys are reported apart while the index is built
            (searches answered from the books table) and once it is ready
            """)
    static let noIndex = Flag(
        "no-index", help: "the same with no stored index at all (deleted first), as on a catalog's first open")
    static let changesBeforeClearing = BenchNumber(
        "changes-before-clearing", value: "K", default: 0,
        help: """
            before each Ctrl-U, another program changes about K books, so the app's index
            is behind when the query is cleared (the case of the firstResults strategy)
            """)
    static let eachKey = Flag("each", help: "print every typed key's time and what answered it")
    static let manyArenas = Flag(
        "many-arenas",
        help: """
            leave glibc's malloc arenas at their default (one per thread that allocates
            at once); the app limits itself to one, and so does this mode
            """)
    static let without = Option<SearchStrategy>(
        "without", value: "STRATEGY",
        help: """
            the app's remote never asks this search strategy, to measure what it
            buys on its own case: \(skippableNames)
            """
    ) { text throws(UsageError) in
        guard let strategy = SearchStrategy(rawValue: text), skippable.contains(strategy) else {
            throw UsageError("--without needs one of \(skippableNames), not \(text.printable)")
        }
        return strategy
    }
    /// The ways the engine asks (not what one answered from); the books table answers whatever
    /// the others decline, so it cannot be left out.
    static let skippable = SearchStrategy.asked.filter { $0 != .booksTable }
    static var skippableNames: String { skippable.map(\.rawValue).joined(separator: ", ") }
    static let options: [any OptionDeclaration] = [
        count, db, rounds, columns, rows, cold, noIndex, changesBeforeClearing, without, eachKey, manyArenas,
    ]

    static let details = """
        A key is timed until its page is on screen. While an index is built or caught up, the
        page may come first from the title order, "counting…", and its count after: that is
        timed apart ("→ its count"), and the next key is typed only once it has come.

        Peak memory is the process's VmHWM, reset (Linux clear_refs) after the catalog is ready,
        so it covers the app: model, search index, screen. The share of the machine's CPU time
        that other guests of a virtual machine took during the run is reported beside it.
        """

    /// Typed one character at a time, then cleared with Ctrl-U (also a timed key).
    static let queries = [
        "history of rome", "the secret garden", "war and peace", "murakami", "日本の歴史", "cafe society",
        "a", "zzqx", "night river", "tolstoy", "lost city of gold", "ångström",
    ]

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let rounds = max(1, try arguments.value(Self.rounds))
        let size = TerminalSize(
            rows: max(10, try arguments.value(Self.rows)), columns: max(40, try arguments.value(Self.columns)))
        let path =
            arguments.value(db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-bench-\(count).sqlite").path
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench keys` for real figures")
        #endif
        let catalog = try SearchBench.prepareCatalog(path: path, count: count)
        if arguments.isSet(cold) { try await makeStoredIndexStale(catalog, count: count) }
        if arguments.isSet(noIndex) {
            try catalog.discardSearchSnapshots()
            print("cold case: no stored index; the app must build it")
        }
        let reset = resetPeakMemory()
        print(
            "peak memory before the app starts: \(peakMemory())\(reset ? " (reset)" : " (could not reset; includes the catalog build)")"
        )
        let skipped = Set(try arguments.value(without).map { [$0] } ?? [])
        if let strategy = skipped.first { print("the app's remote never asks \(strategy.rawValue)") }
        let changes = max(0, try arguments.value(changesBeforeClearing))
        let otherProgram = try changes > 0 ? OtherProgram(path: path, count: count, changes: changes) : nil
        try await measure(
            catalog: catalog, path: path, rounds: rounds, size: size, skipped: skipped, otherProgram: otherProgram,
            each: arguments.isSet(eachKey))
    }

    /// Another program saving books while the app runs: before each Ctrl-U it changes every
    /// `step`th book, so the index the app installed is behind when the query is cleared.
    struct OtherProgram {
        let connection: RawSQLiteSearch
        let step: Int

        init(path: String, count: Int, changes: Int) throws {
            connection = try RawSQLiteSearch(path: path)
            step = max(1, count / changes)
            print("before each Ctrl-U another program changes every \(step)th book (\(count / step) books)")
        }

        func save() throws { _ = try connection.touchBooks(every: step) }
    }

    /// Stores an index (if none is), then changes, as another program, twice as many books as
    /// an index catches up with (`1,024 + books / 96`): the next open finds its stored index stale.
    static func makeStoredIndexStale(_ catalog: SQLiteCatalog, count: Int) async throws {
        _ = try await catalog.remote(account: "bench").searchIndexReport()
        let limit = 1_024 + count / 96
        let touched = try RawSQLiteSearch(path: catalog.path).touchBooks(every: max(1, count / (2 * limit)))
        print(
            "cold case: \(touched) books changed by another program since the index was stored "
                + "(an index catches up with at most \(limit)); the app must rebuild it")
        // The set-up's writes (the index it built and stored, the changed rows) go to disk now,
        // not while the app is measured: the kernel writing back hundreds of megabytes beside
        // the typing slowed the slowest keys from about 20 to 30-40 ms.
        sync()
    }

    @MainActor
    static func measure(
        catalog: SQLiteCatalog, path: String, rounds: Int, size: TerminalSize, skipped: Set<SearchStrategy>,
        otherProgram: OtherProgram?, each: Bool
    ) async throws {
        let machineAtStart = MachineTime()
        let connector = BenchConnector(catalog: catalog, skipped: skipped)
        let model = BookshelfModel(connector: connector, account: "bench")
        let typed = TypedApp(model: model, store: StoreInfo(kind: "SQLite", location: path), size: size)
        let peaks = ResidentPeaks()
        try await typed.open(as: "bench").print()
        let keys = try await typed.type(queries, rounds: rounds, each: each) {
            if let otherProgram { try otherProgram.save() }
        }
        keys.print()
        print("\ntarget: p99 under 16 ms; peak memory under 64 MB")
        print("peak memory (since the reset): \(peakMemory())")
        let (anonymous, file) = peaks.stop()
        print(
            "peak resident anonymous memory (RssAnon): \(anonymous) kB; file pages (RssFile, the catalog, the index, a build's scratch files): \(file) kB"
        )
        if let machineAtStart, let stolen = MachineTime()?.stolenShare(since: machineAtStart) {
            print("CPU time stolen by other guests of this machine during the run: \(Int((stolen * 100).rounded())) %")
        }
    }

    /// Resets VmHWM to the current resident size (Linux 4.0+), so the peak that follows is the app's.
    static func resetPeakMemory() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}
/// The app's connector for the benchmark's account, keeping the remote it opened so that the
/// bulk mode can ask how its searches were answered (the keys mode reads the model's request log,
/// `TypedApp`), without the strategies `--without` leaves out.
final class BenchConnector: CatalogConnector {
    private let base: SQLiteConnector
    private let skipped: Set<SearchStrategy>
    private let opened = Mutex<AnswerRecordingRemote?>(nil)

    init(catalog: SQLiteCatalog, skipped: Set<SearchStrategy>) {
        base = SQLiteConnector(catalog: catalog)
        self.skipped = skipped
    }

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        let recording = AnswerRecordingRemote(try base.catalog.remote(account: account, without: skipped))
        opened.withLock { $0 = recording }
        return recording
    }

    func lastSearchAnswer() async -> SearchAnswerSource? { opened.withLock { $0 }?.lastAnswer }
}
