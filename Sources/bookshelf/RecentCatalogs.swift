import BookshelfModel
import PostgresCatalog
import SQLiteCatalog

#if canImport(Glibc)
    import Glibc
#endif

/// How the app names a catalog it opened: as an entry of the recent list (how to open it
/// again), as the switcher and the header show it, and as the kept drafts know it. One place,
/// so that a catalog opened at start and the same one opened from the switcher are one catalog.
enum RecentCatalogs {
    /// The catalog the app opened, as the recent list keeps it.
    static func catalog(of store: InteractiveCommand.Store) -> RecentCatalog {
        switch store {
        case let .sqlite(_, path):
            RecentCatalog(
                kind: .sqlite, location: InteractiveCommand.realPath(path),
                shown: InteractiveCommand.displayPath(path))
        case let .calibre(library):
            RecentCatalog(
                kind: .calibre, location: InteractiveCommand.realPath(library.folder),
                shown: InteractiveCommand.displayPath(library.folder))
        case let .postgres(_, description, remembered):
            // Without a string that may be written down, the entry is not recorded (empty).
            RecentCatalog(kind: .postgresql, location: remembered ?? "", shown: description)
        }
    }

    /// An entry of the recent list as the switcher offers it: shown as the header would show it,
    /// and said missing when its file or folder is gone.
    static func catalog(of entry: RecentCatalogFile.Entry) -> RecentCatalog? {
        guard let kind = entry.catalogKind else { return nil }
        switch kind {
        case .sqlite:
            return RecentCatalog(
                kind: kind, location: entry.location, shown: InteractiveCommand.displayPath(entry.location),
                isMissing: access(entry.location, F_OK) != 0)
        case .calibre:
            return RecentCatalog(
                kind: kind, location: entry.location, shown: InteractiveCommand.displayPath(entry.location),
                isMissing: !CalibreLibraryStore.isLibrary(entry.location))
        case .postgresql:
            return RecentCatalog(
                kind: kind, location: entry.location,
                shown: TerminalText.sanitized(shown(PostgresConnector(entry.location))))
        }
    }

    /// A PostgreSQL catalog named by `connection`, as it may be written down: without its
    /// password (nil when the string cannot be read).
    static func postgres(_ connection: String) -> RecentCatalog? {
        let connector = PostgresConnector(connection)
        guard let remembered = connector.withoutPassword else { return nil }
        return RecentCatalog(kind: .postgresql, location: remembered, shown: TerminalText.sanitized(shown(connector)))
    }

    /// "dbname=... host=...": the header already says PostgreSQL and the account, which
    /// changes when the user switches, so the connection's user is left out.
    static func shown(_ connector: PostgresConnector) -> String {
        connector.description.split(separator: " ")
            .filter { $0 != "postgresql" && !$0.hasPrefix("user=") }.joined(separator: " ")
    }

    /// The entry that records `catalog`, or nil when it may not be recorded.
    static func entry(of catalog: RecentCatalog) -> RecentCatalogFile.Entry? {
        let entry = RecentCatalogFile.Entry(kind: catalog.kind, location: catalog.location)
        return entry.isKeepable ? entry : nil
    }

    /// What the kept drafts of `catalog` are filed under: the SQLite file's real path, the
    /// library's `metadata.db`, or the PostgreSQL connection without its user.
    static func draftsIdentity(of catalog: RecentCatalog) -> String {
        switch catalog.kind {
        case .sqlite: "sqlite " + catalog.location
        case .calibre: "calibre " + InteractiveCommand.realPath(catalog.location + "/metadata.db")
        case .postgresql: "postgresql " + catalog.shown
        }
    }
}
