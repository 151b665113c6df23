import BookCatalog
import Foundation
import BookshelfModel
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
