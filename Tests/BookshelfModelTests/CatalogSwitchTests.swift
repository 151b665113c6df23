import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The switcher's other catalogs over stepped stores: each catalog is a `SteppedConnector`
/// whose starting account is its first by name, and opening one connects that account (held
/// while the test wants the opening in flight). Opening a catalog it does not hold fails, as a
/// missing file does.
@MainActor
final class SteppedCatalogs: CatalogSwitching {
    let list: [RecentCatalog]
    let connectors: [String: SteppedConnector]
    private(set) var keepersAsked: [RecentCatalog] = []

    init(_ catalogs: [(RecentCatalog, SteppedConnector?)]) {
        list = catalogs.map(\.0)
        connectors = Dictionary(
            catalogs.compactMap { catalog, connector in connector.map { (catalog.location, $0) } },
            uniquingKeysWith: { first, _ in first })
    }

    func recentCatalogs() -> [RecentCatalog] { list }

    nonisolated func open(_ catalog: RecentCatalog) async throws -> OpenedCatalog {
        guard let connector = connectors[catalog.location] else { throw NotACatalog(path: catalog.shown) }
        let account = try await connector.accountNames().first!
        let remote = try await connector.connect(account: account, password: nil)
        return OpenedCatalog(
            catalog: catalog, connector: BatchKeepingConnector(base: connector), remote: remote, account: account,
            notice: "Opened \(catalog.shown).")
    }

    func keeper(for catalog: RecentCatalog) -> (any DraftKeeping)? {
        keepersAsked.append(catalog)
        return nil
    }

    struct NotACatalog: Error, CustomStringConvertible {
        let path: String
        var description: String { "no catalog at \(path)" }
    }
}

/// Issue 62, ask 7: the switcher opens another catalog as a new session under the same
/// publication gate as an account switch, so nothing of the old catalog's pending work (a
/// search's answer or error, its busy state, a batch's saves, the marks) ever appears in the
/// new one, in whatever order the answers and the opening arrive.
@MainActor
@Suite struct CatalogSwitchTests {
    static let home = RecentCatalog(kind: .sqlite, location: "/books/home.sqlite", shown: "~/home.sqlite")
    static let library = RecentCatalog(kind: .calibre, location: "/books/Calibre Library", shown: "~/Calibre Library")
    static let gone = RecentCatalog(
        kind: .sqlite, location: "/books/gone.sqlite", shown: "~/gone.sqlite", isMissing: true)

    static let homeShelf = [book(1, "Dune"), book(2, "Emma"), book(3, "Ivanhoe")]
    static let libraryShelf = [book(41, "Walden"), book(42, "Middlemarch")]

    /// A run on `home` (alice and bob) with `library` (carol's) and a missing file among the
    /// recent catalogs; the library's connections wait for the test.
    static func started() async -> (Harness, SteppedConnector) {
        let libraryConnector = SteppedConnector(books: ["carol": libraryShelf])
        libraryConnector.holdConnections()
        let catalogs = SteppedCatalogs([(home, nil), (library, libraryConnector), (gone, nil)])
        let harness = Harness(
            books: ["alice": homeShelf, "bob": []], keepsBatches: true, catalog: home, catalogs: catalogs)
        await harness.start()
        return (harness, libraryConnector)
    }

    @Test func theSwitcherOffersTheOtherRecentCatalogsAndNotTheOpenOne() async {
        let (h, _) = await Self.started()
        #expect(h.state.otherCatalogs == [Self.library, Self.gone])
        #expect(h.state.switchedCatalog == nil)
        #expect(h.model.requestCatalogSwitch(to: Self.home) == nil, "the open catalog is not opened again")
        await h.drain()
    }

    @Test func aDirtyDraftAsksFirstAndCancelKeepsEverything() async throws {
        let (h, library) = await Self.started()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: "Mine")
        #expect(h.model.requestCatalogSwitch(to: Self.library) == nil)
        #expect(h.state.confirmation == ModelConfirmation(action: .switchCatalog(Self.library)))
        #expect(h.state.confirmation?.question == "Discard your unsaved changes and open ~/Calibre Library?")
        h.model.cancelConfirmation()
        #expect(h.editor?.draft.title == "Mine" && h.state.session == 1)
        #expect(library.connectionCount == 0, "nothing was opened")

