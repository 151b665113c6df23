import BookCatalog

/// The search latency table every store's mode prints: one row per query class of
/// `SearchBench.classes`, through `BookRepository`, as the app searches.
///
/// Each query is searched once untimed first, so both stores are measured warm.
/// Deep pages are reached the way the app reaches them: the page before is read first
/// (untimed) and the timed search continues from its cursor (`SearchPage.next`), so a store
/// with keyset paging uses it; a store without a cursor skips `offset` rows.
struct ClassTable {
    struct Row {
        let name: String
        let timings: Timings
        let firstTotal: TotalCount
        /// The class's query with the highest median, and that median: a class's p99 is often
        /// one query's, and this says which.
        let slowest: (text: String, p50: Duration)
        /// The server's CPU time per timed search, where the store is a server on this machine.
        var serverCPU: Duration? = nil
    }

    let rows: [Row]

    /// `only` names the one class to time, when not all. `serverCPU`, where given, reads the
    /// server's CPU time so far: each row then says what a search cost the server, a figure
    /// other work on the machine does not inflate.
    static func measure(
        _ repository: BookRepository, iterations: Int, only: String? = nil, serverCPU: (() -> Duration?)? = nil
    ) async throws -> ClassTable {
        var rows: [Row] = []
        for queryClass in SearchBench.classes where only == nil || queryClass.name == only {
            var timed: [SearchQuery] = []
            for query in queryClass.queries {
                timed.append(try await reachable(query, in: repository))
            }
            // One untimed pass: the figures are for a running store, whose caches have seen
            // these queries' pages before (a first visit is the open → first result figure).
            for query in timed { _ = try await repository.search(query) }
            var timings = Timings()
            var perQuery = Array(repeating: Timings(), count: timed.count)
            var first: TotalCount?
            let cpuBefore = serverCPU?()
            for iteration in 0..<iterations {
                let query = timed[iteration % timed.count]
                let page = try await perQuery[iteration % timed.count].measure { try await repository.search(query) }
                timings.record(perQuery[iteration % timed.count].samples.last!)
                if first == nil { first = page.totalCount }
            }
            let slowest = zip(timed, perQuery).filter { !$0.1.samples.isEmpty }.max { $0.1.p50 < $1.1.p50 }
            var row = Row(
                name: queryClass.name, timings: timings, firstTotal: first ?? .exact(0),
                slowest: (slowest?.0.text ?? "", slowest?.1.p50 ?? .zero))
            if let cpuBefore, let cpuAfter = serverCPU?() { row.serverCPU = (cpuAfter - cpuBefore) / iterations }
            rows.append(row)
        }
        return ClassTable(rows: rows)
    }

    /// `query` as the app would send it: with the cursor of the page before when it starts deep.
    static func reachable(_ query: SearchQuery, in repository: BookRepository) async throws -> SearchQuery {
        guard query.offset > 0 else { return query }
        let before = try await repository.search(SearchQuery(text: query.text, limit: query.offset))
        return SearchQuery(text: query.text, limit: query.limit, offset: query.offset, after: before.next)
    }

    func print(title: String) {
        Swift.print("\n\(title)")
        let withCPU = rows.contains { $0.serverCPU != nil }
        Swift.print(
            "class          p50          p99          max    \(withCPU ? "server CPU   " : "")matches (first query)   slowest query (its p50)"
        )
        for row in rows {
            let cpu = withCPU ? (row.serverCPU?.formatted ?? "   unknown") + "   " : ""
            let name = row.name.padding(toLength: 12, withPad: " ", startingAt: 0)
            let times =
                "\(row.timings.p50.formatted)  \(row.timings.p99.formatted)  \(row.timings.percentile(1).formatted)"
            let total = Self.text(row.firstTotal).padding(toLength: 22, withPad: " ", startingAt: 0)
            let slowest = "\(row.slowest.text) (\(row.slowest.p50.formatted.trimmingCharacters(in: .whitespaces)))"
            Swift.print("\(name) \(times)    \(cpu)\(total)\(slowest)")
        }
    }

    static func text(_ total: TotalCount) -> String {
        switch total {
        case let .exact(count): "\(count)"
        case let .atLeast(count), let .counting(count): "\(count)+"
        case let .about(count): "about \(count)"
        }
    }
}
