import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The seed's cases: only the newest search of the current session publishes.
@MainActor
@Suite struct SearchPublicationTests {
    @Test func olderSearchCompletingLastDoesNotReplaceNewerResults() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)
        let b = h.model.setQuery("b")!
        let callB = await h.nextCall(.search)

        await h.release(callB.number, .page([book(2, "Bee")], total: 1), request: b)
        #expect(h.search.rows == [book(2, "Bee")])
        #expect(!h.search.isBusy)

        await h.release(callA.number, .page([book(1, "Ant")], total: 1), request: a)
        #expect(h.search.rows == [book(2, "Bee")])
        #expect(h.search.error == nil)
        #expect(h.model.log.trace(ofRequest: a)?.fate == .droppedStale)
        #expect(h.model.log.trace(ofRequest: b)?.fate == .published)
        await h.drain()
    }

    /// Why a search is slow (the store is building its index) is taken from the newest answer
    /// only: a stale search answered that way says nothing, the current one does and keeps
    /// saying it while the next search runs, and an answer from the index clears it.
    @Test func onlyTheNewestAnswerSaysTheStoreIsBuildingItsIndex() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        func whileIndexing(_ records: [BookRecord]) -> SteppedRemote.Reply {
            .searchPage(SearchPage(records: records, totalCount: .exact(records.count), answeredWhileIndexing: true))
        }
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)
        let b = h.model.setQuery("b")!
        let callB = await h.nextCall(.search)
        await h.release(callB.number, .page([book(2, "Bee")], total: 1), request: b)
        await h.release(callA.number, whileIndexing([book(1, "Ant")]), request: a)
        #expect(!h.search.answeredWhileIndexing, "a stale answer says nothing")

        let c = h.model.setQuery("c")!
        let callC = await h.nextCall(.search)
        await h.release(callC.number, whileIndexing([book(3, "Cat")]), request: c)
        #expect(h.search.answeredWhileIndexing && h.search.rows == [book(3, "Cat")])
        let d = h.model.setQuery("d")!
        let callD = await h.nextCall(.search)
        #expect(h.search.isBusy && h.search.answeredWhileIndexing, "said while the next search runs")
        await h.release(callD.number, .page([book(4, "Dog")], total: 1), request: d)
        #expect(!h.search.answeredWhileIndexing)
        await h.drain()
    }

    /// A store may show a page before counting its matches (`TotalCount.counting`): the model
    /// shows it at once, not busy, and asks the same search again without `countLater`, in the
    /// same task; the count replaces the same rows and keeps the selection moved meanwhile.
    @Test func aPageShownBeforeItsCountIsCountedByTheSameSearch() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        let search = h.model.setQuery("h")!
        let pageCall = await h.nextCall(.search)
        #expect(pageCall.call == .search(SearchQuery(text: "h", limit: 50, countLater: true)))
        let rows = [book(1, "Harbor"), book(2, "Hill")]
        // Not `h.release`: the task goes on to the count, which parks until released.
        await h.remote.release(
            pageCall.number, .searchPage(SearchPage(records: rows, totalCount: .counting(atLeast: 2))))
        let countCall = await h.nextCall(.search)
        #expect(countCall.call == .search(SearchQuery(text: "h", limit: 50)), "the same search, counted")
        #expect(h.search.rows == rows && h.search.totalCount == .counting(atLeast: 2) && h.search.rowsAreCurrent)
        #expect(!h.search.isBusy, "the page is the answer; the count needs no spinner")
        #expect(h.model.log.trace(ofRequest: search)?.fate == .published)
        h.model.moveSelection(by: 1)
        let count = h.model.pendingRequests.last { $0.kind == .count }!.request
        await h.release(countCall.number, .page(rows, total: 120), request: count)
        #expect(h.search.rows == rows && h.search.totalCount == .exact(120) && h.search.selection == 1)
        #expect(h.model.log.trace(ofRequest: count)?.fate == .published)
        // The selection reached the end while the page was counted: the next page loads now.
        #expect(h.model.pendingRequests.contains { $0.kind == .page })
        if h.model.pendingRequests.contains(where: { $0.kind == .page }) {
            let next = await h.nextCall(.search)
            #expect(next.call == .search(SearchQuery(text: "h", limit: 50, offset: 2, after: nil)))
        }
        await h.drain()
    }

    /// A count that fails leaves the page and says so; the rows stop saying "counting".
    @Test func aCountThatFailsLeavesThePageWithWhatWasCounted() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        _ = h.model.setQuery("h")!
        let pageCall = await h.nextCall(.search)
        let rows = [book(1, "Harbor"), book(2, "Hill")]
        await h.remote.release(
            pageCall.number, .searchPage(SearchPage(records: rows, totalCount: .counting(atLeast: 2))))
        let countCall = await h.nextCall(.search)
        let count = h.model.pendingRequests.last { $0.kind == .count }!.request
        await h.release(countCall.number, .fail(.storeUnavailable("disk I/O error")), request: count)
        #expect(h.search.rows == rows && h.search.totalCount == .atLeast(2))
        #expect(h.search.error != nil && !h.search.isBusy)
        await h.drain()
    }

    /// A count still running when the user types on belongs to an older query: whether it
    /// answers before or after the newer search, it never shows its total or rows; nor does
    /// one that answers after the account was switched.
    @Test(arguments: ["before the newer search", "after the newer search", "after an account switch"])
    func aCountOvertakenByANewerSearchIsNeverShown(_ when: String) async {
        let h = Harness(books: ["alice": [], "bob": [book(9, "Bob's book")]])
        await h.start(answering: .page([], total: 0))
        let oldRemote = h.remote
        _ = h.model.setQuery("h")!
        let pageCall = await h.nextCall(.search)
        let harbor = [book(1, "Harbor")]
        await h.remote.release(
            pageCall.number, .searchPage(SearchPage(records: harbor, totalCount: .counting(atLeast: 1))))
        let countCall = await h.nextCall(.search)
        let count = h.model.pendingRequests.last { $0.kind == .count }!.request
        if when == "after an account switch" {
            await h.switchAccount(to: "bob")
            await h.release(countCall.number, on: oldRemote, .page(harbor, total: 500), request: count)
            #expect(h.model.log.trace(ofRequest: count)?.fate == .droppedOldSession)
            await h.answer(.search, with: .deliver)
            #expect(h.search.rows == [book(9, "Bob's book")] && h.search.totalCount == .exact(1))
            await h.drain()
            return
        }
        let newer = h.model.setQuery("hi")!
        let newerCall = await h.nextCall(.search)
        let hill = [book(2, "Hill")]
        if when == "before the newer search" {
            await h.release(countCall.number, .page(harbor, total: 500), request: count)
            #expect(h.search.rows == harbor && h.search.totalCount == .counting(atLeast: 1) && h.search.isBusy)
            await h.release(newerCall.number, .page(hill, total: 1), request: newer)
        } else {
            await h.release(newerCall.number, .page(hill, total: 1), request: newer)
            await h.release(countCall.number, .page(harbor, total: 500), request: count)
        }
        #expect(h.search.rows == hill && h.search.totalCount == .exact(1) && !h.search.isBusy)
        #expect(h.model.log.trace(ofRequest: count)?.fate == .droppedStale)
        await h.drain()
    }

    @Test func olderFailureAfterNewerSuccessShowsNoError() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)
        let b = h.model.setQuery("b")!
        let callB = await h.nextCall(.search)

        await h.release(callB.number, .page([book(2, "Bee")], total: 1), request: b)
        await h.release(callA.number, .fail(.storeUnavailable("gone")), request: a)
        #expect(h.search.error == nil)
        #expect(h.search.rows == [book(2, "Bee")])
        await h.drain()
    }

    @Test func searchOfAnOldSessionPublishesNothing() async {
        let h = Harness(books: ["alice": [], "bob": [book(9, "Bob's book")]])
        await h.start(answering: .page([], total: 0))
        let oldRemote = h.remote
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)

        await h.switchAccount(to: "bob")
        #expect(h.state.session == 2)
        #expect(h.state.account == "bob")
        #expect(h.search.isBusy)  // bob's own search of "a" is in flight

        await h.release(callA.number, on: oldRemote, .page([book(1, "Alice's secret")], total: 1), request: a)
        #expect(h.search.rows.isEmpty)
        #expect(h.search.isBusy)
        #expect(h.model.log.trace(ofRequest: a)?.fate == .droppedOldSession)

        await h.answer(.search, with: .deliver)
        #expect(h.search.rows == [book(9, "Bob's book")])
        await h.drain()
    }

    @Test func oldCompletionCannotClearBusyIndicator() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)
        let b = h.model.setQuery("b")!
        let callB = await h.nextCall(.search)
        #expect(h.search.isBusy)

        await h.release(callA.number, .page([book(1, "Ant")], total: 1), request: a)
        #expect(h.search.isBusy, "the current search is still in flight")
        await h.release(callB.number, .fail(.storeUnavailable("x")), request: b)
        #expect(!h.search.isBusy, "busy ends with the current request, failure included")
        await h.drain()
    }

    @Test func currentFailureKeepsPreviousRowsAndNextSuccessClearsTheError() async {
        let h = Harness()
        await h.start(answering: .page([book(1, "One")], total: 1))
        let a = h.model.setQuery("o")!
        let callA = await h.nextCall(.search)
        await h.release(callA.number, .fail(.storeUnavailable("disk")), request: a)
        #expect(h.search.rows == [book(1, "One")])
        #expect(h.search.error == BookFailure.storeUnavailable("disk").description)
        #expect(h.model.log.trace(ofRequest: a)?.fate == .failed(.unavailable))

        let b = h.model.setQuery("on")!
        let callB = await h.nextCall(.search)
        #expect(h.search.error != nil, "an error stays until a current request succeeds")
        await h.release(callB.number, .page([book(1, "One")], total: 1), request: b)
        #expect(h.search.error == nil)
        await h.drain()
    }

    @Test func cancelledSupersededSearchIsRecordedAsCancelled() async {
        let h = Harness()
        await h.start(answering: .page([], total: 0))
        let a = h.model.setQuery("a")!
        let callA = await h.nextCall(.search)
        _ = h.model.setQuery("b")!
        _ = await h.nextCall(.search)
        await h.release(callA.number, .cancelled, request: a)
        #expect(h.model.log.trace(ofRequest: a)?.fate == .cancelled)
        #expect(h.search.error == nil)
        #expect(h.search.isBusy)
        await h.drain()
    }
}

