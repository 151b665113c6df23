import Locking

/// The freshness floor of every session one connector opens: the highest log position any of
/// them has seen. The app opens a session per account it switches to, from one connector, so a
/// save made as one account is not missing when the next session (the same account again, or
/// another that sees the book) reads from a standby that has not replayed it yet.
///
/// Sessions run on workers of their own, hence the lock.
public final class WALFloor: Sendable {
    private struct State {
        var position = WALPosition.start
        /// A save committed whose position could not be read: no standby can be shown to be
        /// fresh enough until the primary tells a position again.
        var unknown = false
        /// Bumped each time the floor becomes unknown, so a position the primary told before
        /// that (read on another session's worker) cannot clear it.
        var markings = 0
    }

    private let state = Locked(State())

    public init() {}

    /// What a standby must have replayed, or nil when no standby can be trusted.
    var required: WALPosition? {
        state.withLock { $0.unknown ? nil : $0.position }
    }

    /// Positions only ever raise the floor.
    func raise(to position: WALPosition) {
        state.withLock { $0.position = max($0.position, position) }
    }

    /// Taken before asking the primary for its position (see `learnPrimary`).
    func ticket() -> Int {
        state.withLock { $0.markings }
    }

    /// The primary's position, read after taking `ticket`, or nil when it could not be read.
    func learnPrimary(_ position: WALPosition?, ticket: Int) {
        state.withLock { state in
            guard let position else {
                state.unknown = true
                state.markings += 1
                return
            }
            state.position = max(state.position, position)
            if ticket == state.markings { state.unknown = false }
        }
    }
}
