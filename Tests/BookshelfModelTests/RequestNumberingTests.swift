import BookCatalog
import CatalogSimulation
import Testing

@testable import BookshelfModel

/// The request numbers a user sees (F4, `--trace`, the numbers the intents return) are the
/// numbers of the requests the log records, with no gaps: connecting to the first account is 1,
/// its first search 2 (README, `--latency`). Background requests the log leaves out (the account
/// list, the header's count, a freshness check that found nothing) take none of them.
@MainActor
@Suite struct RequestNumberingTests {
    @Test func connectingIsOneAndTheFirstSearchTwo() async {
        let h = Harness(books: ["alice": [book(1, "Dune")], "bob": []])
        await h.start()
        #expect(h.model.log.entries.map(\.request) == [1, 2], "\(h.model.log.entries)")
        #expect(h.model.log.entries.map(\.kind) == [.connect, .search])
        await h.drain()
    }

    /// A session of the kinds that are left out of the log between the ones that are not: the
    /// numbers the intents returned are the log's, one after another.
    @Test func backgroundRequestsTakeNoNumberAUserSees() async {
        let h = Harness(books: ["alice": [book(1, "Dune")], "bob": [book(2, "Emma")]])
        await h.start()
        var shown: [Int] = [1, 2]

        // The header's count, as the app's model asks for it once a session has begun.
        let count = h.model.countBooks()!
        await h.answer(.count, with: .deliver)
        await h.model.finished(request: count)
        // A freshness check that finds nothing: not logged.
        let quiet = h.model.checkForChanges()!
        let quietCall = await h.nextCall(.check)
        await h.release(quietCall.number, .notice(nil), request: quiet)

        let search = h.model.setQuery("dune")!
        shown.append(search)
        await h.answer(.search, with: .deliver)

        // A check that finds a change is logged, and so is the refresh it starts.
        let check = h.model.checkForChanges()!
        let checkCall = await h.nextCall(.check)
        await h.release(checkCall.number, .notice(.unspecified), request: check)
        await h.answer(.search, with: .deliver)

        // An account switch: the new session lists the accounts again if the first listing
        // had not answered; its connection and first search are numbered on from there.
        await h.switchAccount(to: "bob")
        let count2 = h.model.countBooks()!
        await h.answer(.count, with: .deliver)
        await h.model.finished(request: count2)
        await h.answer(.search, with: .deliver)
        let another = h.model.setQuery("emma")!
        shown.append(another)
        await h.answer(.search, with: .deliver)

        let logged = h.model.log.entries.map(\.request)
        #expect(logged == Array(1...logged.count), "no gaps, in order: \(h.model.log.entries)")
        #expect(
            h.model.log.entries.map(\.kind)
                == [.connect, .search, .search, .changeCheck, .refresh, .connect, .search, .search],
            "\(h.model.log.entries)")
        for number in shown {
            #expect(h.model.log.trace(ofRequest: number) != nil, "#\(number) is in the log")
        }
        #expect(h.traces.map(\.request) == logged, "the trace says the same")
        await h.drain()
    }
}
