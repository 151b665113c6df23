import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// The effect runner: a chain is a flat sequence of requests, each begun only after the one
/// before passed the gate; a step that answers after its session ended runs no handler, so
/// it ends the chain. The account listing and the header's book count pass the same gate.
@MainActor
@Suite struct EffectChainTests {
    /// A save that conflicts goes on to fetch theirs: the fetch is not asked before the save's
    /// answer has passed the gate, it is the next request of the editor's slot, and its answer
    /// ends the chain (the effect of the save is finished only then).
    @Test func aSaveChainRunsItsStepsInOrder() async {
        let h = Harness(books: ["alice": [original], "bob": []])
        await openEditor(h, typing: mine)
        await h.remote.put(theirs)
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)
        #expect(await h.remote.arrivalCount(of: .load) == 1, "only the opening's load: the fetch waits for the save")
        await h.remote.release(saveCall.number, .deliver)
        let fetch = await h.nextCall(.load)
        #expect(h.model.owners[.editor]?.request == save + 1 && h.model.pendingKind(.editor) == .load)
        #expect(h.editor?.activity == .fetchingCurrent)
        await h.release(fetch.number, .deliver, request: save)
        let chain = h.traces.filter { $0.request >= save }.map { "\($0.request) \($0.kind) \($0.fate)" }
        #expect(
            chain == ["\(save) save \(RequestFate.failed(.conflict))", "\(save + 1) load \(RequestFate.published)"])
        #expect(h.editor?.conflict?.theirs == theirs && h.editor?.draft == mine)
        await h.drain()
    }

    /// The account is switched between the save's conflict and the fetch of theirs: the fetch's
    /// answer publishes nothing into the new session (not its rows, not the editor its user
    /// opened on a book with the same id) and the chain ends there (no merged save is sent).
    @Test func aSwitchBetweenTwoStepsEndsTheOldChain() async {
        let h = Harness(books: ["alice": [original], "bob": [original]])
        await openEditor(h, typing: mine)
        let alice = h.remote
        await alice.put(book(1, "Old", revision: 2, author: "Their Author"))
        let save = h.model.save()!
        await alice.release(await h.nextCall(.save).number, .deliver)
        let fetch = await h.nextCall(.load)
        await h.switchAccount(to: "bob")
        await h.answer(.search, with: .deliver)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        await h.release(fetch.number, on: alice, .deliver, request: save)
        #expect(h.model.log.trace(ofRequest: save + 1)?.fate == .droppedOldSession)
        #expect(h.search.rows == [original], "bob's row is not lifted by alice's answer")
        #expect(h.editor?.base == original && h.editor?.draft == BookDraft(original) && h.editor?.conflict == nil)
        #expect(await alice.arrivalCount(of: .save) == 1, "the chain ended: no merge was saved")
        #expect(!h.model.pendingRequests.contains { $0.session == 1 }, "nothing of alice's session is on its way")
        await h.drain()
    }

    /// The listing asked for at start is still on its way when the first session begins, and
    /// the one asked for then is still on its way after a switch: each is asked again, and only
    /// the listing of the current session shows, whatever order the answers come in.
    @Test func anAccountListingThatAnswersAfterASwitchIsDropped() async {
        let scripted = SteppedConnector(books: ["alice": [], "bob": []], passwords: [:])
        let connector = ListingParkingConnector(base: scripted)
        let model = BookshelfModel(connector: connector, account: "alice")
        await model.finished(request: model.start()!)
        await connector.listings.waitForArrivals(2)
        await model.finished(request: model.requestAccountSwitch(to: "bob")!)
        await connector.listings.waitForArrivals(3)
        let listings = model.pendingRequests.filter { $0.kind == .accounts }.map(\.request)
        #expect(listings.count == 3 && model.state.session == 2)
        await connector.listings.release(3, with: ["alice", "bob"])
        await model.accountsListed()
        #expect(model.state.accounts.map(\.name) == ["alice", "bob"])
        await connector.listings.release(1, with: ["from before the first session"])
        await connector.listings.release(2, with: ["from alice's session"])
        for request in listings { await model.finished(request: request) }
        #expect(model.state.accounts.map(\.name) == ["alice", "bob"])
        for remote in scripted.remotes { await remote.close() }
        for request in model.runningRequests { await model.finished(request: request) }
    }

    /// A count of alice's books that answers after the switch to bob is dropped, even though it
    /// comes after bob's own count: the header never shows the old account's number.
    @Test func aBookCountThatAnswersAfterASwitchIsDropped() async {
        let h = Harness()
        await h.start()
        let alice = h.model.countBooks()!
        let aliceRemote = h.remote
        let aliceCount = await h.nextCall(.count)
        await h.switchAccount(to: "bob")
        await h.answer(.search, with: .deliver)
        let bob = h.model.countBooks()!
        let bobCount = await h.nextCall(.count)
        #expect(h.state.search.accountBooks == nil, "a new session shows no count until its own answers")
        await h.release(bobCount.number, .count(7), request: bob)
        #expect(h.state.search.accountBooks == 7)
        await h.release(aliceCount.number, on: aliceRemote, .count(5), request: alice)
        #expect(h.state.search.accountBooks == 7, "alice's count never shows in bob's session")
        await h.drain()
    }
}

/// Answers that park until the test gives them, one by one, in the order it chooses.
actor ParkedAnswers<Answer: Sendable> {
    private var parked: [Int: CheckedContinuation<Answer, Never>] = [:]
    private var arrivals = 0
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Waits for the answer of this call, the next by arrival.
    func park() async -> Answer {
        await withCheckedContinuation { continuation in
            arrivals += 1
            parked[arrivals] = continuation
            let ready = waiters.filter { $0.count <= arrivals }
            waiters.removeAll { $0.count <= arrivals }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    /// Returns once `count` calls have arrived.
    func waitForArrivals(_ count: Int) async {
        if arrivals >= count { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    /// Answers call `number` (counted from 1, by arrival).
    func release(_ number: Int, with answer: Answer) {
        parked.removeValue(forKey: number)?.resume(returning: answer)
    }
}

/// A connector whose account listings park until the test answers them.
final class ListingParkingConnector: CatalogConnector {
    let base: SteppedConnector
    let listings = ParkedAnswers<[String]>()

    init(base: SteppedConnector) { self.base = base }

    func accountNames() async throws -> [String] { await listings.park() }
    func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }
    func accountScopes() async throws -> [String: String] { try await base.accountScopes() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        try await base.connect(account: account, password: password)
    }
}
