import BookCatalog
import Foundation
import Locking

// A store with scripted slowness, for the demo and for the app's `--latency` option.
//
// Requests are numbered 1, 2, 3... in the order they reach any remote sharing one
// `LatencyScript` (searches, loads and saves; change checks and outcome look-ups pass
// straight through, because they are freshness hints polled on timers and numbering them
// would make the script depend on when a timer fired). Each numbered request does its work
// on arrival (a search snapshots the catalog, a save commits), then its answer is held back
// for the scheduled latency, which is the worst case for staleness: the answer is already
// old when it is delivered. A request scheduled to fail touches nothing and answers
// `BookFailure.storeUnavailable` after its latency.
//
// The delay ignores cancellation on purpose: a real server that already has the request
// answers whether or not the caller still wants the answer, and that is exactly the case a
// model's publication gate must handle.

// MARK: - Schedule

/// How long each request takes and which requests fail, by request number (1-based).
public struct LatencySchedule: Sendable, Equatable, CustomStringConvertible {
    public enum Pattern: Sendable, Equatable {
        /// Milliseconds per request in order. The list cycles: `[400, 250, 60]` gives
        /// 400, 250, 60, 400, 250, 60, ... so a short list describes a whole session.
        case fixed([Int])
        /// Uniform in `range`, derived from the seed and the request number alone, so a
        /// seed gives the same latency to the same request whatever order they are asked in.
        case random(ClosedRange<Int>, seed: UInt64)
    }

    /// The longest latency a spec may ask for: a minute. Longer is a typo, not a scenario.
    public static let maximumMilliseconds = 60_000

    public let pattern: Pattern
    /// Request numbers that fail with `BookFailure.storeUnavailable`.
    public let failing: Set<Int>

    public init(_ pattern: Pattern, failing: Set<Int> = []) {
        self.pattern = pattern
        self.failing = failing
    }

    /// No delay and no failures.
    public static let immediate = LatencySchedule(.fixed([0]))

    public func latencyMilliseconds(ofRequest number: Int) -> Int {
        precondition(number >= 1, "requests are numbered from 1")
        switch pattern {
        case let .fixed(list):
            return list[(number - 1) % list.count]
        case let .random(range, seed):
            // One generator per request, seeded from (seed, number): no shared state, so
            // the answer does not depend on how many requests were asked about before.
            var generator = SplitMix64(seed: seed ^ (UInt64(number) &* 0xD1B5_4A32_D192_ED03))
            let span = UInt64(range.upperBound - range.lowerBound) + 1
            return range.lowerBound + Int(generator.next() % span)
        }
    }

    public func fails(request number: Int) -> Bool { failing.contains(number) }

    /// The spec this schedule was parsed from, with failures appended: `400,250,60 fail:7`.
    public var description: String {
        let base =
            switch pattern {
            case let .fixed(list): list.map(String.init).joined(separator: ",")
            case let .random(range, seed): "random:\(range.lowerBound)-\(range.upperBound) seed:\(seed)"
            }
        guard !failing.isEmpty else { return base }
        return base + " fail:" + failing.sorted().map(String.init).joined(separator: ",")
    }

    // MARK: Parsing

