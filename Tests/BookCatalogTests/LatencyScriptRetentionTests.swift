import BookCatalog
import CatalogSimulation
import Testing

/// The interactive app runs with `--latency` for as long as the user likes: its latency
/// script must keep a bounded log while numbering and scheduling every request as before.
@Suite struct LatencyScriptRetentionTests {
    @Test func aBoundedScriptKeepsOnlyTheMostRecentCallsAndNumbersOnFromThere() async throws {
        let catalog = MemoryCatalog()
        let ada = Account(name: "ada", role: .editor, scope: "a")
        catalog.addAccount(ada)
        let book = catalog.addBook(title: "Dune", scope: "a")
        let retained = 10
        let script = LatencyScript(
            schedule: try LatencySchedule.parse("0"), sleeper: WallClockSleeper(), retainedCalls: retained)
        let remote = LatencyScriptedRemote(
            MemoryBookRemote(catalog: catalog, account: ada), script: script, label: "ada")

        let requests = 1_000
        for _ in 0..<requests { _ = try await remote.load(id: book.id) }

        #expect(script.callCount == requests)
        let kept = script.calls
        #expect(kept.count >= retained && kept.count < 2 * retained, "kept \(kept.count)")
        #expect(kept.map(\.number) == Array((requests - kept.count + 1)...requests), "the most recent, in order")
        #expect(kept.allSatisfy { $0.outcome == .answered(ids: [book.id]) })
        #expect(script.call(requests)?.number == requests)
        #expect(script.call(1) == nil, "the first call is forgotten")
        await script.waitForFinish(of: 1)  // a forgotten call has finished: no wait forever
        _ = try await remote.load(id: book.id)
        #expect(script.calls.last?.number == requests + 1)
    }

    @Test func anUnboundedScriptKeepsEveryCall() async throws {
        let catalog = MemoryCatalog()
        let ada = Account(name: "ada", role: .editor, scope: "a")
        catalog.addAccount(ada)
        let book = catalog.addBook(title: "Dune", scope: "a")
        let script = LatencyScript(schedule: .immediate, sleeper: WallClockSleeper())
        let remote = LatencyScriptedRemote(
            MemoryBookRemote(catalog: catalog, account: ada), script: script, label: "ada")
        for _ in 0..<300 { _ = try await remote.load(id: book.id) }
        #expect(script.calls.map(\.number) == Array(1...300))
    }
}
