import BookCatalog
import BookshelfModel
import CatalogSimulation
import Testing
@testable import BookshelfUI
@testable import TerminalUI

/// A running batch keeps the app busy, so the terminal ticks at the busy rate and the progress
/// bar, which the batch's meter moves without a model change per book, repaints as it advances
/// rather than once a second (issue 61).
@MainActor
@Suite struct BatchBusyTests {
    /// Three books get a new author; the second one's save is held until the test lets it go.
    @Test func aRunningBatchKeepsTheAppBusyUntilItEnds() async throws {
        let gate = SaveGate()
        let books = (1...3).map { (String(format: "Book %02d", $0), "Author \($0)") }
        let harness = AppHarness(
            columns: 80, rows: 12, books: books,
            connector: { HeldSaveConnector(base: $0, gate: gate, heldBook: 2) })
        await harness.start()
        try #require(harness.model.state.search.rows.count == 3)
        await harness.press(.insert, .down, .insert, .down, .insert, .function(8))
        try #require(harness.model.state.bulk.editor?.isReading == false)
        await harness.type("Ann Other")
        #expect(!harness.app.isBusy, "nothing runs yet")

        harness.app.handle(.key(.enter))
        await gate.untilParked()
        try #require(harness.model.state.bulk.batch?.isRunning == true)
        #expect((harness.model.state.bulk.batch?.done ?? 3) < 3, "the second book's save is held")
        #expect(harness.app.isBusy, "a running batch is what the user waits for")

        await gate.open()
        await harness.settle()
        #expect(harness.model.state.bulk.batch?.isRunning == false)
        #expect(harness.model.state.bulk.batch?.counts.saved == 3)
        #expect(!harness.app.isBusy, "the batch has ended")
    }
}

/// Holds the save of one book until the test opens it, and says when that save is waiting.
private actor SaveGate {
    private var isOpen = false
    private var held: CheckedContinuation<Void, Never>?
    private var watcher: CheckedContinuation<Void, Never>?

    func pass() async {
        guard !isOpen else { return }
        await withCheckedContinuation { continuation in
            held = continuation
            watcher?.resume()
            watcher = nil
        }
    }

    func untilParked() async {
        guard held == nil, !isOpen else { return }
        await withCheckedContinuation { watcher = $0 }
    }

    func open() {
        isOpen = true
        held?.resume()
        held = nil
    }
}

private struct HeldSaveConnector: CatalogConnector {
    let base: MemoryCatalogConnector
    let gate: SaveGate
    let heldBook: Int

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }
    func accountScopes() async throws -> [String: String] { try await base.accountScopes() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        guard let account = base.catalog.account(named: account) else { throw BookFailure.notAllowed }
        return HeldSaveRemote(
            base: MemoryBookRemote(catalog: base.catalog, account: account), gate: gate, heldBook: heldBook)
    }
}

/// The memory store, with its batches, but the save of `heldBook` waits at the gate.
private struct HeldSaveRemote: SearchableBookRemote, ChangeDetectingRemote, AccountAwareRemote, BatchRecordingRemote {
    let base: MemoryBookRemote
    let gate: SaveGate
    let heldBook: Int

    var account: Account { base.account }
    func bookCount() async throws -> Int { try await base.bookCount() }
    func search(_ query: SearchQuery) async throws -> SearchPage { try await base.search(query) }
    func load(id: Int) async throws -> BookRecord { try await base.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await save(SaveRequest(id: id, title: title, expectedRevision: expectedRevision))
    }
    func save(_ request: SaveRequest) async throws -> BookRecord {
        if request.id == heldBook { await gate.pass() }
        return try await base.save(request)
    }
    func checkForChanges() async throws -> ChangeNotice? { try await base.checkForChanges() }
    func beginBatch(_ start: BatchStart) async throws -> BatchID { try await base.beginBatch(start) }
    func save(_ request: SaveRequest, inBatch batch: BatchID) async throws -> BookRecord {
        if request.id == heldBook { await gate.pass() }
        return try await base.save(request, inBatch: batch)
    }
    func saveAll(_ requests: [SaveRequest], inNewBatch start: BatchStart) async throws -> AllOrNothingResult {
        try await base.saveAll(requests, inNewBatch: start)
    }
    func revisions(ofBatch batch: BatchID) async throws -> [BatchRevision] { try await base.revisions(ofBatch: batch) }
}
