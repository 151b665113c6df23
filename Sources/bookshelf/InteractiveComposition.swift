import BookCatalog
import BookshelfModel
import BookshelfUI
import CatalogSimulation
import Foundation
import PostgresCatalog
import SQLiteCatalog

extension InteractiveCommand {
    /// What the screen works on for an opened catalog: the connector the model opens sessions
    /// with, the header's words, and the catalog as the recent list and the drafts know it.
    struct Composed: Sendable {
        let connector: any CatalogConnector
        let info: StoreInfo
        let catalog: RecentCatalog
    }

    /// Wires an opened catalog for the screen, at start and when the switcher opens another.
    /// `--latency` slows every SQLite catalog of the run down alike.
    static func compose(_ store: Store, schedule: LatencySchedule?) -> Composed {
        let catalog = RecentCatalogs.catalog(of: store)
        switch store {
        case let .sqlite(opened, _):
            let plain = SQLiteConnector(catalog: opened)
            let connector: any CatalogConnector =
                schedule.map {
                    LatencyScriptedConnector(
                        plain,
                        script: LatencyScript(
                            schedule: $0, sleeper: WallClockSleeper(),
                            retainedCalls: LatencyScript.interactiveRetainedCalls))
                } ?? plain
            return Composed(
                connector: connector, info: StoreInfo(kind: catalog.kind.title, location: catalog.shown),
                catalog: catalog)
        case let .calibre(library):
            let connector = CalibreConnector(
                store: library, stateFolder: StateFolder.path(environment: ProcessInfo.processInfo.environment))
            return Composed(
                connector: connector,
                info: StoreInfo(kind: catalog.kind.title, location: catalog.shown, revisions: connector.revisionStyle),
                catalog: catalog)
        case let .postgres(connector, description, _):
            return Composed(
                connector: connector, info: StoreInfo(kind: catalog.kind.title, location: description),
                catalog: catalog)
        }
    }
}
