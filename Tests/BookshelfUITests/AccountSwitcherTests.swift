import BookCatalog
import Foundation
import BookshelfModel
import CatalogSimulation
@testable import BookshelfUI
import Testing
import TerminalUI

/// The switcher says who each account is: its role and the scope of books it sees.
@MainActor
@Suite struct AccountSwitcherTests {
    @Test func eachAccountShowsItsRoleAndScopeInColumns() async throws {
        let harness = AppHarness(
            columns: 80, rows: 14,
            accounts: [
                Account(name: "alice", role: .editor, scope: "main"),
                Account(name: "bob", role: .reader, scope: "main"),
                Account(name: "carol", role: .editor, scope: "north"),
            ], passwords: ["bob": "x"])
        await harness.start()
        await harness.press(.function(2))
        let rows = harness.lines.filter {
            $0.contains("│") && ($0.contains("alice") || $0.contains("bob") || $0.contains("carol"))
        }
        .map { line -> String in
            let inner = line.split(separator: "│", omittingEmptySubsequences: false)
            return inner.count >= 2 ? String(inner[1]).trimmingCharacters(in: .whitespaces) : line
        }
        #expect(
            rows == [
                "alice  editor  scope main   (current)",
                "bob    reader  scope main   (password)",
                "carol  editor  scope north",
            ], "\(harness.text)")
    }
}

/// The switcher's highlight belongs to an account, not to a row.
@MainActor
@Suite struct AccountSwitcherHighlightTests {
    /// A PostgreSQL catalog lists its accounts only after trying each one, so the switcher can
    /// open before the list arrives. carol, current, opens it then; when alice, bob and carol
    /// arrive, the highlight is on carol, so Up goes to bob (on the first row, alice, it
    /// would stay on alice).
    @Test func theHighlightStaysOnItsAccountWhenTheListArrivesLate() async {
        let listing = ListingGate()
        let harness = AppHarness(
            columns: 80, rows: 14,
            accounts: ["alice", "bob", "carol"].map { Account(name: $0, role: .editor, scope: "main") },
            account: "carol", connector: { LateListingConnector(base: $0, gate: listing) })
        harness.app.start()
        await harness.settle(leaving: [.accounts])
        harness.app.handle(.key(.function(2)))
        await harness.settle(leaving: [.accounts])
        #expect(harness.text.contains("Listing accounts…"), "\(harness.text)")

        await listing.open()
        await harness.model.accountsListed()
        #expect(harness.text.contains("carol") && harness.text.contains("alice"), "\(harness.text)")
        await harness.press(.up, .enter)
        #expect(harness.model.state.account == "bob", "\(harness.text)")
    }
}

/// Holds the account list back until the test opens it.
private actor ListingGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func pass() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        waiting.forEach { $0.resume() }
        waiting.removeAll()
    }
}

/// The in-memory catalog's connector, listing its accounts only once `gate` opens.
private struct LateListingConnector: CatalogConnector {
    let base: MemoryCatalogConnector
    let gate: ListingGate

    func accountNames() async throws -> [String] {
        await gate.pass()
        return try await base.accountNames()
    }

    func accountRoles() async throws -> [String: AccountRole] { try await base.accountRoles() }
    func accountScopes() async throws -> [String: String] { try await base.accountScopes() }
    func requiresPassword(for account: String) -> Bool { base.requiresPassword(for: account) }

    func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        try await base.connect(account: account, password: password)
    }
}
