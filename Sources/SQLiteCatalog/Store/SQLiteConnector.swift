import BookCatalog

/// Opens account sessions on an SQLite catalog for the model: one connection (and search
/// index) per session. SQLite has no passwords.
public struct SQLiteConnector: CatalogConnector {
    public let catalog: SQLiteCatalog

    public init(catalog: SQLiteCatalog) {
        self.catalog = catalog
    }

    public func accountNames() async throws -> [String] {
        try catalog.accounts().map(\.name).sorted()
    }

    public func accountRoles() async throws -> [String: AccountRole] {
        Dictionary(try catalog.accounts().map { ($0.name, $0.role) }, uniquingKeysWith: { first, _ in first })
    }

    public func accountScopes() async throws -> [String: String] {
        Dictionary(try catalog.accounts().map { ($0.name, $0.scope) }, uniquingKeysWith: { first, _ in first })
    }

    public func requiresPassword(for account: String) -> Bool { false }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        do {
            return try catalog.remote(account: account)
        } catch {
            throw BookFailure.storeUnavailable(error.description)
        }
    }
}
