import Foundation

/// A thread that does long work nobody is waiting on key by key.
package enum BackgroundThread {
    /// Lowers the calling thread's scheduling priority (Linux: its nice value, by 10), so that
    /// the threads a user waits on get a core first when all are busy; alone, it runs as fast.
    /// The thread must be one of its own: an unprivileged process cannot raise it back.
    package static func yieldToOthers() {
        #if os(Linux)
            _ = setpriority(
                __priority_which_t(PRIO_PROCESS.rawValue), id_t(linuxThreadID()),
                min(19, niceness + SearchTuning.backgroundNiceness))
        #endif
    }

    /// The calling thread's nice value (0 off Linux).
    package static var niceness: Int32 {
        #if os(Linux)
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(linuxThreadID()))
        #else
            0
        #endif
    }
}

#if os(Linux)
    /// glibc's `gettid`, which Swift's Glibc module does not export.
    @_silgen_name("gettid")
    private func linuxThreadID() -> Int32
#endif

/// The searches a user waits on, key by key, counted while they run, so that a background
/// thread can hold back its own work until none is running (`waitWhileBusy`).
///
/// Why a nice value is not enough: on two cores a build and a search each have a core, and
/// still a build's first statement (its count of ten million rows) and its passes slowed the keys
/// answered beside it by a stale stored index two- to fourfold (`keys --count 10000000 --cold`,
/// "history of"). Work that gives way every millisecond or so costs a key at most that.
package final class ForegroundWork: @unchecked Sendable {
    // `running` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var running = 0

    /// Runs `body` as foreground work.
    package func during<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.withLock { running += 1 }
        defer {
            condition.withLock {
                running -= 1
                if running == 0 { condition.broadcast() }
            }
        }
        return try body()
    }

    /// Waits until no foreground work runs, for at most `limit`: work that never pauses (a
    /// long scan counted as foreground by mistake, a user holding a key) delays the
    /// background by that much at a time, and never stops it.
    package func waitWhileBusy(atMost limit: TimeInterval = SearchTuning.givingWayAtMost) {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: limit)
            while running > 0, condition.wait(until: deadline) {}
        }
    }
}
