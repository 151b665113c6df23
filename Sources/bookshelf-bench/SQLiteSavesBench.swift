import BookCatalog
import CommandLineOptions
import Foundation
import SQLiteCatalog

/// Several processes saving against one SQLite catalog file for a fixed time: committed saves
/// per second, p99 save latency, and lost updates, counted as the PostgreSQL bench counts them.
/// Every save is a compare-and-set from a fresh read, and each writer process logs every save
/// it saw succeed with the revision it produced; the revisions a book went through from the
/// start to its stored revision must each have been produced by exactly one logged save.
/// A gap (a revision nobody logged) or a double claim is a lost update.
///
/// The writers are this program again (`--writer`), so they are separate processes with their
/// own connections, as separate users' app processes would be. A writer writes its log line
/// straight to its file after each commit, so the log survives `kill -9` (the fault tests use
/// a writer that way).
enum SQLiteSavesBench: BenchMode {
    static let name = "saves"
    static let summary = "N processes saving the same books of one SQLite catalog: saves/s, p99 latency, lost updates"

    static let processes = BenchNumber("processes", default: 8, help: "writer processes")
    static let seconds = BenchNumber("seconds", value: "S", default: 10, help: "how long they save")
    static let books = BenchNumber(
        "books", value: "B", default: 20, help: "books they all save, chosen at random each time")
    static let db = Option<String>(
        "db", value: "PATH", completes: .file,
        help: """
            catalog file to create (default: a new file in the temporary directory;
            an existing file is refused)
            """)
    static let options: [any OptionDeclaration] = [processes, seconds, books, db]

    static let writer = Flag("writer", help: "be one writer process (see below)")
    static let log = Option<String>("log", value: "FILE", help: "the writer's log")
    static let internalOptions: [any OptionDeclaration] = [writer, log]

    static let details = """
        Writer mode, used by the parent and by the fault tests:
          bookshelf-bench saves --writer --db PATH --seconds S --books B --log FILE
        saves the first B books of the catalog (account "bench") until S seconds pass and
        appends "saved ID REVISION MICROSECONDS", "conflict ID MICROSECONDS" or
        "failed ID MICROSECONDS MESSAGE" to FILE after each attempt.
        """

    static let account = "bench"

