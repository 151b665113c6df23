import BookCatalog
import BookshelfTestSupport
import CommandLineOptions
import Foundation
import PostgresCatalog
#if canImport(Glibc)
    import Glibc
#endif

/// Search latency and concurrent saves on a PostgreSQL catalog, through the stack the app
/// uses (BookRepository -> PostgresRemote), on a throwaway server or on `--db`.
enum PostgresBench: BenchMode {
    static let name = "postgres"
    static let summary = "PostgreSQL: bulk load, search p50/p99 per query class, saves/s with concurrent writers"

    static let count = BenchNumber(
        "count", default: 1_000_000, help: "books to load (reused if the catalog already holds N)")
    static let db = Option<String>(
        "db", value: "CONNINFO",
        help: """
            an administrative connection (URL or keyword string) to a database to
            set up and use; default: a throwaway server in a temporary directory
            (needs the PostgreSQL server binaries; as root they run as `postgres`)
            """)
    static let iterations = BenchNumber("iterations", default: 100, help: "timed searches per query class")
    static let writers = BenchNumber("writers", default: 8, help: "concurrent writers, each on its own connection")
    static let seconds = BenchNumber("seconds", default: 10, help: "how long the writers run")
    static let hotBooks = BenchNumber("hot-books", default: 100, help: "how many books the writers fight over")
    static let sessions = BenchNumber(
        "sessions", default: 16,
        help: "people typing at once (8 keys/s each) while 2 writers save, through the app's model; 0 skips it")
    static let typingSeconds = BenchNumber("typing-seconds", default: 20, help: "how long the sessions type")
    static let typingWriterRate = BenchNumber(
        "typing-writer-rate", default: 0,
        help: "saves a second each of the 2 writers beside the typing makes, as people save; 0: as fast as it can")
    static let options: [any OptionDeclaration] = [
        count, db, iterations, writers, seconds, hotBooks, sessions, typingSeconds, typingWriterRate,
    ]

    static let scope = "bench"
    static let accountName = "bench_editor"

    static func run(_ arguments: ParsedArguments) async throws {
        let count = try arguments.value(Self.count)
        let iterations = max(1, try arguments.value(Self.iterations))
        let writers = max(1, try arguments.value(Self.writers))
        let seconds = max(1, try arguments.value(Self.seconds))
        let hotBooks = max(1, try arguments.value(Self.hotBooks))
        let sessions = try arguments.value(Self.sessions)
        let typingSeconds = max(1, try arguments.value(Self.typingSeconds))
        let typingWriterRate = try arguments.value(Self.typingWriterRate)
        #if DEBUG
            print("warning: debug build; use `swift run -c release bookshelf-bench postgres` for real figures")
        #endif

        let (server, probe, user) = try await prepare(count: count, database: arguments.value(db))
        defer { server?.stop() }
        // The server's CPU time, from the server's processes on this machine (a throwaway server).
        let origin = ServerCPUTime()
        let serverCPU = server == nil ? nil : { () -> Duration? in origin.flatMap { ServerCPUTime()?.used(since: $0) } }
        let table = try await ClassTable.measure(
            BookRepository(remote: probe), iterations: iterations, serverCPU: serverCPU)
        table.print(
            title:
                "search: BookRepository -> PostgresRemote as \(accountName) (row-level security), \(iterations) searches per class"
        )

        if sessions > 0 {
            try await typing(
                sessions: sessions, seconds: typingSeconds, writerRate: typingWriterRate, hotBooks: hotBooks,
                connector: user, probe: probe)
        }
        try await saves(writers: writers, seconds: seconds, hotBooks: hotBooks, connector: user, probe: probe)
    }