    /// Parses a latency spec as given on a command line:
    /// - `400,250,60`: milliseconds per request in order, cycling;
    /// - `random:50-600`: uniform between the bounds (inclusive), determined by `seed`.
    /// `failing` is typically the result of `parseRequestNumbers` on a `--fail` option.
    public static func parse(_ spec: String, seed: UInt64 = 0, failing: Set<Int> = []) throws(LatencySpecError)
        -> LatencySchedule
    {
        let text = spec.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .empty }
        if text.lowercased().hasPrefix("random:") {
            let bounds = String(text.dropFirst("random:".count))
            let parts = bounds.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformedRange(bounds) }
            let lower = try milliseconds(String(parts[0]))
            let upper = try milliseconds(String(parts[1]))
            guard lower <= upper else { throw .emptyRange(lower: lower, upper: upper) }
            return LatencySchedule(.random(lower...upper, seed: seed), failing: failing)
        }
        let list = try text.split(separator: ",", omittingEmptySubsequences: false).map {
            part throws(LatencySpecError) in
            try milliseconds(String(part))
        }
        return LatencySchedule(.fixed(list), failing: failing)
    }

    /// Parses a list of request numbers such as `3,7,12` (for `--fail`). Empty text is no requests.
    public static func parseRequestNumbers(_ text: String) throws(LatencySpecError) -> Set<Int> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return [] }
        var numbers = Set<Int>()
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let word = part.trimmingCharacters(in: .whitespaces)
            guard let number = Int(word), number >= 1 else { throw .notARequestNumber(word) }
            numbers.insert(number)
        }
        return numbers
    }

    private static func milliseconds(_ raw: String) throws(LatencySpecError) -> Int {
        let word = raw.trimmingCharacters(in: .whitespaces)
        guard !word.isEmpty, word.allSatisfy(\.isASCII), let value = Int(word) else { throw .notMilliseconds(word) }
        guard value >= 0 else { throw .notMilliseconds(word) }
        guard value <= maximumMilliseconds else { throw .tooLong(value) }
        return value
    }
}

/// Why a latency spec was refused, in words that show the accepted forms.
public enum LatencySpecError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notMilliseconds(String)
    case tooLong(Int)
    case malformedRange(String)
    case emptyRange(lower: Int, upper: Int)
    case notARequestNumber(String)

    public var description: String {
        let forms = "expected milliseconds per request such as 400,250,60 or a range such as random:50-600"
        return switch self {
        case .empty: "empty latency spec: \(forms)"
        case let .notMilliseconds(word): "'\(word)' is not a whole number of milliseconds: \(forms)"
        case let .tooLong(value): "\(value) ms is longer than the limit of \(LatencySchedule.maximumMilliseconds) ms"
        case let .malformedRange(text): "'\(text)' is not a range: expected two bounds such as random:50-600"
        case let .emptyRange(lower, upper):
            "random:\(lower)-\(upper) is empty: the lower bound must not exceed the upper"
        case let .notARequestNumber(word): "'\(word)' is not a request number: expected numbers from 1 such as 3,7"
        }
    }
}

extension LatencySchedule {
    /// SplitMix64 (Steele, Lea, Flood 2014), nested so it never clashes with another file's
    /// generator: a tiny, well-mixed generator whose whole state is one
    /// integer, so a seed reproduces a run on every platform and Swift version. Never the system RNG.
    public struct SplitMix64: RandomNumberGenerator, Sendable {
        private var state: UInt64

        public init(seed: UInt64) { state = seed }

        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}

// MARK: - Time

/// Holds an answer back for a while. The interactive app uses wall-clock time; script mode
/// uses `VirtualClock`, where time moves only when the driver says so.
public protocol LatencySleeper: Sendable {
    /// Returns after `milliseconds`, even if the calling task is cancelled meanwhile.
    func sleep(milliseconds: Int, request: Int) async
}

/// Real time, on a Dispatch timer (which, unlike `Task.sleep`, does not end early on cancellation).
public struct WallClockSleeper: LatencySleeper {
    public init() {}

    public func sleep(milliseconds: Int, request: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                continuation.resume()
            }
        }
    }
}

/// Virtual time for deterministic runs. A sleeper parks until the driver wakes it; the driver
/// wakes sleepers strictly in order of wake time, and sleepers due at the same instant in the
/// order they started sleeping. Time never moves backwards and never skips a pending wake.
///
/// State lives behind one mutex (not an actor) so that `now` can be read synchronously, as a
/// clock for timestamps must be.
public final class VirtualClock: LatencySleeper, Sendable {
    /// One parked sleeper: when it is due, its place in arrival order, and the request it holds.
    public struct PendingWake: Sendable, Equatable, CustomStringConvertible {
        public let wakeMilliseconds: Int
        public let sequence: Int
        public let request: Int

        public var description: String { "request \(request) due at \(wakeMilliseconds) ms" }
    }

    private struct State {
        var now = 0
        var parked: [(wake: PendingWake, continuation: CheckedContinuation<Void, Never>)] = []
        var arrivals = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Milliseconds since the clock was made.
    public var nowMilliseconds: Int { state.withLock { $0.now } }