        h.model.requestCatalogSwitch(to: Self.library)
        let open = try #require(h.model.confirm(), "the confirmed switch opens the library")
        await library.waitForHeldConnection()
        library.releaseHeldConnection()
        await h.model.finished(request: open)
        #expect(h.state.session == 2 && h.editor == nil && h.state.account == "carol")
        for remote in library.remotes { await remote.close() }
        await h.drain()
    }

    /// A save on its way cannot be discarded: the switch waits for it, as an account switch
    /// does, and opens the library only once the save went through; its outcome is told.
    @Test(arguments: [true, false])
    func aSaveInFlightIsWaitedForAndTheLibraryOpensOnlyIfItWentThrough(saveGoesThrough: Bool) async throws {
        let (h, library) = await Self.started()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: "Dune, Mine")
        let save = h.model.save()!
        let call = await h.nextCall(.save)
        #expect(h.model.requestCatalogSwitch(to: Self.library) == nil)
        #expect(h.state.confirmation == ModelConfirmation(action: .switchCatalog(Self.library), waitsForSave: true))
        #expect(h.model.confirm() == nil, "nothing happens while the save is in flight")
        #expect(h.state.waitingForSave == .switchCatalog(Self.library))
        await h.release(
            call.number, saveGoesThrough ? .deliver : .fail(.storeUnavailable("home is down")), request: save)
        if saveGoesThrough {
            let open = try #require(
                h.model.pendingRequests.last { $0.kind == .openCatalog }?.request, "the library opens after the save")
            await library.waitForHeldConnection()
            library.releaseHeldConnection()
            await h.model.finished(request: open)
            #expect(h.state.session == 2 && h.state.account == "carol" && h.editor == nil)
            #expect(h.state.switchedCatalog == Self.library)
        } else {
            #expect(h.state.session == 1 && h.editor?.draft.title == "Dune, Mine")
            #expect(
                h.state.message
                    == "The save did not go through, so you did not open ~/Calibre Library: your draft is still here.")
            #expect(library.connectionCount == 0, "nothing was opened")
        }
        for remote in library.remotes { await remote.close() }
        await h.drain()
    }

    @Test func aCatalogThatCannotBeOpenedKeepsTheSessionAndSaysWhy() async {
        let (h, _) = await Self.started()
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.toggleMark(2)
        let open = h.model.requestCatalogSwitch(to: Self.gone)!
        #expect(h.state.connection.connectingTo == "~/gone.sqlite" && h.state.connection.concernsCatalog)
        await h.model.finished(request: open)
        #expect(h.state.session == 1 && h.state.account == "alice" && h.state.switchedCatalog == nil)
        #expect(h.state.connection.error == "~/gone.sqlite: no catalog at ~/gone.sqlite")
        #expect(h.state.connection.concernsCatalog && h.state.connection.connectingTo == nil)
        #expect(h.editor?.bookID == 1 && h.state.bulk.marked == [2] && h.search.rows == Self.homeShelf)
        // An account switch afterwards is about an account again.
        await h.switchAccount(to: "bob")
        #expect(!h.state.connection.concernsCatalog && h.state.connection.error == nil)
        await h.drain()
    }

    /// A search (answered with a page or a failure) and a batch's first save (committed, or
    /// failed) of the old catalog are in flight, with books marked, when the library is asked
    /// for; the three answers (the search's, the save's, the opening's) arrive in every order.
    /// Until the library opens, the old session goes on as it would; from then on it is the
    /// library's session and nothing of the old one shows, whenever it answers; the batch stops
    /// before its next book.
    @Test func theOldCatalogsWorkNeverShowsInTheNewOneInEveryOrder() async {
        enum Answer: CaseIterable { case search, save, open }
        let orders: [[Answer]] = [
            [.search, .save, .open], [.search, .open, .save], [.save, .search, .open],
            [.save, .open, .search], [.open, .search, .save], [.open, .save, .search],
        ]
        var cases = 0
        for order in orders {
            for searchSucceeds in [true, false] {
                for saveSucceeds in [true, false] {
                    await run(order: order, searchSucceeds: searchSucceeds, saveSucceeds: saveSucceeds)
                    cases += 1
                }
            }
        }
        print("CatalogSwitchTests: \(cases) cases (6 orders x 2 search outcomes x 2 save outcomes)")
        #expect(cases == 24)

        func run(order: [Answer], searchSucceeds: Bool, saveSucceeds: Bool) async {
            let label = "\(order), search \(searchSucceeds), save \(saveSucceeds)"
            let (h, library) = await Self.started()
            let home = h.remote
            h.model.toggleMark(1)
            h.model.toggleMark(2)
            let read = h.model.openBulkEditor()!
            for _ in 0..<2 { await home.release(await h.nextCall(.load).number, .deliver) }
            await h.model.finished(request: read)
            for character in "Anon" { h.model.editBulkText(.insert(String(character))) }
            let batch = h.model.runBulkEdit()!
            let save = await h.nextCall(.save)
            let search = h.model.setQuery("e")!
            let searchCall = await h.nextCall(.search)
            let open = h.model.requestCatalogSwitch(to: Self.library)!
            await library.waitForHeldConnection()
            #expect(h.state.connection.connectingTo == "~/Calibre Library", "\(label)")

            let homeRows = [book(2, "Emma")]
            var opened = false
            for answer in order {
                switch answer {
                case .search:
                    await h.release(
                        searchCall.number, on: home,
                        searchSucceeds ? .page(homeRows, total: 1) : .fail(.storeUnavailable("home is down")),
                        request: search)
                case .save:
                    await home.release(save.number, saveSucceeds ? .deliver : .fail(.storeUnavailable("home is down")))
                    if !opened {
                        // Still the home session: the batch goes on to its second book.
                        await home.release(await h.nextCall(.save, on: home).number, .deliver)
                    }
                    await h.model.finished(request: batch)
                case .open:
                    library.releaseHeldConnection()
                    await h.model.finished(request: open)
                    opened = true
                }
                if opened {
                    // The library's session: none of home's answers, errors, busy state, batch or marks.
                    #expect(h.state.session == 2 && h.state.account == "carol", "\(label)")
                    #expect(h.state.switchedCatalog == Self.library, "\(label)")
                    #expect(h.search.rows.isEmpty && h.search.error == nil, "\(label) after \(answer)")
                    #expect(h.search.isBusy, "only the library's own search is waited for: \(label)")
                    #expect(h.state.bulk == BulkState(), "\(label) after \(answer)")
                    #expect(h.state.connection.connectingTo == nil && h.state.connection.error == nil, "\(label)")
                } else {
                    #expect(h.state.session == 1 && h.state.account == "alice", "\(label)")
                    #expect(h.state.switchedCatalog == nil && h.state.connection.connectingTo != nil, "\(label)")
                    if answer == .search {
                        // A batch that ended first saved a book, and the refresh it began took over
                        // from the typed search: that answer then changes nothing.
                        let refreshed = order.firstIndex(of: .save)! < order.firstIndex(of: .search)!
                        let shows = searchSucceeds && !refreshed
                        #expect(h.search.rows == (shows ? homeRows : Self.homeShelf), "\(label)")
                        #expect((h.search.error != nil) == (!searchSucceeds && !refreshed), "\(label)")
                    }
                    #expect(h.state.bulk.marked == [1, 2], "\(label)")
                }
            }
            // The batch never reached a book after the switch: home saw one save a book before it.
            let savesBeforeOpen = order.firstIndex(of: .save)! < order.firstIndex(of: .open)! ? 2 : 1
            #expect(await home.arrivalCount(of: .save) == savesBeforeOpen, "\(label)")
            // The library answers its own search; it is the only thing on screen.
            let librarySearch = h.model.pendingRequests.last { $0.kind == .search }!.request
            await h.release(
                await h.nextCall(.search, on: library.latest).number, on: library.latest,
                .page(Self.libraryShelf, total: 2), request: librarySearch)
            #expect(h.search.rows == Self.libraryShelf && !h.search.isBusy, "\(label)")
            #expect(h.state.otherCatalogs == [Self.home, Self.gone], "\(label)")
            for remote in library.remotes { await remote.close() }
            await h.drain()
        }
    }
}