    static func run(_ arguments: ParsedArguments) async throws {
        let seconds = try arguments.value(Self.seconds)
        let books = max(1, try arguments.value(Self.books))
        if arguments.isSet(writer) {
            guard let path = arguments.value(db), let log = arguments.value(log) else {
                throw UsageError("--writer needs --db and --log")
            }
            try await write(path: path, seconds: seconds, books: books, log: log)
            return
        }
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench saves` for real figures")
        #endif
        let processes = max(1, try arguments.value(Self.processes))
        let path =
            arguments.value(db)
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "bookshelf-saves-\(UUID().uuidString).sqlite"
            ).path
        guard !FileManager.default.fileExists(atPath: path) else { throw BenchError("\(path) exists; give a new file") }
        try await measure(path: path, processes: processes, seconds: seconds, books: books)
    }

    // MARK: Parent

    static func measure(path: String, processes: Int, seconds: Int, books: Int) async throws {
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: account, role: .editor, scope: "main"))
        _ = try catalog.insertBooks(
            (0..<books).map { NewBook(title: "Contended book \($0)", author: "Bench") }, scope: "main")
        let probe = try catalog.remote(account: account)
        let hot = try await hotBooks(probe, count: books)
        var before: [Int: Int] = [:]
        for book in hot { before[book.id] = book.revision }

        let directory = (path as NSString).deletingLastPathComponent
        let logs = (0..<processes).map { "\(directory)/bookshelf-saves-writer-\(getpid())-\($0).log" }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let clock = ContinuousClock()
        let start = clock.now
        let writers = try logs.map { log in
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                name, "--writer", "--db", path, "--seconds", "\(seconds)", "--books", "\(books)", "--log", log,
            ]
            try process.run()
            return process
        }
        for writer in writers { writer.waitUntilExit() }
        let elapsed = clock.now - start
        for (index, writer) in writers.enumerated() where writer.terminationStatus != 0 {
            throw BenchError("writer \(index) exited with \(writer.terminationStatus)")
        }

        var wins: [Int: [Int]] = [:]
        var timings = Timings()
        var conflicts = 0, failures: [String] = []
        for log in logs {
            let entries = try WriterLog.read(log)
            defer { try? FileManager.default.removeItem(atPath: log) }
            for entry in entries {
                timings.record(.microseconds(entry.microseconds))
                switch entry.outcome {
                case .saved(let revision): wins[entry.id, default: []].append(revision)
                case .conflict: conflicts += 1
                case .failed(let message): failures.append(message)
                }
            }
        }
        var after: [Int: Int] = [:]
        for book in hot { after[book.id] = try await probe.load(id: book.id).revision }
        let lost = LostUpdates.count(wins: wins, before: before, after: after)
        let committed = wins.values.reduce(0) { $0 + $1.count }
        let perSecond = Double(committed) / (elapsed.milliseconds / 1000)
        print(
            "saves: \(processes) processes on \(hot.count) books of one SQLite catalog for \(String(format: "%.1f", elapsed.milliseconds / 1000)) s"
        )
        print(
            "committed \(committed) (\(String(format: "%.0f", perSecond))/s), conflicts \(conflicts), failed \(failures.count), lost updates \(lost)"
        )
        print(
            "save latency p50 \(timings.p50.formatted), p99 \(timings.p99.formatted), max \(timings.percentile(1).formatted)"
        )
        if let failure = failures.first { print("first failure: \(failure)") }
        try? FileManager.default.removeItem(atPath: path)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        if lost != 0 { throw BenchError("lost updates detected: \(lost)") }
        if !failures.isEmpty { throw BenchError("\(failures.count) saves failed") }
    }

    /// The `count` books every writer saves: the first ones in title order.
    static func hotBooks(_ remote: SQLiteBookRemote, count: Int) async throws -> [BookRecord] {
        try await remote.search(SearchQuery(text: "", limit: count)).records
    }

    // MARK: Writer

    static func write(path: String, seconds: Int, books: Int, log logPath: String) async throws {
        let remote = try SQLiteCatalog.open(path: path, create: false).remote(account: account)
        let hot = try await hotBooks(remote, count: books)
        guard !hot.isEmpty else { throw BenchError("the catalog has no books for account \(account)") }
        let log = try WriterLog(path: logPath)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var round = 0
        while clock.now < end {
            let book = hot.randomElement()!
            let base = try await remote.load(id: book.id)
            let began = clock.now
            do {
                let saved = try await remote.save(
                    SaveRequest(
                        id: book.id, title: "Contended book \(book.id) p\(getpid()) r\(round)",
                        expectedRevision: base.revision))
                log.append("saved \(book.id) \(saved.revision) \(microseconds(clock.now - began))")
            } catch BookFailure.conflict {
                log.append("conflict \(book.id) \(microseconds(clock.now - began))")
            } catch {
                log.append("failed \(book.id) \(microseconds(clock.now - began)) \(error)")
            }
            round += 1
        }
    }

    static func microseconds(_ duration: Duration) -> Int { Int(duration.milliseconds * 1000) }
}

/// A writer's log: one line per save attempt, written with one `write(2)` each, so every line
/// of a save that returned is on disk even if the process is killed right after.
struct WriterLog {
    enum Outcome { case saved(revision: Int), conflict, failed(String) }
    struct Entry {
        let id: Int
        let outcome: Outcome
        let microseconds: Int64
    }

    private let descriptor: Int32

    init(path logPath: String) throws {
        descriptor = open(logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw BenchError("cannot open \(logPath)") }
    }

    func append(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }

    static func read(_ path: String) throws -> [Entry] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 4).map(String.init)
            guard fields.count >= 3, let id = Int(fields[1]) else { return nil }
            switch fields[0] {
            case "saved":
                return Entry(
                    id: id, outcome: .saved(revision: Int(fields[2]) ?? 0), microseconds: Int64(fields[3]) ?? 0)
            case "conflict": return Entry(id: id, outcome: .conflict, microseconds: Int64(fields[2]) ?? 0)
            default:
                return Entry(
                    id: id, outcome: .failed(fields.dropFirst(3).joined(separator: " ")),
                    microseconds: Int64(fields[2]) ?? 0)
            }
        }
    }
}