    public var now: Duration { .milliseconds(nowMilliseconds) }

    /// How many sleepers have ever arrived.
    public var arrivalCount: Int { state.withLock { $0.arrivals } }

    /// Parked sleepers in the order they will wake.
    public var pending: [PendingWake] { state.withLock { $0.parked.map(\.wake).sorted(by: Self.wakesFirst) } }

    public var nextWake: PendingWake? { pending.first }

    public func sleep(milliseconds: Int, request: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                state.arrivals += 1
                let arrivals = state.arrivals
                let wake = PendingWake(
                    wakeMilliseconds: state.now + max(0, milliseconds), sequence: arrivals, request: request)
                state.parked.append((wake, continuation))
                let ready = state.arrivalWaiters.filter { $0.count <= arrivals }
                state.arrivalWaiters.removeAll { $0.count <= arrivals }
                return ready
            }
            ready.forEach { $0.continuation.resume() }
        }
    }

    /// Suspends until `count` sleepers have arrived in all (so a driver knows the requests it
    /// caused have reached the store before it moves time on).
    public func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if state.arrivals >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Moves time to `milliseconds` without waking anyone. Refuses to go backwards or past a
    /// pending wake, either of which would reorder events.
    public func advance(to milliseconds: Int) {
        state.withLock { state in
            precondition(milliseconds >= state.now, "virtual time never moves backwards")
            if let due = state.parked.map(\.wake).min(by: Self.wakesFirst) {
                precondition(milliseconds <= due.wakeMilliseconds, "advancing past \(due) would reorder events")
            }
            state.now = milliseconds
        }
    }

    /// Moves time to the earliest pending wake and resumes that sleeper. Returns it, or nil if
    /// nobody is waiting.
    @discardableResult
    public func wakeNext() -> PendingWake? {
        let woken: (wake: PendingWake, continuation: CheckedContinuation<Void, Never>)? = state.withLock { state in
            let parked = state.parked
            guard let index = parked.indices.min(by: { Self.wakesFirst(parked[$0].wake, parked[$1].wake) }) else {
                return nil
            }
            let entry = state.parked.remove(at: index)
            state.now = max(state.now, entry.wake.wakeMilliseconds)
            return entry
        }
        woken?.continuation.resume()
        return woken?.wake
    }

    private static func wakesFirst(_ a: PendingWake, _ b: PendingWake) -> Bool {
        (a.wakeMilliseconds, a.sequence) < (b.wakeMilliseconds, b.sequence)
    }
}

// MARK: - Script

/// One numbered request as the script saw it. It records identifiers only, never query
/// text: a program that wants to show what was asked keeps its own note of what it typed.
public struct ScriptedCall: Sendable, Equatable {
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        case search
        case load(id: Int)
        case save(id: Int)
        /// Opening an account session: connecting takes time while the user keeps typing.
        case connect

        public var description: String {
            switch self {
            case .search: "search"
            case .connect: "connect"
            case let .load(id): "load #\(id)"
            case let .save(id): "save #\(id)"
            }
        }
    }

    public enum Outcome: Sendable, Equatable {
        case pending
        /// Answered with these book ids (a search's page, or the one loaded or saved book).
        case answered(ids: [Int])
        /// Failed: `injected` when the schedule said so, otherwise the wrapped store refused.
        case failed(BookFailure?, injected: Bool)
    }

    public let number: Int
    public let kind: Kind
    /// Which remote asked (an account name, say), as given to `LatencyScriptedRemote`.
    public let label: String
    public let latencyMilliseconds: Int
    public let failsByScript: Bool
    public internal(set) var outcome: Outcome
    /// The text a search asked for, as the store received it (nil for other kinds), so a
    /// log can name each search by its own query from the moment it starts.
    public var query: String? = nil
}

