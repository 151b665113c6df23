import Foundation

/// A thread that does long work nobody is waiting on key by key.
enum BackgroundThread {
    /// Lowers the calling thread's scheduling priority (Linux: its nice value, by 10), so that
    /// the threads a user waits on get a core first when all are busy; alone, it runs as fast.
    /// The thread must be one of its own: an unprivileged process cannot raise it back.
    static func yieldToOthers() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(linuxThreadID()), min(19, niceness + 10))
        #endif
    }

    /// The calling thread's nice value (0 off Linux).
    static var niceness: Int32 {
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
