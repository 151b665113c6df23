import BookCatalog
import CatalogSimulation
import Foundation
import Testing

@Suite("Latency-scripted remote")
struct LatencyScriptedRemoteTests {
    // MARK: Parsing

    @Test("a fixed list gives each request its latency in order and then cycles")
    func fixedListCycles() throws {
        let schedule = try LatencySchedule.parse("400, 250,60")
        #expect(schedule.pattern == .fixed([400, 250, 60]))
        #expect((1...7).map(schedule.latencyMilliseconds(ofRequest:)) == [400, 250, 60, 400, 250, 60, 400])
        #expect(schedule.description == "400,250,60")
    }

    @Test("a random range stays inside its bounds and is the same for the same seed")
    func randomRangeIsDeterministicPerSeed() throws {
        let first = try LatencySchedule.parse("random:50-600", seed: 7)
        let again = try LatencySchedule.parse("RANDOM:50-600", seed: 7)
        let other = try LatencySchedule.parse("random:50-600", seed: 8)
        let numbers = Array(1...200)
        let latencies = numbers.map(first.latencyMilliseconds(ofRequest:))
        #expect(latencies.allSatisfy { (50...600).contains($0) })
        #expect(latencies == numbers.map(again.latencyMilliseconds(ofRequest:)))
        #expect(latencies != numbers.map(other.latencyMilliseconds(ofRequest:)))
        // Spread, not a constant: 200 draws from 551 values hit many of them.
        #expect(Set(latencies).count > 100)
        // Asking in another order gives the same answers (no hidden generator state).
        #expect(numbers.reversed().map(first.latencyMilliseconds(ofRequest:)) == latencies.reversed())
    }

    @Test("a one-value range is that value")
    func degenerateRange() throws {
        let schedule = try LatencySchedule.parse("random:90-90", seed: 3)
        #expect((1...20).allSatisfy { schedule.latencyMilliseconds(ofRequest: $0) == 90 })
    }

