import Foundation

/// A value behind a lock, used as `Synchronization.Mutex` would be: `withLock` gives the body
/// the value to read and change.
///
/// Why not `Mutex`: ThreadSanitizer cannot see `Mutex`'s synchronisation when the lock is
/// contended. Its slow path waits and hands over in the Swift runtime's uninstrumented
/// library, so two `withLock` bodies on different threads look unordered and the sanitizer
/// reports "Swift access races" that cannot happen (four threads appending under one `Mutex`
/// get them in most runs; the same program under `NSLock` gets none). `NSLock` is a pthread
/// mutex, whose lock and unlock the sanitizer intercepts, so the suite can run clean under
/// `--sanitize=thread` and a report there means a real race.
///
/// Not for a state of `()`: with an empty state the sanitizer reports "Swift access races"
/// here that cannot happen (four threads through a `Locked(())` get one in every run, through
/// a `Locked(0)` none). A lock that guards no value is a plain `NSLock`.
///
/// A module of its own so that the stores, their fakes and the test support can all lock
/// this way without importing one another (it depends on nothing of the package).
public final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    /// Read and written only inside `lock`.
    private var state: State

    public init(_ state: State) { self.state = state }

    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
