/// Opens account sessions on a catalog. The model asks it for a remote each time the user
/// connects; every connection gets its own `BookRepository`, so a cache never outlives
/// its session.
public protocol CatalogConnector: Sendable {
    /// The accounts the user can choose from, in display order.
    func accountNames() async throws -> [String]
    /// Each account's role, where the catalog tells (the switcher shows it).
    func accountRoles() async throws -> [String: AccountRole]
    /// Whether `connect` needs a password for `account` (the UI prompts before connecting).
    func requiresPassword(for account: String) -> Bool
    /// A remote acting as `account`. Searching needs a `SearchableBookRemote`; freshness
    /// checks need a `ChangeDetectingRemote`.
    func connect(account: String, password: String?) async throws -> any BookRemote
}

extension CatalogConnector {
    public func accountRoles() async throws -> [String: AccountRole] { [:] }
}

/// Connects to the accounts of an in-memory catalog, one `MemoryBookRemote` per session.
/// For tests and demos; accounts listed in `passwords` need that password.
public struct MemoryCatalogConnector: CatalogConnector {
    public let catalog: MemoryCatalog
    private let passwords: [String: String]

    public init(catalog: MemoryCatalog, passwords: [String: String] = [:]) {
        self.catalog = catalog
        self.passwords = passwords
    }

    public func accountNames() async throws -> [String] { catalog.accounts.map(\.name) }

    public func accountRoles() async throws -> [String: AccountRole] {
        Dictionary(catalog.accounts.map { ($0.name, $0.role) }, uniquingKeysWith: { first, _ in first })
    }

    public func requiresPassword(for account: String) -> Bool { passwords[account] != nil }

    public func connect(account name: String, password: String?) async throws -> any BookRemote {
        guard let account = catalog.account(named: name) else { throw BookFailure.notAllowed }
        if let expected = passwords[name], expected != password { throw BookFailure.notAllowed }
        return MemoryBookRemote(catalog: catalog, account: account)
    }
}
