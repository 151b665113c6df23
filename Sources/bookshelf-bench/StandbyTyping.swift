import BookCatalog
import BookshelfModel
import Foundation
import PostgresCatalog

/// One person typing the bench's queries through the app's model with `--reads standby`, at a
/// steady pace (issue 56): the next key comes on time whether or not the last one's results are
/// shown, so a search still out is superseded (and cancelled) as the app's is, and after the last
/// key of a query the person waits for its results before clearing the line. The app's change
/// check runs once a second beside the typing, as its timer runs it.
///
/// A key's time runs from the key to the first results shown (or search error) for its query or
/// a later key's: until the list had caught up with what was typed. Which server answered each
/// read shown is taken from the request log's route (what F4 and `--trace` show).
@MainActor
final class StandbyTyping {
    /// What one run measured.
    struct Figures {
        var keyToResults = Timings()
        /// Keys whose results were not shown when the run ended.
        var unanswered = 0
        var failedSearches = 0
        var reads = RouteShare()
        /// From the start of the run to the first read served by a standby.
        var firstServedByStandby: Duration?
    }

    /// The reads shown, by the server that answered them.
    struct RouteShare {
        var byStandby = 0
        var byPrimary = 0
        /// Of `byPrimary`: meant for the standby, which could not serve them.
        var fellBack = 0

        var total: Int { byStandby + byPrimary }

        var summary: String {
            let share = Double(byStandby) / Double(max(1, total)) * 100
            return
                "\(byStandby) of \(total) reads by the standby (\(String(format: "%.0f", share)) %), \(fellBack) fell back"
        }
    }

    private let model: BookshelfModel
    private let interval: Duration
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant
    private var figures = Figures()
    /// Keys whose results are not shown yet: their search's request number and when they were pressed.
    private var waiting: [(request: Int, pressed: ContinuousClock.Instant)] = []
    /// The next query of `TypingSessions.queries` to type.
    private var next: Int

    init(model: BookshelfModel, keysPerSecond: Double, startingAt first: Int = 0) {
        self.model = model
        self.interval = .seconds(1 / keysPerSecond)
        self.next = first
        started = clock.now
        model.onTrace = { [unowned self] trace in self.learn(trace) }
    }

    /// Types for `duration` (a query begun is finished), then waits for the last results, and
    /// returns what this run measured; the next run starts afresh with the next query.
    func type(for duration: Duration) async -> Figures {
        figures = Figures()
        started = clock.now
        let end = started + duration
        let checks = Task { [model] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                model.checkForChanges()
            }
        }
        while clock.now < end { await typeQuery() }
        checks.cancel()
        await TypingSessions.settle(model)
        figures.unanswered = waiting.count
        waiting.removeAll()
        return figures
    }

    /// One query a key at a time, its results awaited after the last key, then the line cleared.
    private func typeQuery() async {
        let (_, text) = TypingSessions.queries[next % TypingSessions.queries.count]
        next += 1
        var tick = clock.now
        var last: Int?
        for prefix in text.indices.map({ String(text[...$0]) }) {
            if let request = model.setQuery(prefix) {
                waiting.append((request, clock.now))
                last = request
            }
            tick += interval
            try? await Task.sleep(until: tick, clock: clock)
        }
        // A person reads the results before clearing; the clearing key reads no books.
        if let last { await model.finished(request: last) }
        if let clearing = model.setQuery("") { await model.finished(request: clearing) }
    }

    private func learn(_ trace: RequestTrace) {
        if let route = trace.answeredBy {
            if route.servedByStandby {
                figures.reads.byStandby += 1
                if figures.firstServedByStandby == nil { figures.firstServedByStandby = clock.now - started }
            } else {
                figures.reads.byPrimary += 1
                if route.fellBack { figures.reads.fellBack += 1 }
            }
        }
        guard trace.kind == .search, trace.fate.wasShown else { return }
        if case .failed = trace.fate { figures.failedSearches += 1 }
        let now = clock.now
        waiting.removeAll { key in
            guard key.request <= trace.request else { return false }
            figures.keyToResults.record(now - key.pressed)
            return true
        }
    }
}
