import BookCatalog

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

    public func accountScopes() async throws -> [String: String] {
        Dictionary(catalog.accounts.map { ($0.name, $0.scope) }, uniquingKeysWith: { first, _ in first })
    }

    public func requiresPassword(for account: String) -> Bool { passwords[account] != nil }

    public func connect(account name: String, password: String?) async throws -> any SearchableBookRemote {
        guard let account = catalog.account(named: name) else { throw BookFailure.notAllowed }
        if let expected = passwords[name], expected != password { throw BookFailure.notAllowed }
        return MemoryBookRemote(catalog: catalog, account: account)
    }
}
