/// Opens account sessions on a catalog. The model asks it for a remote each time the user
/// connects; every connection gets its own `BookRepository`, so a cache never outlives
/// its session.
public protocol CatalogConnector: Sendable {
    /// The accounts the user can choose from, in display order.
    func accountNames() async throws -> [String]
    /// Each account's role, where the catalog tells (the switcher shows it).
    func accountRoles() async throws -> [String: AccountRole]
    /// Each account's scope (which books it sees), where the catalog tells (the switcher shows it).
    func accountScopes() async throws -> [String: String]
    /// Whether `connect` needs a password for `account` (the UI prompts before connecting).
    func requiresPassword(for account: String) -> Bool
    /// A remote acting as `account`: it searches and counts like every store; what else it can
    /// do (freshness checks need a `ChangeDetectingRemote`) the session asks once.
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote
    /// How the catalog's revisions read to a user: a count of saves (every store of Bookshelf's
    /// own), or a time (a Calibre library's `last_modified`).
    var revisionStyle: RevisionStyle { get }
}

extension CatalogConnector {
    public var revisionStyle: RevisionStyle { .counter }
    public func accountRoles() async throws -> [String: AccountRole] { [:] }
    public func accountScopes() async throws -> [String: String] { [:] }
}