/// Every interleaving of three searches (each completes after it starts), every
/// success/failure outcome of each, and an account switch at every gap between events.
@MainActor
@Suite struct SearchExhaustiveTests {
    enum Event: Equatable {
        case start(Int)
        case complete(Int)
        case switchAccount
    }

    static func interleavings() -> [[Event]] {
        var result: [[Event]] = []
        func extend(_ prefix: [Event], nextStart: Int, open: Set<Int>) {
            if nextStart == 3 && open.isEmpty { result.append(prefix); return }
            if nextStart < 3 {
                extend(prefix + [.start(nextStart)], nextStart: nextStart + 1, open: open.union([nextStart]))
            }
            for label in open.sorted() {
                extend(prefix + [.complete(label)], nextStart: nextStart, open: open.subtracting([label]))
            }
        }
        extend([], nextStart: 0, open: [])
        return result
    }

    static let queries = ["a", "b", "c"]
    static func rows(_ label: Int) -> [BookRecord] {
        (0...label).map { book(label * 10 + $0 + 1, "Result \(label).\($0)") }
    }

    static func failure(_ label: Int) -> BookFailure { .storeUnavailable("search \(label) failed") }

    @Test func everyOrderOutcomeAndSwitchPoint() async {
        let orders = Self.interleavings()
        #expect(orders.count == 15)
        #expect(Set(orders.map { $0.compactMap { if case let .complete(l) = $0 { l } else { nil } } }).count == 6)
        var cases = 0
        for order in orders {
            for outcomes in 0..<8 {
                for switchPoint in [nil] + Array(0...order.count) {
                    var events = order
                    if let switchPoint { events.insert(.switchAccount, at: switchPoint) }
                    await run(events, succeeds: { outcomes & (1 << $0) != 0 })
                    cases += 1
                }
            }
        }
        print("SearchExhaustiveTests: \(cases) cases (\(orders.count) interleavings x 8 outcomes x 8 switch points)")
        #expect(cases == 15 * 8 * 8)
    }

