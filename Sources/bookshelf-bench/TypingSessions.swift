import BookCatalog
import BookshelfModel
import Foundation
import PostgresCatalog

/// Many people typing at once (issue 41): each session is a real `BookshelfModel` signed in to
/// PostgreSQL as the bench account, as the app runs it, and types the bench's queries a
/// character at a time at a human pace, clearing the line after each. A key's time runs from
/// the key to its search's page published in that session's model; a key typed while the search
/// before it is still out waits for it (a person would have typed on, and the older answer
/// would have been dropped: measuring that would hide the slow answers).
enum TypingSessions {
    /// What one typed key measured: the class of the query it was part of ("empty query" for the
    /// clearing key), and how long until its page was published.
    struct Key: Sendable {
        let queryClass: String
        let duration: Duration
    }

    /// The classes typed: every class of `SearchBench.classes` but the deep page, which is
    /// reached by scrolling, not typing.
    static var typed: [SearchBench.QueryClass] { SearchBench.classes.filter { $0.name != "deep page" } }

    @MainActor
    static func run(
        sessions count: Int, seconds: Int, keysPerSecond: Double, connector: PostgresConnector, account: String
    ) async throws -> [Key] {
        var models: [BookshelfModel] = []
        for _ in 0..<count { models.append(try await signIn(connector: connector, account: account)) }
        let interval = Duration.seconds(1 / keysPerSecond)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var keys: [Key] = []
        let typists = models.enumerated().map { number, model in
            // Each session starts elsewhere in the list, so that every class is typed all along.
            Task { @MainActor in
                await type(into: model, startingAt: number * queries.count / count, every: interval, until: end)
            }
        }
        for typist in typists { keys += await typist.value }
        return keys
    }

    /// A real app model signed in as `account` through `connector`, its first requests done.
    @MainActor
    static func signIn(connector: PostgresConnector, account: String) async throws -> BookshelfModel {
        let opened = try await PostgresRemote.connect(connector)
        let model = BookshelfModel(
            connector: PostgresAccountConnector(connector: connector, opened: opened), account: account)
        if let request = model.start() { await model.finished(request: request) }
        await settle(model)
        guard model.state.account == account else {
            throw BenchError("a typing session did not sign in: \(model.state.connection.error ?? "unknown")")
        }
        return model
    }

    /// Returns once every request of `model` has finished.
    @MainActor
    static func settle(_ model: BookshelfModel) async {
        while let request = model.runningRequests.first { await model.finished(request: request) }
    }

    /// Every query typed, with its class, in the bench's order.
    static let queries: [(queryClass: String, text: String)] = typed.flatMap { queryClass in
        queryClass.queries.map { (queryClass.name, $0.text) }
    }.filter { !$0.text.isEmpty }

    /// Types query after query into `model`, from the `first`, until `end`.
    @MainActor
    private static func type(
        into model: BookshelfModel, startingAt first: Int, every interval: Duration, until end: ContinuousClock.Instant
    ) async -> [Key] {
        let clock = ContinuousClock()
        var keys: [Key] = []
        var next = first
        while clock.now < end {
            let (queryClass, text) = queries[next % queries.count]
            next += 1
            var prefixes = text.indices.map { String(text[...$0]) }.map { (queryClass, $0) }
            prefixes.append(("empty query", ""))
            for (keyClass, prefix) in prefixes where clock.now < end {
                let pressed = clock.now
                if let request = model.setQuery(prefix) { await model.finished(request: request) }
                keys.append(Key(queryClass: keyClass, duration: clock.now - pressed))
                try? await Task.sleep(until: pressed + interval, clock: clock)
            }
        }
        return keys
    }

    /// The table of keys per class, in the bench's class order.
    static func print(_ keys: [Key], title: String) {
        Swift.print("\n\(title)")
        Swift.print("class          p50          p99          max    keys")
        for queryClass in typed.map(\.name) {
            var timings = Timings()
            for key in keys where key.queryClass == queryClass { timings.record(key.duration) }
            guard !timings.samples.isEmpty else { continue }
            Swift.print(
                "\(queryClass.padding(toLength: 12, withPad: " ", startingAt: 0)) \(timings.p50.formatted)  \(timings.p99.formatted)  \(timings.percentile(1).formatted)    \(timings.samples.count)"
            )
        }
    }
}

/// The CPU time the PostgreSQL server's processes on this machine have used, from /proc: each
/// live process's own time, and the time of the backends that ended, which the postmaster
/// collected when it reaped them (its children's time). To say what share of the machine the
/// server took while sessions typed, and what a search cost it.
struct ServerCPUTime {
    let ticks: Int

    /// Nil where there is no /proc.
    init?() {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var total = 0
        for entry in entries where entry.allSatisfy(\.isNumber) {
            guard let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                comm.hasPrefix("postgres"),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let closing = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm) ": state is field 3, utime and stime fields 14 and 15, the reaped
            // children's cutime and cstime 16 and 17.
            let fields = stat[stat.index(after: closing)...].split(separator: " ")
            guard fields.count > 14 else { continue }
            total += fields[11...14].compactMap { Int($0) }.reduce(0, +)
        }
        ticks = total
    }

    /// The CPU time the server used since `start`.
    func used(since start: ServerCPUTime) -> Duration {
        .milliseconds((ticks - start.ticks) * 1000 / max(1, sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The share of all cores' time over `elapsed` that the server used since `start`.
    func share(since start: ServerCPUTime, over elapsed: Duration) -> Double {
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        return used(since: start).milliseconds / max(0.001, elapsed.milliseconds * cores)
    }
}
