import BookCatalog

/// A catalog or library the app opened before, as the account switcher offers it (issue 62,
/// ask 7): what it is, how to open it again, and how it reads on screen.
public struct RecentCatalog: Equatable, Hashable, Sendable {
    public enum Kind: String, Equatable, Hashable, Sendable, CaseIterable {
        case sqlite, calibre, postgresql

        /// As the header names the store.
        public var title: String {
            switch self {
            case .sqlite: "SQLite"
            case .calibre: "Calibre"
            case .postgresql: "PostgreSQL"
            }
        }
    }

    public let kind: Kind
    /// How to open it again: a file's or folder's absolute path, or a PostgreSQL connection
    /// string that holds no password. Two entries are the same catalog when these agree.
    public let location: String
    /// How the switcher and the header name it (a path under the home folder as `~/…`). Data:
    /// the screen sanitises it as any store string.
    public let shown: String
    /// The file or folder is gone (a PostgreSQL catalog is never known missing before connecting).
    public var isMissing: Bool

    public init(kind: Kind, location: String, shown: String, isMissing: Bool = false) {
        self.kind = kind
        self.location = location
        self.shown = shown
        self.isMissing = isMissing
    }

    /// The same catalog, whatever the record says of it now (missing or not, how it is shown).
    public func isSameCatalog(as other: RecentCatalog) -> Bool { kind == other.kind && location == other.location }
}

/// Another catalog, opened and signed in as its starting account, ready to be a new session.
public struct OpenedCatalog: Sendable {
    public let catalog: RecentCatalog
    public let connector: any CatalogConnector
    /// The starting account's session, already proven readable.
    public let remote: any SearchableBookRemote
    public let account: String
    /// Said once when the session begins (a library calibre holds is read-only here, say).
    public let notice: String?

    public init(
        catalog: RecentCatalog, connector: any CatalogConnector, remote: any SearchableBookRemote, account: String,
        notice: String? = nil
    ) {
        self.catalog = catalog
        self.connector = connector
        self.remote = remote
        self.account = account
        self.notice = notice
    }
}

/// What the app gives the model so that the switcher can open the catalogs opened recently:
/// the list (a small file of the state folder, read synchronously as kept drafts are) and the
/// opening, which does I/O and so runs as an effect's call.
@MainActor
public protocol CatalogSwitching: AnyObject, Sendable {
    /// The catalogs opened recently, newest first (the current one may be among them).
    func recentCatalogs() -> [RecentCatalog]
    /// Opens `catalog` as its starting account and records it as opened; throws what a user
    /// should read when it cannot (gone, not a catalog, held by calibre...).
    nonisolated func open(_ catalog: RecentCatalog) async throws -> OpenedCatalog
    /// Where the drafts of `catalog` are kept between runs.
    func keeper(for catalog: RecentCatalog) -> (any DraftKeeping)?
}
