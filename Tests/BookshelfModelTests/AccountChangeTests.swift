import BookCatalog
import CatalogSimulation
import Testing
@testable import BookshelfModel

/// An administrator changes the signed-in account's role or scope while its session is open
/// (issue 43, item 8). The store's change check carries the account as it is now; the role
/// takes effect in place, and a new scope begins a new session, as an account switch does.
@MainActor
@Suite struct AccountChangeTests {
    static let erinEditor = Account(name: "erin", role: .editor, scope: "main")
    static let erinReader = Account(name: "erin", role: .reader, scope: "main")
    static let erinInNorth = Account(name: "erin", role: .editor, scope: "north")
    /// What each scope holds in the store (the scripted store answers with the page it is told).
    static let mainRows = [book(1, "Old"), book(2, "Other")]
    static let northRows = [book(30, "Northern Lights"), book(31, "North Sea")]

    private func signedIn(as account: Account) async -> Harness {
        let h = Harness(books: ["erin": Self.mainRows], account: "erin", accounts: ["erin": account])
        await h.start(answering: .deliver)
        return h
    }

    /// The freshness check answers with `notice`, and the model has processed it.
    private func check(_ h: Harness, answers notice: ChangeNotice) async {
        let check = h.model.checkForChanges()!
        await h.release(await h.nextCall(.check).number, .notice(notice), request: check)
    }

    @Test func aDemotionMakesTheOpenEditorReadOnlyAndTheHeaderSaysReader() async {
        let h = await signedIn(as: Self.erinEditor)
        #expect(h.state.accountRole == .editor)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: "Mine")

        await check(h, answers: ChangeNotice(bookIDs: [], account: Self.erinReader))
        #expect(h.state.accountRole == .reader)
        #expect(h.editor?.readOnlyReason == "erin is a reader: viewing only.")
        #expect(h.state.accounts.first { $0.name == "erin" }?.role == .reader)
        // The same session: the draft is still there (it cannot be saved, but it is not dropped).
        #expect(h.state.session == 1 && h.editor?.draft.title == "Mine")
        #expect(h.state.message == "An administrator made erin a reader: viewing only.")
        h.model.setDraft(.title, to: "Mine, again")
        #expect(h.editor?.draft.title == "Mine")
        await h.drain()
    }

    @Test func aPromotionLetsTheOpenEditorEdit() async {
        let h = await signedIn(as: Self.erinReader)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        #expect(h.editor?.readOnlyReason == "erin is a reader: viewing only.")

        await check(h, answers: ChangeNotice(bookIDs: [], account: Self.erinEditor))
        #expect(h.state.accountRole == .editor && h.editor?.readOnlyReason == nil)
        h.model.setDraft(.title, to: "Mine")
        #expect(h.editor?.draft.title == "Mine" && h.state.session == 1)
        await h.drain()
    }

    /// A search of the old scope is in flight when the notice of the new scope arrives; its
    /// answer is released before or after the notice. Either way the screen ends with the new
    /// scope's rows only, in a new session.
    @Test(arguments: [true, false])
    func aScopeChangeIsANewSessionWhateverTheOrderOfTheSearchInFlight(searchAnswersFirst: Bool) async {
        let h = await signedIn(as: Self.erinEditor)
        let typed = h.model.setQuery("o")!
        let search = await h.nextCall(.search)
        let checkRequest = h.model.checkForChanges()!
        let check = await h.nextCall(.check)

        if searchAnswersFirst {
            await h.release(search.number, .page(Self.mainRows, total: 2), request: typed)
            #expect(h.search.rows == Self.mainRows)
        }
        await h.release(
            check.number, .notice(ChangeNotice(bookIDs: nil, account: Self.erinInNorth)), request: checkRequest)
        #expect(h.state.session == 2)
        #expect(h.search.rows.isEmpty)
        #expect(h.state.message == "An administrator moved erin to scope north: showing its books.")
        if !searchAnswersFirst {
            // The old scope's answer arrives after the new session began: it shows nothing.
            await h.release(search.number, .page(Self.mainRows, total: 2), request: typed)
            #expect(h.search.rows.isEmpty)
        }
        // The typed query runs again in the new session, and the store now answers for north.
        #expect(h.search.query == "o")
        await h.answer(.search, with: .page(Self.northRows, total: 2))
        #expect(h.search.rows == Self.northRows)
        #expect(h.state.accounts.first { $0.name == "erin" }?.scope == "north")
        await h.drain()
    }

    /// A save of the old scope is in flight: it may commit, but its outcome belongs to the old
    /// session and never shows in the new one; the user is told what became of the editor.
    @Test func aScopeChangeDuringASaveClosesTheEditorAndItsAnswerShowsNothing() async {
        let h = await signedIn(as: Self.erinEditor)
        _ = h.model.openSelected()!
        await h.answer(.load, with: .deliver)
        h.model.setDraft(.title, to: "Mine")
        let save = h.model.save()!
        let saveCall = await h.nextCall(.save)

        await check(h, answers: ChangeNotice(bookIDs: nil, account: Self.erinInNorth))
        #expect(h.state.session == 2 && h.editor == nil)
        #expect(
            h.state.message == "An administrator moved erin to scope north: showing its books."
                + " The save of book #1 was under the old scope: see its history.")
        await h.release(saveCall.number, .deliver, request: save)
        #expect(h.editor == nil && h.search.rows.isEmpty)
        await h.answer(.search, with: .page(Self.northRows, total: 2))
        #expect(h.search.rows == Self.northRows)
        #expect(!h.search.rows.contains { $0.title == "Mine" })
        await h.drain()
    }
}

/// Hands out the scripted remotes with the account each one signs in as, as a real store's
/// remote knows its account.
final class AccountTellingConnector: CatalogConnector {
    let base: SteppedConnector
    let accounts: [String: Account]

    init(base: SteppedConnector, accounts: [String: Account]) {
        self.base = base
        self.accounts = accounts
    }

    func accountNames() async throws -> [String] { try await base.accountNames() }
    func accountRoles() async throws -> [String: AccountRole] { accounts.mapValues(\.role) }
    func accountScopes() async throws -> [String: String] { accounts.mapValues(\.scope) }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }

    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        let remote = try await base.connect(account: account, password: password) as! SteppedRemote
        guard let known = accounts[account] else { return remote }
        return AccountTellingRemote(base: remote, account: known)
    }
}

struct AccountTellingRemote: SearchableBookRemote, ChangeDetectingRemote, ReauthenticatingRemote, AccountAwareRemote {
    let base: SteppedRemote
    let account: Account

    func search(_ query: SearchQuery) async throws -> SearchPage { try await base.search(query) }
    func bookCount() async throws -> Int { try await base.bookCount() }
    func load(id: Int) async throws -> BookRecord { try await base.load(id: id) }
    func save(id: Int, title: String, expectedRevision: Int) async throws -> BookRecord {
        try await base.save(id: id, title: title, expectedRevision: expectedRevision)
    }
    func save(_ request: SaveRequest) async throws -> BookRecord { try await base.save(request) }
    func checkForChanges() async throws -> ChangeNotice? { try await base.checkForChanges() }
    func reauthenticate(password: String) async throws { try await base.reauthenticate(password: password) }
}
