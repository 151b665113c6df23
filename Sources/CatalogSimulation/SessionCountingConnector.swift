import BookCatalog
import Locking

/// Opens sessions through `base` and counts how many are still alive. A session the app lets
/// go of (an account switch) must be freed with its remote, and whatever the remote holds (an
/// SQLite connection and its search index); a long-session test and the session bench check it.
/// `Remote` is the base's concrete remote; another kind of remote is passed on uncounted.
public final class SessionCountingConnector<Remote: BookRemote & AnyObject>: CatalogConnector {
    private let base: any CatalogConnector
    private let sessions = Locked<[WeakRemote]>([])

    private struct WeakRemote { weak var remote: Remote? }

    public init(_ base: any CatalogConnector) { self.base = base }

    /// How many sessions were opened.
    public var opened: Int { sessions.withLock { $0.count } }
    /// How many of them are still held by someone.
    public var alive: Int { sessions.withLock { $0.filter { $0.remote != nil }.count } }

    public func accountNames() async throws -> [String] { try await base.accountNames() }
    public func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }
    public func accountScopes() async throws -> [String: String] { try await base.accountScopes() }
    public func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        let remote = try await base.connect(account: account, password: password)
        if let counted = remote as? Remote { sessions.withLock { $0.append(WeakRemote(remote: counted)) } }
        return remote
    }
}