/// The script shared by every scripted remote of one run: it numbers requests in the order
/// they reach any of the remotes, decides each one's latency and failure from the schedule,
/// and keeps a log of the calls: all of them, or the most recent `retainedCalls` when a long
/// session must not grow (the interactive app).
public final class LatencyScript: Sendable {
    public let schedule: LatencySchedule
    public let sleeper: any LatencySleeper
    /// At most this many calls are kept (nil: all); older ones are forgotten in batches.
    public let retainedCalls: Int?
    /// Wall-clock time each call waits before it reads the catalog, as on a slow or busy
    /// machine: on virtual time nothing a driver shows may depend on it.
    public let readPause: Duration

    /// What the interactive app keeps: enough to explain the last few screens of requests.
    public static let interactiveRetainedCalls = 1_000

    private struct State {
        /// Calls `firstRetained`, `firstRetained + 1`, ... in order.
        var log: [ScriptedCall] = []
        var firstRetained = 1
        var finishWaiters: [(number: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Where call `number` sits in `log`, if it is retained.
        func retainedIndex(_ number: Int) -> Int? {
            let index = number - firstRetained
            return index >= 0 && index < log.count ? index : nil
        }
    }

    private let state = Locked(State())

    public init(
        schedule: LatencySchedule, sleeper: any LatencySleeper, retainedCalls: Int? = nil, readPause: Duration = .zero
    ) {
        self.schedule = schedule
        self.sleeper = sleeper
        self.retainedCalls = retainedCalls.map { max(1, $0) }
        self.readPause = readPause
    }

    /// The retained calls (every call, unless `retainedCalls` is set), in request-number order.
    public var calls: [ScriptedCall] { state.withLock { $0.log } }

    /// How many calls were ever made, retained or not.
    public var callCount: Int { state.withLock { $0.firstRetained - 1 + $0.log.count } }

    public func call(_ number: Int) -> ScriptedCall? {
        state.withLock { state in state.retainedIndex(number).map { state.log[$0] } }
    }

    /// Suspends until request `number` has answered or failed (or was forgotten).
    public func waitForFinish(of number: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if number < state.firstRetained { return true }
                if let index = state.retainedIndex(number), state.log[index].outcome != .pending { return true }
                state.finishWaiters.append((number, continuation))
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Holds a connection back for its scheduled latency, as a numbered request of its own
    /// (and fails it if the schedule says so). Call it before opening the connection.
    public func connect(label: String) async throws {
        let call = begin(.connect, label: label)
        await sleeper.sleep(milliseconds: call.latencyMilliseconds, request: call.number)
        guard !call.failsByScript else {
            finish(
                call.number, .failed(.storeUnavailable("scripted failure of request \(call.number)"), injected: true))
            throw BookFailure.storeUnavailable("scripted failure of request \(call.number)")
        }
        finish(call.number, .answered(ids: []))
    }

    func begin(_ kind: ScriptedCall.Kind, label: String, query: String? = nil) -> ScriptedCall {
        state.withLock { state in
            let number = state.firstRetained + state.log.count
            let call = ScriptedCall(
                number: number, kind: kind, label: label,
                latencyMilliseconds: schedule.latencyMilliseconds(ofRequest: number),
                failsByScript: schedule.fails(request: number), outcome: .pending, query: query)
            state.log.append(call)
            // Forget in batches (at twice the bound), so each call costs O(1) on average.
            if let retainedCalls, state.log.count >= 2 * retainedCalls {
                let forgotten = state.log.count - retainedCalls
                state.log.removeFirst(forgotten)
                state.firstRetained += forgotten
            }
            return call
        }
    }

    func finish(_ number: Int, _ outcome: ScriptedCall.Outcome) {
        let ready = state.withLock { state in
            if let index = state.retainedIndex(number) { state.log[index].outcome = outcome }
            let ready = state.finishWaiters.filter { $0.number == number }
            state.finishWaiters.removeAll { $0.number == number }
            return ready
        }
        ready.forEach { $0.continuation.resume() }
    }
}

// MARK: - Remote

/// Wraps a searchable remote and runs every search, load and save through a `LatencyScript`.
/// It offers the wrapped remote's other capabilities (change detection, save outcomes,
/// account) unchanged.
public struct LatencyScriptedRemote<Base: SearchableBookRemote>: SearchableBookRemote {
    public let base: Base
    public let script: LatencyScript
    public let label: String

    public init(_ base: Base, script: LatencyScript, label: String = "") {
        self.base = base
        self.script = script
        self.label = label
    }

    public func search(_ query: SearchQuery) async throws -> SearchPage {
        try await scripted(.search, query: query.text, ids: { $0.records.map(\.id) }) { try await base.search(query) }
    }

    public func load(id: Int) async throws -> BookRecord {
        try await scripted(.load(id: id), ids: { [$0.id] }) { try await base.load(id: id) }
    }

    public func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await scripted(.save(id: id), ids: { [$0.id] }) {
            try await base.save(id: id, title: title, expectedRevision: expectedRevision)
        }
    }

    public func save(_ request: SaveRequest) async throws -> BookRecord {
        try await scripted(.save(id: request.id), ids: { [$0.id] }) { try await base.save(request) }
    }

    /// Passes straight through: the script numbers and slows the calls a user waits for, and
    /// the header's count is not one of them.
    public func bookCount() async throws -> Int { try await base.bookCount() }

    /// Numbers the call, does the work (unless the script fails it), holds the answer back
    /// for the scheduled latency, then answers.
    private func scripted<Answer: Sendable>(
        _ kind: ScriptedCall.Kind,
        query: String? = nil,
        ids: (Answer) -> [Int],
        _ work: () async throws -> Answer
    ) async throws -> Answer {
        let call = script.begin(kind, label: label, query: query)
        guard !call.failsByScript else {
            await script.sleeper.sleep(milliseconds: call.latencyMilliseconds, request: call.number)
            script.finish(
                call.number, .failed(.storeUnavailable("scripted failure of request \(call.number)"), injected: true))
            throw BookFailure.storeUnavailable("scripted failure of request \(call.number)")
        }
        let result: Result<Answer, any Error>
        if script.readPause > .zero { try? await Task.sleep(for: script.readPause) }
        do { result = .success(try await work()) } catch { result = .failure(error) }
        await script.sleeper.sleep(milliseconds: call.latencyMilliseconds, request: call.number)
        switch result {
        case let .success(answer):
            script.finish(call.number, .answered(ids: ids(answer)))
            return answer
        case let .failure(error):
            script.finish(call.number, .failed(error as? BookFailure, injected: false))
            throw error
        }
    }
}

extension LatencyScriptedRemote: ChangeDetectingRemote where Base: ChangeDetectingRemote {
    public func checkForChanges() async throws -> ChangeNotice? { try await base.checkForChanges() }
}

extension LatencyScriptedRemote: SaveOutcomeRecordingRemote where Base: SaveOutcomeRecordingRemote {
    public func committedRevision(of operation: UUID) async throws -> Int? {
        try await base.committedRevision(of: operation)
    }
}

extension LatencyScriptedRemote: AccountAwareRemote where Base: AccountAwareRemote {
    public var account: Account { base.account }
}

/// Any catalog's sessions, slowed down by a latency script (`bookshelf --latency`): opening a
/// session is a numbered request of its own, and every session's remote is a
/// `LatencyScriptedRemote` labelled with its account.
public struct LatencyScriptedConnector: CatalogConnector {
    public let base: any CatalogConnector
    public let script: LatencyScript

    public init(_ base: any CatalogConnector, script: LatencyScript) {
        self.base = base
        self.script = script
    }

    public func accountNames() async throws -> [String] { try await base.accountNames() }

    public func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }

    public func accountScopes() async throws -> [String: String] { try await base.accountScopes() }

    public func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        try await script.connect(label: account)
        let remote = try await base.connect(account: account, password: password)
        return scripted(remote, label: account)
    }

    private func scripted(_ remote: some SearchableBookRemote, label: String) -> any SearchableBookRemote {
        LatencyScriptedRemote(remote, script: script, label: label)
    }
}

extension LatencyScriptedRemote: ReauthenticatingRemote where Base: ReauthenticatingRemote {
    public func reauthenticate(password: String) async throws { try await base.reauthenticate(password: password) }
}

extension LatencyScriptedRemote: HistoryKeepingRemote where Base: HistoryKeepingRemote {
    public func history(of id: Int) async throws -> [BookRevision] { try await base.history(of: id) }
}