    private func run(_ events: [Event], succeeds: (Int) -> Bool) async {
        let h = Harness(books: ["alice": [], "bob": []])
        await h.start(answering: .page([], total: 0))
        var session = 1
        var rows: [BookRecord] = []
        var error: String?
        var busy = false
        var current: Int?  // label of the newest search of this session; nil: the switch's own search
        var started: [Int: (request: Int, call: Int, remote: SteppedRemote, session: Int)] = [:]

        for event in events {
            switch event {
            case let .start(label):
                let request = h.model.setQuery(Self.queries[label])!
                let call = await h.nextCall(.search)
                started[label] = (request, call.number, h.remote, session)
                current = label
                busy = true
            case let .complete(label):
                let run = started[label]!
                let ok = succeeds(label)
                await h.release(
                    run.call, on: run.remote,
                    ok ? .page(Self.rows(label), total: Self.rows(label).count) : .fail(Self.failure(label)),
                    request: run.request)
                if run.session == session && current == label {
                    if ok { rows = Self.rows(label); error = nil } else { error = Self.failure(label).description }
                    busy = false
                }
            case .switchAccount:
                await h.switchAccount(to: h.state.account == "alice" ? "bob" : "alice")
                _ = await h.nextCall(.search)  // the new session runs the typed query; it stays pending
                session += 1
                rows = []
                error = nil
                busy = true
                current = nil
            }
            let search = h.search
            #expect(h.state.session == session, "\(events)")
            #expect(search.rows == rows, "\(events) after \(event)")
            #expect(search.error == error, "\(events) after \(event)")
            #expect(search.isBusy == busy, "\(events) after \(event)")
        }
        await h.drain()
    }
}
