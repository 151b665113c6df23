import BookCatalog
import BookshelfTestSupport
import CommandLineOptions
import Foundation
import PostgresCatalog

/// A primary and a hot standby on this machine (issue 42): what serving reads from the standby
/// costs against the primary, how many reads a lagging standby sends back to the primary, and
/// how long a failover keeps saves away.
enum ReplicasBench: BenchMode {
    static let name = "replicas"
    static let summary =
        "PostgreSQL primary and standby: search per class from each, reads that fell back at a lag, typing with replay paused and after a standby restart, failover to a save"

    static let count = BenchNumber("count", default: 100_000, help: "books to load")
    static let iterations = BenchNumber(
        "iterations", default: 100, help: "timed searches per query class on each server")
    static let lag = BenchNumber(
        "lag", value: "MS", default: 500,
        help: "the standby's recovery_min_apply_delay while the fallbacks are counted")
    static let saves = BenchNumber("saves", default: 10, help: "saves the writer makes while the fallbacks are counted")
    static let saveEvery = BenchNumber(
        "save-every", value: "MS", default: 1_000, help: "time between the writer's saves")
    static let standbyWait = BenchNumber(
        "standby-wait", value: "MS", default: 250,
        help: "how long a read waits for the standby, as the app's --standby-wait")
    static let typingSeconds = BenchNumber(
        "typing-seconds", default: 10,
        help: "how long one person types through the app's model with replay running, and again with it paused")
    static let restartSeconds = BenchNumber(
        "restart-seconds", default: 30, help: "how long the person types after the standby is started again")
    static let options: [any OptionDeclaration] = [
        count, iterations, lag, saves, saveEvery, standbyWait, typingSeconds, restartSeconds,
    ]

