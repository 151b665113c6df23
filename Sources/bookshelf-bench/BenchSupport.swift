import Foundation

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Latencies of one kind of call.
struct Timings {
    private(set) var samples: [Duration] = []

    mutating func measure<T>(_ body: () async throws -> T) async rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await body()
        samples.append(clock.now - start)
        return value
    }

    mutating func record(_ duration: Duration) { samples.append(duration) }

    func percentile(_ fraction: Double) -> Duration {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .zero }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
        return sorted[max(0, index)]
    }

    var p50: Duration { percentile(0.50) }
    var p99: Duration { percentile(0.99) }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }

    var formatted: String { String(format: "%8.3f ms", milliseconds) }
}

/// Peak resident memory of this process (VmHWM), as the kernel reports it.
func peakMemory() -> String {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return "unknown" }
    return line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces)
}

/// A field of /proc/self/status in kB ("VmHWM", the peak resident size; "RssAnon", resident
/// memory that belongs to no file), or nil where there is no such file.
func memoryStatus(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return nil }
    return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
}

/// The first executable called `name` on PATH.
func executableOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The highest resident anonymous memory (RssAnon) and resident file pages (RssFile) seen while
/// it runs, read from `/proc/self/status` every few milliseconds. The kernel keeps a peak only
/// of the total (VmHWM), which cannot tell a build's anonymous memory from the pages of the
/// files it maps (the catalog, the stored index, its scratch files).
final class ResidentPeaks: @unchecked Sendable {
    // Written by the sampling thread until `stop`, read only after it has ended.
    private var anonymous = 0
    private var file = 0
    private let stopped = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [self] in
            repeat {
                anonymous = max(anonymous, memoryStatus("RssAnon") ?? 0)
                file = max(file, memoryStatus("RssFile") ?? 0)
            } while stopped.wait(timeout: .now() + .milliseconds(5)) == .timedOut
            ended.signal()
        }
    }

    /// Ends the sampling: the peaks in kB.
    func stop() -> (anonymous: Int, file: Int) {
        stopped.signal()
        ended.wait()
        return (anonymous, file)
    }
}

/// The CPU time of the whole machine, from the first line of /proc/stat: on a virtual machine,
/// the time its hypervisor gave to other guests ("steal") is time the bench waited for no
/// reason of its own. Reported beside the timings: a run with a fifth of its time stolen is
/// no figure for the code.
struct MachineTime {
    private let stolen: Int
    private let total: Int

    /// The counters now; nil where there is no /proc/stat.
    init?() {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // user nice system idle iowait irq softirq steal (guest time is counted in user already)
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int($0) }
        guard ticks.count == 8 else { return nil }
        stolen = ticks[7]
        total = ticks.reduce(0, +)
    }

    /// The share of the machine's CPU time since `start` that went to other guests.
    func stolenShare(since start: MachineTime) -> Double {
        Double(stolen - start.stolen) / Double(max(1, total - start.total))
    }
}

/// The lost updates of a race of compare-and-set saves, counted the same way for every
/// store: each revision of a book from the one after `before` up to its revision `after`
/// must have been produced by exactly one successful save (`wins`, the revisions each save
/// reported). A gap (a revision nobody reported) or a revision claimed twice is a loss.
enum LostUpdates {
    static func count(wins: [Int: [Int]], before: [Int: Int], after: [Int: Int]) -> Int {
        var lost = 0
        for (id, last) in after {
            let first = (before[id] ?? 0) + 1
            let revisions = (wins[id] ?? []).sorted()
            if revisions != Array(stride(from: first, through: last, by: 1)) {
                lost += abs(last - first + 1 - revisions.count) + 1
            }
        }
        return lost
    }
}
