import BookCatalog
import Locking

/// Connects each account to a fresh `SteppedRemote` seeded with that account's books.
public final class SteppedConnector: CatalogConnector {
    private struct State {
        var remotes: [(account: String, remote: SteppedRemote)] = []
        var failures: [String: BookFailure] = [:]
        var holdsConnections = false
        var heldConnections: [CheckedContinuation<Void, Never>] = []
        var heldWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public let books: [String: [BookRecord]]
    public let passwords: [String: String]
    private let state = Locked(State())

    public init(books: [String: [BookRecord]], passwords: [String: String] = [:]) {
        self.books = books
        self.passwords = passwords
    }

    public func accountNames() async throws -> [String] { books.keys.sorted() }

    public func requiresPassword(for account: String) -> Bool { passwords[account] != nil }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        if state.withLock({ $0.holdsConnections }) {
            // Connecting takes time while the user goes on typing: wait for the test.
            await withCheckedContinuation { continuation in
                let waiters = state.withLock { state in
                    state.heldConnections.append(continuation)
                    defer { state.heldWaiters.removeAll() }
                    return state.heldWaiters
                }
                waiters.forEach { $0.resume() }
            }
        }
        if let failure = state.withLock({ $0.failures[account] }) { throw failure }
        guard books[account] != nil else { throw BookFailure.missing }
        if let expected = passwords[account], expected != password { throw BookFailure.notAllowed }
        let remote = SteppedRemote(books: books[account] ?? [], account: account, password: passwords[account])
        state.withLock { $0.remotes.append((account, remote)) }
        return remote
    }

    public func failConnections(to account: String, with failure: BookFailure?) {
        state.withLock { $0.failures[account] = failure }
    }

    /// From now on each connection waits for `releaseHeldConnection` before it opens.
    public func holdConnections() { state.withLock { $0.holdsConnections = true } }

    /// Suspends until a connection is waiting to be released.
    public func waitForHeldConnection() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.heldConnections.isEmpty { state.heldWaiters.append(continuation); return false }
                return true
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets the oldest waiting connection open.
    public func releaseHeldConnection() {
        let next = state.withLock { $0.heldConnections.isEmpty ? nil : $0.heldConnections.removeFirst() }
        next?.resume()
    }

    /// Every remote handed out, oldest first.
    public var remotes: [SteppedRemote] { state.withLock { $0.remotes.map(\.remote) } }
    public var latest: SteppedRemote { remotes.last! }
    public var connectionCount: Int { remotes.count }
}