    /// `sessions` people type for `seconds` while two writers save (issue 41), `writerRate` times a
    /// second each or as fast as they can (0): the keys' times per class, the server's share of the
    /// machine, and the writers' conflicts and lost updates.
    static func typing(
        sessions: Int, seconds: Int, writerRate: Int, hotBooks: Int, connector: PostgresConnector,
        probe: PostgresRemote
    ) async throws {
        let cpuBefore = ServerCPUTime()
        let clock = ContinuousClock()
        let start = clock.now
        async let saving: Void = saves(
            writers: 2, seconds: seconds, rate: writerRate, hotBooks: hotBooks, connector: connector, probe: probe)
        let keys = try await TypingSessions.run(
            sessions: sessions, seconds: seconds, keysPerSecond: 8, connector: connector, account: accountName)
        try await saving
        let elapsed = clock.now - start
        TypingSessions.print(
            keys,
            title:
                "typing: \(sessions) sessions at 8 keys/s for \(seconds) s beside 2 writers (\(writerRate == 0 ? "saving as fast as they can" : "\(writerRate) saves/s each")), key to page published (the model, BookRepository -> PostgresRemote)"
        )
        if let cpuBefore, let cpuAfter = ServerCPUTime() {
            let share = cpuAfter.share(since: cpuBefore, over: elapsed)
            print("server CPU: \(String(format: "%.0f", share * 100)) % of the machine's cores while they typed")
        } else {
            print("server CPU: unknown (no /proc)")
        }
    }

    /// A catalog holding `count` benchmark books in scope "bench" (on a throwaway server
    /// unless `database` names one), and a remote signed in as the non-owner account.
    static func prepare(count: Int, database: String?) async throws -> (
        PostgresScratchServer?, PostgresRemote, PostgresConnector
    ) {
        let server: PostgresScratchServer?
        let admin: PostgresConnector
        if let database {
            server = nil
            admin = PostgresConnector(database)
        } else {
            let started: PostgresScratchServer
            do {
                started = try PostgresScratchServer(settings: ["shared_buffers=1GB", "max_connections=40"])
            } catch {
                throw BenchError("cannot start a throwaway PostgreSQL server (\(error)); pass --db")
            }
            server = started
            admin = try await benchDatabase(on: started)
            print("throwaway PostgreSQL server in \(started.directory)")
        }
        do {
            print("catalog: \(admin)")
            let setup = try await PostgresSetup.connect(admin)
            try await setup.migrate()
            try await setup.addAccount(Account(name: accountName, role: .editor, scope: scope))
            let user = admin.signingIn(as: accountName)
            let probe = try await PostgresRemote.connect(user)
            let present = try await probe.search(SearchQuery(text: "", limit: 0)).totalCount
            switch present {
            case .exact(0):
                try await load(count: count, into: setup)
                // The load's pages are written back now, not by a checkpoint during what is timed
                // next (the load fills max_wal_size, so one is due).
                try server?.superuserSQL("CHECKPOINT")
            case .exact(count), .about:
                // Past the counting limit the catalog gives an estimate: good enough to reuse it.
                print("reusing the books in scope \"\(scope)\" (\(ClassTable.text(present)))")
            default:
                throw BenchError(
                    "scope \"\(scope)\" already holds \(ClassTable.text(present)) books, not \(count); use an empty database"
                )
            }
            return (server, probe, user)
        } catch {
            server?.stop()
            throw error
        }
    }

