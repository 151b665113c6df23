import BookCatalog
import BookshelfModel
import CatalogSimulation

/// The books and accounts every scene runs over. Each pane gets its own copy of the catalog
/// (same ids, same titles) so that the two models cannot disturb each other: the naive
/// pane's blind overwrite must not be what makes the real pane conflict.
struct DemoWorld: Sendable {
    struct Shelf: Sendable {
        let scope: String
        let books: [NewBook]
    }

    /// The account the scenes start as, and the one the accounts scene switches to.
    static let firstAccount = Account(name: "alice", role: .editor, scope: "main")
    static let secondAccount = Account(name: "carol", role: .editor, scope: "north")

    let accounts = [firstAccount, secondAccount]
    let shelves = [
        Shelf(scope: "main", books: SampleBooks.mainLandmarks + Array(SampleBooks(count: 300, seed: 1))),
        Shelf(scope: "north", books: SampleBooks.northLandmarks + Array(SampleBooks(count: 100, seed: 2))),
    ]

    /// Every book with the id `MemoryCatalog` gives it (ids follow insertion order from 1).
    var records: [(record: BookRecord, scope: String)] {
        var id = 0
        return shelves.flatMap { shelf in
            shelf.books.map { book in
                id += 1
                return (
                    BookRecord(id: id, title: book.title, revision: 1, author: book.author, details: book.details),
                    shelf.scope
                )
            }
        }
    }

    /// A fresh catalog holding the world.
    func makeCatalog() -> MemoryCatalog {
        let catalog = MemoryCatalog()
        accounts.forEach(catalog.addAccount)
        for (record, scope) in records {
            let added = catalog.addBook(
                title: record.title, author: record.author, details: record.details, scope: scope)
            precondition(added.id == record.id, "sample ids must follow insertion order")
        }
        return catalog
    }

    func scope(of accountName: String) -> String? {
        accounts.first { $0.name == accountName }?.scope
    }

    /// The demo's own answer to "what should this search show": the matching rule of
    /// `SearchTerms` applied to the world's books, computed without any store or model, so
    /// the oracle does not trust what it is checking.
    func expectedIDs(query: String, scope: String, limit: Int) -> [Int] {
        let terms = SearchTerms(query)
        return records.filter { $0.scope == scope && (terms.isEmpty || terms.matches($0.record)) }
            .map(\.record)
            .sorted { terms.sortKey($0) < terms.sortKey($1) }
            .prefix(limit)
            .map(\.id)
    }

    func ids(inScope scope: String) -> Set<Int> {
        Set(records.filter { $0.scope == scope }.map(\.record.id))
    }
}

/// Connects the real model to a pane's catalog through the pane's latency script: every
/// session's remote is a `LatencyScriptedRemote` labelled with its account.
struct ScriptedConnector: CatalogConnector {
    let catalog: MemoryCatalog
    let script: LatencyScript
    /// Awaited before a connection opens. On virtual time the script numbers requests as they
    /// arrive, and a switch that waited for a save starts right after the save's refresh: the
    /// new session's first search must not overtake the old session's refresh on a busy
    /// machine, or the transcript would depend on the machine (see `RealPane.init`).
    var beforeConnecting: @Sendable () async -> Void = {}

    func accountNames() async throws -> [String] { catalog.accounts.map(\.name) }

    func requiresPassword(for account: String) -> Bool { false }

    func connect(account name: String, password: String?) async throws -> any SearchableBookRemote {
        await beforeConnecting()
        return try remote(for: name)
    }

    func remote(for name: String) throws -> LatencyScriptedRemote<MemoryBookRemote> {
        guard let account = catalog.account(named: name) else { throw BookFailure.notAllowed }
        return LatencyScriptedRemote(MemoryBookRemote(catalog: catalog, account: account), script: script, label: name)
    }
}
