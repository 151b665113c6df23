import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import PostgresCatalog
import SQLiteCatalog

/// The app's `CatalogSwitching`: the recent list from `RecentCatalogFile`, and another catalog
/// opened as the app opens one at start (`InteractiveCommand.open`, the same checks), except that
/// nothing is asked on the terminal while the screen is open and nothing is created.
@MainActor
final class CatalogSwitcher: CatalogSwitching {
    let recent: RecentCatalogFile?
    let drafts: String?
    let schedule: LatencySchedule?
    let tracePath: String?

    init(recent: RecentCatalogFile?, drafts: String?, schedule: LatencySchedule?, tracePath: String?) {
        self.recent = recent
        self.drafts = drafts
        self.schedule = schedule
        self.tracePath = tracePath
    }

    /// Records `catalog` as the one opened last (a list that cannot be written is not a reason
    /// to refuse the catalog).
    nonisolated func opened(_ catalog: RecentCatalog) {
        guard let recent, let entry = RecentCatalogs.entry(of: catalog) else { return }
        try? recent.record(entry)
    }

    func recentCatalogs() -> [RecentCatalog] {
        (recent?.entries() ?? []).compactMap(RecentCatalogs.catalog(of:))
    }

    nonisolated func open(_ catalog: RecentCatalog) async throws -> OpenedCatalog {
        let target: CatalogTarget =
            switch catalog.kind {
            case .sqlite: .sqlite(path: catalog.location)
            case .calibre: .calibre(path: catalog.location)
            case .postgresql: .postgres(PostgresConnector(catalog.location))
            }
        var notice: String?
        do {
            let (store, account) = try await InteractiveCommand.open(
                CatalogReads.tracing(target, to: tracePath), account: nil, creating: .never, console: Console(),
                asksPassword: false
            ) { notice = $0.text }
            let composed = InteractiveCommand.compose(store, schedule: schedule)
            let remote = try await composed.connector.connect(account: account.name, password: nil)
            opened(composed.catalog)
            return OpenedCatalog(
                catalog: composed.catalog, connector: composed.connector, remote: remote, account: account.name,
                notice: notice)
        } catch let failure as CommandFailure {
            throw CatalogSwitchFailure(description: failure.message)
        }
    }

    func keeper(for catalog: RecentCatalog) -> (any DraftKeeping)? {
        drafts.map { KeptDraftFiles(directory: $0, catalog: RecentCatalogs.draftsIdentity(of: catalog)) }
    }
}

/// Why another catalog could not be opened, in the words the app says on standard error.
struct CatalogSwitchFailure: Error, CustomStringConvertible {
    let description: String
}
