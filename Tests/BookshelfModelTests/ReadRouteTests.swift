import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The request log names the server that answered a read when the store serves reads from
/// several (a primary and standbys), for the request panel; as any answer, only a shown one.
@MainActor
@Suite struct ReadRouteTests {
    /// Each search is answered by a server named after its query, so a route in the log can
    /// only be the one its own read was given.
    nonisolated static func route(of query: String) -> ReadRoute {
        ReadRoute(server: "standby-\(query):5433", servedByStandby: true, fellBack: false)
    }

    @Test func theLogNamesTheServerThatAnsweredEachShownRead() async {
        let stepped = SteppedConnector(books: ["alice": [book(1, "Dune")]])
        let model = BookshelfModel(
            connector: RouteReportingConnector(base: stepped), account: "alice", clock: StoreClock { .zero })
        let connect = model.start()!
        await model.finished(request: connect)
        await model.accountsListed()
        let first = model.pendingRequests.last { $0.kind.matches(.search) }!.request
        await stepped.latest.release(await stepped.latest.call(1, of: .search).number, .deliver)
        await model.finished(request: first)
        #expect(model.log.trace(ofRequest: first)?.answeredBy == Self.route(of: ""))

        // "d" is overtaken by "du" and answers last: its host is never published.
        let older = model.setQuery("d")!
        let olderCall = await stepped.latest.call(2, of: .search)
        let newer = model.setQuery("du")!
        let newerCall = await stepped.latest.call(3, of: .search)
        await stepped.latest.release(newerCall.number, .deliver)
        await model.finished(request: newer)
        await stepped.latest.release(olderCall.number, .deliver)
        await model.finished(request: older)

        #expect(model.log.trace(ofRequest: newer)?.fate == .published)
        #expect(model.log.trace(ofRequest: newer)?.answeredBy == Self.route(of: "du"))
        #expect(model.log.trace(ofRequest: older)?.fate == .droppedStale)
        #expect(model.log.trace(ofRequest: older)?.answeredBy == nil)
        for remote in stepped.remotes { await remote.close() }
        for request in model.runningRequests { await model.finished(request: request) }
    }

    @Test func aStoreWithOneServerNamesNone() async {
        let h = Harness(books: ["alice": [book(1, "Dune")]])
        await h.start()
        let search = h.model.setQuery("du")!
        await h.answer(.search, with: .deliver)
        #expect(h.model.log.trace(ofRequest: search)?.fate == .published)
        #expect(h.model.log.trace(ofRequest: search)?.answeredBy == nil)
        await h.drain()
    }
}

/// Opens the stepped connector's sessions behind `RouteReportingRemote`.
private struct RouteReportingConnector: CatalogConnector {
    let base: SteppedConnector

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        RouteReportingRemote(base: try await base.connect(account: account, password: password) as! SteppedRemote)
    }
}

/// A stepped remote whose searches say which server answered them, as a replicated store's do.
private struct RouteReportingRemote: SearchableBookRemote, ChangeDetectingRemote {
    let base: SteppedRemote

    func search(_ query: SearchQuery) async throws -> SearchPage {
        let page = try await base.search(query)
        ReadRouteNote.current?.note(ReadRouteTests.route(of: query.text))
        return page
    }
    func bookCount() async throws -> Int { try await base.bookCount() }
    func load(id: Int) async throws -> BookRecord { try await base.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await base.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    func save(_ request: SaveRequest) async throws -> BookRecord { try await base.save(request) }
    func checkForChanges() async throws -> ChangeNotice? { try await base.checkForChanges() }
}