    static let details = """
        Runs on two throwaway servers (a primary and a standby made from it with pg_basebackup -R),
        reading as the account \(PostgresBench.accountName) under row-level security. The typing runs
        press the bench's queries at 8 keys/s into the app's model with --reads standby, after a save,
        with replay running, then paused (pg_wal_replay_pause); then the standby is stopped, a query
        typed, and the standby started while the typing goes on. The failover at the end kills the
        primary (pg_ctl stop -m immediate) and promotes the standby.
        """

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let iterations = max(1, try arguments.value(Self.iterations))
        let lag = try arguments.value(Self.lag)
        let saves = max(1, try arguments.value(Self.saves))
        let saveEvery = max(1, try arguments.value(Self.saveEvery))
        let standbyWait = Duration.milliseconds(try arguments.value(Self.standbyWait))
        let typingSeconds = max(1, try arguments.value(Self.typingSeconds))
        let restartSeconds = max(1, try arguments.value(Self.restartSeconds))
        // Bounds that keep the run's length (saves × interval + lag) a sum that cannot overflow.
        guard lag <= 600_000, saveEvery <= 600_000, saves <= 10_000 else {
            throw UsageError("--lag and --save-every are at most 600000 ms (ten minutes), --saves at most 10000")
        }
        guard standbyWait <= .seconds(60), typingSeconds <= 3_600, restartSeconds <= 3_600 else {
            throw UsageError("--standby-wait is at most 60000 ms, --typing-seconds and --restart-seconds at most 3600")
        }
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench replicas` for real figures")
        #endif

        let (primary, probe, _) = try await PostgresBench.prepare(count: count, database: nil)
        guard let primary else { throw BenchError("no throwaway server") }
        defer { primary.stop() }
        // Made after the load, the standby starts with every book replayed. A hot standby needs
        // at least the primary's max_connections.
        let standby = try PostgresScratchServer(
            standbyOf: primary, settings: ["shared_buffers=1GB", "max_connections=40"])
        defer { standby.stop() }
        print("standby in \(standby.directory)")
        let pair = ServerPair(primary: primary, standby: standby, standbyWait: standbyWait)

        try await PairedSearch.measure(pair: pair, iterations: iterations).print(iterations: iterations)
        let hot = try await probe.search(SearchQuery(text: "", limit: 5)).records
        let floor = WALFloor()
        try await LaggedReads.measure(
            pair: pair, floor: floor, lag: lag, saves: saves, saveEvery: saveEvery, books: hot
        ).print()
        try await pair.delayStandby(milliseconds: 0)
        try await pair.waitForStandbyReplay(of: floor)
        guard hot.count > 1 else { throw BenchError("no book to save") }
        try await TypingOnStandby.measure(
            pair: pair, seconds: typingSeconds, restartSeconds: restartSeconds, book: hot[1]
        ).print()
        // The failover is timed from a standby that has every save: promoting it replays nothing late.
        try await pair.waitForStandbyReplay(of: floor)
        guard let book = hot.first else { throw BenchError("no book to save") }
        try await Failover.measure(pair: pair, bookID: book.id).print()
    }
}

/// The two servers and the connection strings that name them both, as a team writes them.
struct ServerPair {
    let primary: PostgresScratchServer
    let standby: PostgresScratchServer
    /// The reads' wait for the standby, unless a step asks for another.
    let standbyWait: Duration

    /// Both hosts, the standby first: libpq finds the primary for saves by asking. Connectors
    /// given one `floor` act as one app's sessions: none reads older than what another saw.
    func connector(reads: PostgresReads, standbyWait: Duration? = nil, floor: WALFloor = WALFloor())
        -> PostgresConnector
    {
        var connector = PostgresConnector(
            "host=\(standby.directory),\(primary.directory) port=\(standby.port),\(primary.port) dbname=bookshelf_bench",
            connectTimeoutSeconds: 5, reads: reads, standbyWait: standbyWait ?? self.standbyWait
        ).signingIn(as: PostgresBench.accountName)
        connector.floor = floor
        return connector
    }

    /// Both hosts, the primary first, as a team lists its servers before a failover.
    func primaryFirstConnector() -> PostgresConnector {
        PostgresConnector(
            "host=\(primary.directory),\(standby.directory) port=\(primary.port),\(standby.port) dbname=bookshelf_bench",
            connectTimeoutSeconds: 5
        ).signingIn(as: PostgresBench.accountName)
    }

    /// The standby applies each commit `milliseconds` after the primary made it.
    func delayStandby(milliseconds: Int) async throws {
        // ALTER SYSTEM takes no parameters; the value is a whole number of this program.
        try await runBlocking { [standby] in
            try standby.superuserSQL("ALTER SYSTEM SET recovery_min_apply_delay = \(milliseconds)")
            try standby.superuserSQL("SELECT pg_reload_conf()")
        }
    }

    /// Stops the standby's replay where it is (`pg_wal_replay_pause()`), or lets it go on.
    func pauseReplay(_ paused: Bool) async throws {
        try await runBlocking { [standby] in
            try standby.superuserSQL(paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()")
        }
    }

    /// Stops the standby (a fast shutdown: its sessions are ended), or starts it again.
    func runStandby(_ running: Bool) async throws {
        try await runBlocking { [standby] in try running ? standby.startServer() : standby.stopServer() }
    }

    /// Returns once the standby has replayed every save that raised `floor`: a standby read
    /// that may wait long for it.
    func waitForStandbyReplay(of floor: WALFloor) async throws {
        let remote = try await PostgresRemote.connect(
            connector(reads: .standby, standbyWait: .seconds(30), floor: floor))
        _ = try await remote.search(SearchQuery(text: "", limit: 1))
        guard remote.lastReadRoute?.servedByStandby == true else {
            throw BenchError("the standby did not catch up within 30 s")
        }
    }
}

/// Runs blocking work (a server tool) off the concurrency pool, which has a thread per core.
func runBlocking(_ work: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// Search per class through `BookRepository`, served by the standby and by the primary in
/// turns, so both see the same machine at the same moments.
struct PairedSearch {
    struct Row {
        let name: String
        var standby = Timings()
        var primary = Timings()
        /// Standby minus primary, per pair: what the standby path adds (the floor check).
        var added = Timings()
        var servedByStandby = 0
    }

    let rows: [Row]

    static func measure(pair: ServerPair, iterations: Int) async throws -> PairedSearch {
        let standbyRemote = try await PostgresRemote.connect(pair.connector(reads: .standby))
        let primaryRemote = try await PostgresRemote.connect(pair.connector(reads: .primary))
        let standby = BookRepository(remote: standbyRemote)
        let primary = BookRepository(remote: primaryRemote)
        var rows: [Row] = []
        for queryClass in SearchBench.classes {
            var row = Row(name: queryClass.name)
            var fromStandby: [SearchQuery] = []
            var fromPrimary: [SearchQuery] = []
            for query in queryClass.queries {
                fromStandby.append(try await ClassTable.reachable(query, in: standby))
                fromPrimary.append(try await ClassTable.reachable(query, in: primary))
            }
            for query in fromStandby { _ = try await standby.search(query) }
            for query in fromPrimary { _ = try await primary.search(query) }
            for iteration in 0..<iterations {
                let index = iteration % fromStandby.count
                // Alternating which goes first: neither server always finds the other's work done.
                var standbyTime = Duration.zero
                var primaryTime = Duration.zero
                for standbyTurn in iteration.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let clock = ContinuousClock()
                    let start = clock.now
                    if standbyTurn {
                        _ = try await standby.search(fromStandby[index])
                        standbyTime = clock.now - start
                        if standbyRemote.lastReadRoute?.servedByStandby == true { row.servedByStandby += 1 }
                    } else {
                        _ = try await primary.search(fromPrimary[index])
                        primaryTime = clock.now - start
                    }
                }
                row.standby.record(standbyTime)
                row.primary.record(primaryTime)
                row.added.record(standbyTime - primaryTime)
            }
            rows.append(row)
        }
        return PairedSearch(rows: rows)
    }

    func print(iterations: Int) {
        Swift.print(
            "\nsearch: BookRepository -> PostgresRemote as \(PostgresBench.accountName) (row-level security), \(iterations) pairs per class"
        )
        Swift.print("class        standby p50  standby p99  primary p50  primary p99  added p50    served by standby")
        var added = Timings()
        for row in rows {
            row.added.samples.forEach { added.record($0) }
            Swift.print(
                "\(row.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(row.standby.p50.formatted)  \(row.standby.p99.formatted)  \(row.primary.p50.formatted)  \(row.primary.p99.formatted)  \(row.added.p50.formatted)  \(row.servedByStandby)/\(row.standby.samples.count)"
            )
        }
        Swift.print(
            "the standby path adds \(added.p50.formatted) per search at the median of all pairs (standby minus primary)"
        )
    }
}

/// Reads from a delayed standby while a writer on the same connector saves now and then: each
/// save raises the floor past what the standby has applied, and reads wait, then fall back.
struct LaggedReads {
    let lag: Int
    let standbyWait: Duration
    let saves: Int
    let saveEvery: Int
    var served = Timings()
    var fellBack = Timings()

    static func measure(
        pair: ServerPair, floor: WALFloor, lag: Int, saves: Int, saveEvery: Int, books: [BookRecord]
    ) async throws -> LaggedReads {
        guard !books.isEmpty else { throw BenchError("no books to save") }
        try await pair.delayStandby(milliseconds: lag)
        let reading = pair.connector(reads: .standby, floor: floor)
        // Both sessions open from one connector and share its floor: the writer's saves raise the reader's.
        let writer = try await PostgresRemote.connect(reading)
        let readerRemote = try await PostgresRemote.connect(reading)
        let reader = BookRepository(remote: readerRemote)
        let queries = SearchBench.classes.flatMap(\.queries).filter { $0.offset == 0 }
        var result = LaggedReads(lag: lag, standbyWait: reading.standbyWait, saves: saves, saveEvery: saveEvery)

        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .milliseconds(saves * saveEvery + lag)
        async let writing: Void = write(
            books: books, saves: saves, every: .milliseconds(saveEvery), from: start, through: writer)
        var index = 0
        while clock.now < end {
            let began = clock.now
            _ = try await reader.search(queries[index % queries.count])
            let took = clock.now - began
            if readerRemote.lastReadRoute?.fellBack == true {
                result.fellBack.record(took)
            } else {
                result.served.record(took)
            }
            index += 1
        }
        try await writing
        return result
    }

    /// Saves the books in turn, one every `every` from `start`, each from the revision the last
    /// save of it made (nobody else saves them).
    private static func write(
        books: [BookRecord], saves: Int, every: Duration, from start: ContinuousClock.Instant,
        through remote: PostgresRemote
    ) async throws {
        var revisions = Dictionary(uniqueKeysWithValues: books.map { ($0.id, $0.revision) })
        for save in 1...saves {
            try await Task.sleep(until: start + every * save, clock: .continuous)
            let book = books[save % books.count]
            let saved = try await remote.save(
                SaveRequest(
                    id: book.id, title: "\(book.title) s\(save)", expectedRevision: revisions[book.id] ?? book.revision)
            )
            revisions[book.id] = saved.revision
        }
    }

    func print() {
        let reads = served.samples.count + fellBack.samples.count
        let share = Double(fellBack.samples.count) / Double(max(1, reads)) * 100
        Swift.print(
            "\nfallbacks: standby delayed by \(lag) ms, a save every \(saveEvery) ms (\(saves) saves), standby wait \(standbyWait.milliseconds) ms"
        )
        Swift.print(
            "\(reads) reads, \(fellBack.samples.count) fell back to the primary (\(String(format: "%.1f", share)) %)")
        Swift.print("served by the standby: p50 \(served.p50.formatted), p99 \(served.p99.formatted)")
        Swift.print("fell back:             p50 \(fellBack.p50.formatted), p99 \(fellBack.p99.formatted)")
    }
}

/// Kills the primary and promotes the standby while a repository over a multi-host connector
/// keeps trying to save: how long saves are away.
struct Failover {
    let killed: Duration
    let promoted: Duration
    let firstSave: Duration
    let failedAttempts: Int

    static func measure(pair: ServerPair, bookID: Int) async throws -> Failover {
        let repository = BookRepository(remote: try await PostgresRemote.connect(pair.primaryFirstConnector()))
        let before = try await repository.book(id: bookID, policy: .refresh)
        let clock = ContinuousClock()
        let start = clock.now
        try await runBlocking { [primary = pair.primary] in try primary.stopServerImmediately() }
        let killed = clock.now - start
        async let promoting = promote(pair.standby, since: start)
        var failed = 0
        while true {
            do {
                let base = try await repository.book(id: bookID, policy: .refresh)
                _ = try await repository.save(
                    SaveRequest(id: bookID, title: "\(before.title) after failover", expectedRevision: base.revision))
                break
            } catch {
                failed += 1
                guard clock.now - start < .seconds(60) else {
                    throw BenchError("no save succeeded within 60 s of killing the primary: \(error)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let firstSave = clock.now - start
        return Failover(killed: killed, promoted: try await promoting, firstSave: firstSave, failedAttempts: failed)
    }

    /// Promotes `standby` and returns when it accepts writes (`pg_promote` waits for that).
    private static func promote(_ standby: PostgresScratchServer, since start: ContinuousClock.Instant) async throws
        -> Duration
    {
        try await runBlocking { try standby.superuserSQL("SELECT pg_promote(true, 60)") }
        return ContinuousClock.now - start
    }

    func print() {
        Swift.print("\nfailover: primary killed (pg_ctl stop -m immediate), standby promoted (pg_promote)")
        Swift.print("kill returned after        \(killed.formatted)")
        Swift.print("pg_promote returned after  \(promoted.formatted)")
        Swift.print("first save committed after \(firstSave.formatted) (\(failedAttempts) attempts failed before)")
    }
}
