import Foundation

/// How long the tests wait for another process. Under a sanitizer every instrumented binary
/// runs several times slower, so `Scripts/sanitize` sets `BOOKSHELF_TEST_TIME_SCALE` and the
/// waits stretch with it instead of failing from slowness alone. A wait is a deadline, never
/// a sleep: a test that passes ends as soon as what it waits for appears.
public enum TestTime {
    /// `BOOKSHELF_TEST_TIME_SCALE` (a number of at least 1), or 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["BOOKSHELF_TEST_TIME_SCALE"],
            let value = Double(text), value >= 1
        else { return 1 }
        return value
    }()

    /// `duration` stretched by `scale`.
    public static func scaled(_ duration: Duration) -> Duration { duration * scale }
}

/// The one way the tests wait for something another process or thread does: ask, with a
/// bound, until the answer is the awaited one. When the bound passes, the error says what was
/// awaited and what was last seen, so a failure in CI explains itself. The bound stretches
/// under a sanitizer (`TestTime.scale`); a test that passes waits only as long as it must.
public enum Await {
    /// The bound passed before the condition held.
    public struct Timeout: Error, CustomStringConvertible {
        public let what: String
        public let bound: Duration
        public let lastSeen: String
        public var description: String { "timed out after \(bound) waiting for \(what); last seen: \(lastSeen)" }
    }

    /// Asks `probe` every `interval` until `accept` holds of its answer, and returns that
    /// answer; throws `Timeout` after `timeout`. A probe that throws counts as not yet, and its
    /// error is what was last seen.
    @discardableResult
    public static func until<Seen>(
        _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(20),
        probe: () throws -> Seen, _ accept: (Seen) -> Bool
    ) throws -> Seen {
        let bound = TestTime.scaled(timeout)
        let deadline = ContinuousClock.now + bound
        var lastSeen = "nothing yet"
        while true {
            do {
                let seen = try probe()
                if accept(seen) { return seen }
                lastSeen = String(describing: seen)
            } catch {
                lastSeen = "\(error)"
            }
            guard ContinuousClock.now < deadline else { throw Timeout(what: what, bound: bound, lastSeen: lastSeen) }
            let (seconds, attoseconds) = interval.components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }

    /// `until` for a condition with nothing to report but itself.
    public static func until(
        _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(20),
        _ condition: () throws -> Bool
    ) throws {
        try until(what, timeout: timeout, every: interval, probe: condition) { $0 }
    }

    /// `until` for a probe that awaits (a query on a server, a store's read).
    @discardableResult
    public static func until<Seen>(
        _ what: String, timeout: Duration = .seconds(20), every interval: Duration = .milliseconds(20),
        probe: () async throws -> Seen, _ accept: (Seen) -> Bool
    ) async throws -> Seen {
        let bound = TestTime.scaled(timeout)
        let deadline = ContinuousClock.now + bound
        var lastSeen = "nothing yet"
        while true {
            do {
                let seen = try await probe()
                if accept(seen) { return seen }
                lastSeen = String(describing: seen)
            } catch {
                lastSeen = "\(error)"
            }
            guard ContinuousClock.now < deadline else { throw Timeout(what: what, bound: bound, lastSeen: lastSeen) }
            try await Task.sleep(for: interval)
        }
    }

    /// Whether process `pid` has ended (gone, or a zombie its parent has not reaped yet).
    public static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return true }
        return stat[afterName.upperBound...].hasPrefix("Z") || stat[afterName.upperBound...].hasPrefix("X")
    }
}