    static func load(count: Int, into setup: PostgresSetup) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        var books = BenchBooks(count: count)
        var loaded = 0
        while loaded < count {
            var batch: [NewBook] = []
            batch.reserveCapacity(50_000)
            while batch.count < 50_000, let book = books.next() { batch.append(book) }
            loaded += try await setup.importBooks(batch, scope: scope)
        }
        let copied = clock.now - start
        try await setup.analyze()
        print(
            "loaded \(loaded) books by COPY in \(copied.formatted), VACUUM ANALYZE done at \((clock.now - start).formatted)"
        )
    }

    /// Writers save random hot books from fresh reads for a while, each `rate` times a second or
    /// as fast as it can (0); each save is compare-and-set, so a lost update would show as a
    /// revision count that disagrees with the number of successful saves, or as two successes
    /// claiming one revision.
    static func saves(
        writers: Int, seconds: Int, rate: Int = 0, hotBooks: Int, connector: PostgresConnector, probe: PostgresRemote
    ) async throws {
        let hot = try await probe.search(SearchQuery(text: "", limit: hotBooks)).records
        var before: [Int: Int] = [:]
        for book in hot { before[book.id] = try await probe.load(id: book.id).revision }
        var remotes: [PostgresRemote] = []
        for _ in 0..<writers { remotes.append(try await PostgresRemote.connect(connector)) }

        struct Tally: Sendable {
            var wins: [Int: [Int]] = [:]  // book id -> revisions produced
            var conflicts = 0
            var latencies: [Duration] = []
        }
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .seconds(seconds)
        let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
            for (writer, remote) in remotes.enumerated() {
                group.addTask {
                    var tally = Tally()
                    var generator = SystemRandomNumberGenerator()
                    var round = 0
                    while clock.now < end {
                        if rate > 0 {
                            try await Task.sleep(until: start + .milliseconds(round * 1_000 / rate), clock: clock)
                            guard clock.now < end else { break }
                        }
                        let book = hot[Int.random(in: 0..<hot.count, using: &generator)]
                        let base = try await remote.load(id: book.id)
                        let began = clock.now
                        do {
                            let saved = try await remote.save(
                                SaveRequest(
                                    id: book.id, title: savedTitle(book.title, writer: writer, round: round),
                                    expectedRevision: base.revision))
                            tally.wins[book.id, default: []].append(saved.revision)
                        } catch BookFailure.conflict {
                            tally.conflicts += 1
                        }
                        tally.latencies.append(clock.now - began)
                        round += 1
                    }
                    return tally
                }
            }
            return try await group.reduce(into: [Tally]()) { $0.append($1) }
        }
        let elapsed = clock.now - start
        var wins: [Int: [Int]] = [:]
        var timings = Timings()
        for tally in tallies {
            tally.wins.forEach { wins[$0.key, default: []] += $0.value }
            tally.latencies.forEach { timings.record($0) }
        }
        let conflicts = tallies.reduce(0) { $0 + $1.conflicts }
        let committed = wins.values.reduce(0) { $0 + $1.count }
        var after: [Int: Int] = [:]
        for book in hot { after[book.id] = try await probe.load(id: book.id).revision }
        let lost = LostUpdates.count(wins: wins, before: before, after: after)
        let perSecond = Double(committed) / (elapsed.milliseconds / 1000)
        print(
            "\nsaves: \(writers) writers on \(hot.count) hot books for \(String(format: "%.1f", elapsed.milliseconds / 1000)) s"
        )
        print(
            "committed \(committed) (\(String(format: "%.0f", perSecond))/s), conflicts \(conflicts), lost updates \(lost)"
        )
        print("save latency p50 \(timings.p50.formatted), p99 \(timings.p99.formatted)")
        if lost != 0 { throw BenchError("lost updates detected: \(lost)") }
    }
}

extension PostgresBench {
    /// What a writer saves as a hot book's title: its title without the marks earlier runs left,
    /// and this save's mark. Marking the title as loaded added a mark a run on a reused catalog,
    /// until the title passed 500 characters and the run stopped on a refused save.
    static func savedTitle(_ title: String, writer: Int, round: Int) -> String {
        var base = Substring(title)
        while let mark = base.range(of: #" w\d+ r\d+$"#, options: .regularExpression) {
            base = base[..<mark.lowerBound]
        }
        return "\(base) w\(writer) r\(round)"
    }

    /// A `bookshelf_bench` database on the throwaway server, administered by its superuser.
    static func benchDatabase(on server: PostgresScratchServer) async throws -> PostgresConnector {
        let setup = try await PostgresSetup.connect(PostgresConnector(server.conninfo()))
        try await setup.createDatabase(named: "bookshelf_bench")
        return PostgresConnector(server.conninfo(database: "bookshelf_bench"))
    }
}
