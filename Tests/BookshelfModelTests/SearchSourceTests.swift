import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The request log keeps what answered each shown search (`SearchPage.source`: the index, the
/// books while it is built…), for F4 and `--trace`; as everything published, only for the
/// newest request of the current session.
@MainActor
@Suite struct SearchSourceTests {
    static func page(_ records: [BookRecord], _ totalCount: TotalCount, _ source: SearchAnswerSource) -> SearchPage {
        SearchPage(records: records, totalCount: totalCount, source: source)
    }

    /// "d" is overtaken by "du" and answers last, from another source: the log keeps the source
    /// of "du", the one shown, and never the overtaken one's.
    @Test func aShownSearchKeepsItsSourceAndAnOvertakenOneNone() async {
        let dune = book(1, "Dune")
        let h = Harness(books: ["alice": [dune]])
        await h.start()
        let older = h.model.setQuery("d")!
        let olderCall = await h.nextCall(.search)
        let newer = h.model.setQuery("du")!
        let newerCall = await h.nextCall(.search)
        await h.release(newerCall.number, .searchPage(Self.page([dune], .exact(1), .index)), request: newer)
        await h.release(olderCall.number, .searchPage(Self.page([dune], .exact(1), .booksTable)), request: older)

        #expect(h.model.log.trace(ofRequest: newer)?.fate == .published)
        #expect(h.model.log.trace(ofRequest: newer)?.source == .index)
        #expect(h.model.log.trace(ofRequest: older)?.fate == .droppedStale)
        #expect(h.model.log.trace(ofRequest: older)?.source == nil)
        #expect(!h.traces.contains { $0.source == .booksTable }, "the overtaken answer's source reached the trace")
        await h.drain()
    }

    /// A page shown before its count and the count that follows are each answered on their own,
    /// each by its own source (the title order while the index is built, then the books).
    @Test func aPageAndItsCountEachKeepTheirOwnSource() async {
        let harbor = [book(1, "Harbor"), book(2, "Harvest")]
        let h = Harness(books: ["alice": harbor])
        await h.start()
        let search = h.model.setQuery("h")!
        let pageCall = await h.nextCall(.search)
        // The count runs next in the page's chain: its request is not finished until the count is.
        await h.remote.release(pageCall.number, .searchPage(Self.page(harbor, .counting(atLeast: 2), .titleOrder)))
        let countCall = await h.nextCall(.search)
        let count = h.model.pendingRequests.last { $0.kind == .count }!.request
        await h.release(countCall.number, .searchPage(Self.page(harbor, .exact(2), .booksTable)), request: count)

        await h.model.finished(request: search)
        #expect(h.model.log.trace(ofRequest: search)?.source == .titleOrder)
        #expect(h.model.log.trace(ofRequest: count)?.source == .booksTable)
        await h.drain()
    }

    /// A search of the old session that answers after an account switch publishes nothing, its
    /// source included.
    @Test func aSearchOfAnOldSessionKeepsNoSource() async {
        let h = Harness(books: ["alice": [], "bob": [book(9, "Bob's book")]])
        await h.start(answering: .page([], total: 0))
        let oldRemote = h.remote
        let search = h.model.setQuery("a")!
        let call = await h.nextCall(.search)
        await h.switchAccount(to: "bob")
        await h.release(
            call.number, on: oldRemote, .searchPage(Self.page([book(1, "Alice's")], .exact(1), .index)),
            request: search)

        #expect(h.model.log.trace(ofRequest: search)?.fate == .droppedOldSession)
        #expect(h.model.log.trace(ofRequest: search)?.source == nil)
        #expect(!h.traces.contains { $0.source != nil }, "no shown search in this test named a source")
        await h.drain()
    }

    /// `--trace` writes what answered a shown search at the end of its line, and nothing for a
    /// request the store named no source for.
    @Test func theTraceLineNamesTheSource() {
        let shown = RequestTrace(
            request: 4, session: 1, kind: .search, started: .zero, storeTime: .milliseconds(2), fate: .published,
            source: .staleIndex)
        let load = RequestTrace(
            request: 5, session: 1, kind: .load, started: .zero, storeTime: .milliseconds(2), fate: .published)
        #expect(shown.description.hasSuffix(" fate=published source=stale-index"), "\(shown)")
        #expect(!load.description.contains("source="), "\(load)")
    }
}