    @Test("SplitMix64 produces the published reference sequence for seed 0")
    func splitMixReference() {
        var generator = LatencySchedule.SplitMix64(seed: 0)
        // First outputs of SplitMix64 seeded with 0, as in the reference implementation.
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test(
        "bad specs are refused with an error that names the problem",
        arguments: [
            ("", LatencySpecError.empty),
            ("   ", .empty),
            ("fast", .notMilliseconds("fast")),
            ("400,,60", .notMilliseconds("")),
            ("400,-5", .notMilliseconds("-5")),
            ("1.5", .notMilliseconds("1.5")),
            ("60001", .tooLong(60001)),
            ("random:50", .malformedRange("50")),
            ("random:50-60-70", .malformedRange("50-60-70")),
            ("random:a-600", .notMilliseconds("a")),
            ("random:600-50", .emptyRange(lower: 600, upper: 50)),
        ])
    func badSpecs(spec: String, expected: LatencySpecError) {
        #expect(throws: expected) { try LatencySchedule.parse(spec) }
        #expect(!expected.description.isEmpty)
    }

    @Test("failing request numbers parse from a comma list and bad numbers are refused")
    func requestNumbers() throws {
        #expect(try LatencySchedule.parseRequestNumbers("3, 7,3") == [3, 7])
        #expect(try LatencySchedule.parseRequestNumbers("") == [])
        #expect(throws: LatencySpecError.notARequestNumber("0")) { try LatencySchedule.parseRequestNumbers("0") }
        #expect(throws: LatencySpecError.notARequestNumber("x")) { try LatencySchedule.parseRequestNumbers("2,x") }
        let schedule = try LatencySchedule.parse("10", failing: [7, 3])
        #expect(schedule.description == "10 fail:3,7")
        #expect(schedule.fails(request: 3) && !schedule.fails(request: 4))
    }

    // MARK: Failure injection

    @Test("a scripted failure answers storeUnavailable and changes nothing; other requests pass through")
    func failureInjection() async throws {
        let remote = MemoryBookRemote([1: BookRecord(id: 1, title: "Before", revision: 1)])
        let script = LatencyScript(schedule: LatencySchedule(.fixed([0]), failing: [1]), sleeper: WallClockSleeper())
        let scripted = LatencyScriptedRemote(remote, script: script, label: "editor")

        await #expect(throws: BookFailure.storeUnavailable("scripted failure of request 1")) {
            _ = try await scripted.save(SaveRequest(id: 1, title: "Lost", expectedRevision: 1))
        }
        #expect(try await remote.load(id: 1).title == "Before")

        let saved = try await scripted.save(SaveRequest(id: 1, title: "After", expectedRevision: 1))
        #expect(saved.revision == 2 && saved.title == "After")
        // The wrapped store's own refusals come through unchanged.
        await #expect(throws: BookFailure.conflict(expected: 1, actual: 2)) {
            _ = try await scripted.save(id: 1, title: "Stale", expectedRevision: 1)
        }
        #expect(
            script.calls.map(\.outcome) == [
                .failed(.storeUnavailable("scripted failure of request 1"), injected: true),
                .answered(ids: [1]),
                .failed(.conflict(expected: 1, actual: 2), injected: false),
            ])
        #expect(script.calls.map(\.label) == ["editor", "editor", "editor"])
    }

    // MARK: Virtual time

    @Test("virtual time wakes answers by due time, ties in arrival order, whatever order they started")
    func virtualTimeOrdering() async throws {
        let remote = MemoryBookRemote([
            1: BookRecord(id: 1, title: "History of Rome", revision: 1),
            2: BookRecord(id: 2, title: "Hamlet", revision: 1),
        ])
        let clock = VirtualClock()
        let script = LatencyScript(schedule: try LatencySchedule.parse("300,100,100,0"), sleeper: clock)
        let scripted = LatencyScriptedRemote(remote, script: script)

        // Four requests start at t = 0, 0, 50 and 250 ms; they are due at 300, 100, 150, 250.
        let first = Task { try await scripted.search(SearchQuery(text: "h")) }
        await clock.waitForArrivals(1)
        let second = Task { try await scripted.search(SearchQuery(text: "hi")) }
        await clock.waitForArrivals(2)
        clock.advance(to: 50)
        let third = Task { try await scripted.load(id: 2) }
        await clock.waitForArrivals(3)
        #expect(clock.pending.map(\.request) == [2, 3, 1])

        var woken: [Int] = []
        var times: [Int] = []
        func wake() async {
            guard let wake = clock.wakeNext() else { return }
            await script.waitForFinish(of: wake.request)
            woken.append(wake.request)
            times.append(clock.nowMilliseconds)
        }
        await wake()  // request 2 at 100
        await wake()  // request 3 at 150
        clock.advance(to: 250)
        let fourth = Task { try await scripted.search(SearchQuery(text: "ham")) }
        await clock.waitForArrivals(4)
        await wake()  // request 4 at 250: due now, but arrived after nothing else is due sooner
        await wake()  // request 1 at 300
        #expect(clock.wakeNext() == nil)

        #expect(woken == [2, 3, 4, 1])
        #expect(times == [100, 150, 250, 300])
        #expect(try await first.value.records.map(\.id) == [2, 1])
        #expect(try await second.value.records.map(\.id) == [1])
        #expect(try await third.value.id == 2)
        #expect(try await fourth.value.records.map(\.id) == [2])
        #expect(script.calls.map(\.latencyMilliseconds) == [300, 100, 100, 0])
    }

    @Test("sleepers due at the same instant wake in the order they arrived")
    func tiesWakeInArrivalOrder() async {
        let clock = VirtualClock()
        var tasks: [Int: Task<Void, Never>] = [:]
        // Requests arrive in the order 5, 3, 1, 4, 2, all due at 40 ms.
        for (arrival, request) in [5, 3, 1, 4, 2].enumerated() {
            tasks[request] = Task { await clock.sleep(milliseconds: 40, request: request) }
            await clock.waitForArrivals(arrival + 1)
        }
        var woken: [Int] = []
        while let wake = clock.wakeNext() {
            #expect(wake.wakeMilliseconds == 40)
            await tasks[wake.request]?.value
            woken.append(wake.request)
        }
        #expect(woken == [5, 3, 1, 4, 2])
        #expect(clock.nowMilliseconds == 40)
    }

    // MARK: Capabilities

    @Test("numbering is shared by every remote of a script; freshness calls pass through unnumbered")
    func sharedNumberingAndPassThrough() async throws {
        let catalog = MemoryCatalog()
        let ada = Account(name: "ada", role: .editor, scope: "a")
        let bob = Account(name: "bob", role: .editor, scope: "a")
        catalog.addAccount(ada)
        catalog.addAccount(bob)
        let book = catalog.addBook(title: "Dune", scope: "a")
        let script = LatencyScript(schedule: .immediate, sleeper: WallClockSleeper())
        let forAda = LatencyScriptedRemote(
            MemoryBookRemote(catalog: catalog, account: ada), script: script, label: "ada")
        let forBob = LatencyScriptedRemote(
            MemoryBookRemote(catalog: catalog, account: bob), script: script, label: "bob")

        let capable: any BookRemote = forAda
        #expect(capable is any ChangeDetectingRemote)
        #expect(capable is any SaveOutcomeRecordingRemote)
        #expect((capable as? any AccountAwareRemote)?.account == ada)

        _ = try await forAda.load(id: book.id)
        let request = SaveRequest(id: book.id, title: "Dune Messiah", expectedRevision: 1)
        _ = try await forBob.save(request)
        #expect(try await forAda.checkForChanges() == .unspecified)
        #expect(try await forBob.committedRevision(of: request.operation) == 2)

        #expect(script.calls.map(\.number) == [1, 2])
        #expect(script.calls.map(\.label) == ["ada", "bob"])
        #expect(script.calls.map(\.kind) == [.load(id: book.id), .save(id: book.id)])
    }
}
