import BookCatalog
@testable import BookshelfModel
import BookshelfUI
import CatalogSimulation
import TerminalSafeText
import Testing

/// The header's book count belongs to the session that counted it.
@MainActor
@Suite struct HeaderCountTests {
    /// An administrator moves alice from scope main (5 books) to north (2) while she is signed
    /// in: a new session of the same account. Until north is counted, the header says no count
    /// (main's 5 are not hers any more), then north's.
    @Test func aScopeChangeShowsNoCountUntilTheNewScopeIsCounted() async {
        let counts = ScopeCounts()
        let harness = AppHarness(
            columns: 80, rows: 12,
            otherScopes: [(scope: "north", books: [("Northern Lights", ""), ("North Sea", "")])],
            countsItsCatalog: true, connector: { ScopeCountingConnector(base: $0, counts: counts) })
        await harness.start()
        await harness.awaitCatalogSize()
        #expect(harness.lines[0].contains("alice (editor) · 5 books"), "\(harness.lines[0])")

        await counts.move(to: "north")
        _ = harness.model.follow(accountChangedTo: Account(name: "alice", role: .editor, scope: "north"))
        await harness.settle(leaving: [.catalogCount])
        #expect(!harness.lines[0].contains("books"), "no count of another scope: \(harness.lines[0])")

        await counts.release()
        var turns = 0
        while !harness.lines[0].contains("2 books"), turns < 10_000 {
            await Task.yield()
            turns += 1
        }
        #expect(harness.lines[0].contains("alice (editor) · 2 books"), "\(harness.lines[0])")
    }

    /// Another program imports 10,000 books while alice looks at the first results of 60. Past
    /// 10,000 matches the store stops counting, so the rule of the list of every book takes
    /// the header's exact count: both must be counted again when the change notice comes, or
    /// they keep saying 60 while paging shows the new books. A smaller import is counted the
    /// same way.
    @Test(arguments: [10_000, 7])
    func aCatalogThatGrewIsCountedAgainOnTheChangeNotice(imported: Int) async {
        let harness = AppHarness(
            columns: 80, rows: 12, books: (1...60).map { ("Book \($0)", "Author \($0)") }, countsItsCatalog: true)
        await harness.start()
        await harness.awaitCatalogSize()
        #expect(harness.lines[0].contains("alice (editor) · 60 books"), "\(harness.lines[0])")
        #expect(harness.text.contains("of 60"), "\(harness.text)")

        harness.catalog.importBooks((1...imported).map { ("Imported \($0)", "Someone") }, scope: "main")
        harness.model.checkForChanges()  // what the app's freshness timer does once a second
        await harness.settle()

        let books = NumberText.grouped(60 + imported)
        #expect(harness.lines[0].contains("alice (editor) · \(books) books"), "\(harness.lines[0])")
        #expect(harness.text.contains("of \(books)"), "\(harness.text)")
    }
}

/// alice's books (the harness's five classics in main, two in north), counted in the scope she is
/// in; after a move the count waits for the test.
private actor ScopeCounts {
    private var scope = "main"
    private var holds = false
    private var waiting: CheckedContinuation<Void, Never>?

    func count() async -> Int {
        if holds { await withCheckedContinuation { waiting = $0 } }
        return scope == "main" ? 5 : 2
    }

    func move(to scope: String) {
        self.scope = scope
        holds = true
    }

    func release() {
        holds = false
        waiting?.resume()
        waiting = nil
    }
}

/// The harness's catalog, with each session's count answered by `ScopeCounts` (the scope an
/// administrator moves alice to is the test's to say, and its count waits for the test).
private struct ScopeCountingConnector: CatalogConnector {
    let base: MemoryCatalogConnector
    let counts: ScopeCounts

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }
    func accountScopes() async throws -> [String: String] { try await base.accountScopes() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }
    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        guard let account = base.catalog.account(named: account) else { throw BookFailure.notAllowed }
        return ScopeCountingRemote(base: MemoryBookRemote(catalog: base.catalog, account: account), counts: counts)
    }
}

private struct ScopeCountingRemote: SearchableBookRemote, ChangeDetectingRemote, AccountAwareRemote {
    let base: MemoryBookRemote
    let counts: ScopeCounts

    var account: Account { base.account }
    func bookCount() async throws -> Int { await counts.count() }
    func search(_ query: SearchQuery) async throws -> SearchPage { try await base.search(query) }
    func load(id: Int) async throws -> BookRecord { try await base.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await base.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    func save(_ request: SaveRequest) async throws -> BookRecord { try await base.save(request) }
    func checkForChanges() async throws -> ChangeNotice? { try await base.checkForChanges() }
}
