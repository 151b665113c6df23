import BookCatalog
import BookshelfModel
import Foundation
import PostgresCatalog

/// The replicas mode's typing runs (issue 56): one person types through the app's model with
/// `--reads standby`, right after a save (the session's floor is ahead of the standby until it
/// replays the save), first with replay running, then with it paused; then the standby is
/// stopped, a query typed, and the standby started while the typing goes on. Key to results and
/// the share of reads the standby served, as the request log names the server of each.
struct TypingOnStandby {
    let standbyWait: Duration
    let seconds: Int
    let restartSeconds: Int
    var running = StandbyTyping.Figures()
    var paused = StandbyTyping.Figures()
    /// Typed while the standby was stopped.
    var stopped = StandbyTyping.Figures()
    /// Typed from the moment the standby was started again.
    var restarted = StandbyTyping.Figures()

    /// The figure issue 56 sets: with replay paused, key to results within one wait and 50 ms.
    var target: Duration { standbyWait + .milliseconds(50) }

    @MainActor
    static func measure(pair: ServerPair, seconds: Int, restartSeconds: Int, book: BookRecord) async throws
        -> TypingOnStandby
    {
        let connector = pair.connector(reads: .standby)
        var result = TypingOnStandby(
            standbyWait: connector.standbyWait, seconds: seconds, restartSeconds: restartSeconds)
        // A session of the same app (one floor): its saves raise the typing session's floor.
        let writer = try await PostgresRemote.connect(connector)
        // The fallback run saved it too: its revision as the standby, caught up, has it now.
        var revision = try await writer.load(id: book.id).revision
        func save(_ mark: String) async throws {
            let saved = try await writer.save(
                SaveRequest(id: book.id, title: "\(book.title) \(mark)", expectedRevision: revision))
            revision = saved.revision
        }
        let typist = StandbyTyping(
            model: try await TypingSessions.signIn(connector: connector, account: PostgresBench.accountName),
            keysPerSecond: 8)

        try await save("typed 1")
        result.running = await typist.type(for: .seconds(seconds))
        try await pair.pauseReplay(true)
        do {
            try await save("typed 2")
            result.paused = await typist.type(for: .seconds(seconds))
        } catch {
            try? await pair.pauseReplay(false)
            throw error
        }
        try await pair.pauseReplay(false)
        try await pair.waitForStandbyReplay(of: connector.floor)

        // A session of its own, which has not fallen behind: the standby restarted is all it meets.
        let again = StandbyTyping(
            model: try await TypingSessions.signIn(
                connector: pair.connector(reads: .standby), account: PostgresBench.accountName),
            keysPerSecond: 8, startingAt: 3)
        _ = await again.type(for: .seconds(1))
        try await pair.runStandby(false)
        result.stopped = await again.type(for: .seconds(1))
        try await pair.runStandby(true)
        result.restarted = await again.type(for: .seconds(restartSeconds))
        return result
    }

    func print() {
        Swift.print(
            "\ntyping: one person at 8 keys/s through the app's model, --reads standby, standby wait \(Int(standbyWait.milliseconds)) ms, \(seconds) s after a save;"
        )
        Swift.print(
            "key to results: the key until the list shows its query or a later one; reads by the server the request log names"
        )
        Swift.print("run                p50          p99          max    keys  reads")
        for (name, figures) in [("replay running", running), ("replay paused", paused)] {
            row(name, figures)
        }
        let met = paused.keyToResults.p99 <= target
        Swift.print(
            "target: with replay paused, p99 at most the standby wait + 50 ms (\(Int(target.milliseconds)) ms): \(met ? "met" : "MISSED")"
        )
        Swift.print("\nstandby restarted: stopped while a query was typed, started, then \(restartSeconds) s of typing")
        row("while stopped", stopped)
        row("after the start", restarted)
        if let first = restarted.firstServedByStandby {
            Swift.print("the first read served by the standby came \(first.formatted) after its start")
        } else {
            Swift.print("no read was served by the standby in the \(restartSeconds) s after its start")
        }
    }

    private func row(_ name: String, _ figures: StandbyTyping.Figures) {
        let timings = figures.keyToResults
        var notes = ""
        if figures.unanswered > 0 { notes += "; \(figures.unanswered) keys never answered" }
        if figures.failedSearches > 0 { notes += "; \(figures.failedSearches) searches failed" }
        Swift.print(
            "\(name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(timings.p50.formatted)  \(timings.p99.formatted)  \(timings.percentile(1).formatted)  \(String(timings.samples.count).padding(toLength: 4, withPad: " ", startingAt: 0))  \(figures.reads.summary)\(notes)"
        )
    }
}
