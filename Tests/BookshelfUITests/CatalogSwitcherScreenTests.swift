import BookCatalog
import BookshelfModel
import CatalogSimulation
import Foundation
import TerminalUI
import Testing

@testable import BookshelfUI

/// Opens each recent catalog as a memory catalog of its own, with one account and one book.
@MainActor
final class MemoryCatalogs: CatalogSwitching {
    let list: [RecentCatalog]
    let shelves: [String: (account: String, title: String)]

    init(_ list: [RecentCatalog], shelves: [String: (account: String, title: String)]) {
        self.list = list
        self.shelves = shelves
    }

    func recentCatalogs() -> [RecentCatalog] { list }

    nonisolated func open(_ catalog: RecentCatalog) async throws -> OpenedCatalog {
        guard let shelf = shelves[catalog.location] else { throw BookFailure.storeUnavailable("no catalog there") }
        let memory = MemoryCatalog()
        memory.addAccount(Account(name: shelf.account, role: .editor, scope: "main"))
        memory.addBook(title: shelf.title, author: "Someone", scope: "main")
        let connector = MemoryCatalogConnector(catalog: memory)
        let remote = try await connector.connect(account: shelf.account, password: nil)
        return OpenedCatalog(catalog: catalog, connector: connector, remote: remote, account: shelf.account)
    }

    func keeper(for catalog: RecentCatalog) -> (any DraftKeeping)? { nil }
}

/// The switcher lists the catalogs opened recently below the accounts (issue 62, ask 7): their
/// paths are data, drawn safe and cut to the screen, and choosing one opens it.
@MainActor
@Suite struct CatalogSwitcherScreenTests {
    static let current = RecentCatalog(kind: .sqlite, location: "/home/ann/now.sqlite", shown: "~/now.sqlite")
    static let hostile = RecentCatalog(
        kind: .sqlite, location: "/home/ann/\u{1B}[31mred.sqlite", shown: "~/\u{1B}[31mred.sqlite")
    static let deep = RecentCatalog(
        kind: .calibre, location: "/home/ann/" + String(repeating: "nested/", count: 20) + "Calibre Library",
        shown: "~/" + String(repeating: "nested/", count: 20) + "Calibre Library")
    static let gone = RecentCatalog(
        kind: .sqlite, location: "/home/ann/gone.sqlite", shown: "~/gone.sqlite", isMissing: true)

    static func harness() async -> AppHarness {
        let catalogs = MemoryCatalogs(
            [current, hostile, deep, gone],
            shelves: [hostile.location: ("dora", "Red Book"), deep.location: ("ed", "Deep Book")])
        let harness = AppHarness(
            columns: 60, rows: 16, store: StoreInfo(kind: "SQLite", location: "~/now.sqlite"),
            recent: (current, catalogs))
        await harness.start()
        return harness
    }

    /// The box's inner text of each line that has one.
    static func inner(_ harness: AppHarness) -> [String] {
        harness.lines.compactMap { line in
            let parts = line.split(separator: "│", omittingEmptySubsequences: false)
            return parts.count >= 3 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// On a screen too narrow for an account's row, the rows are cut, never wrapped: a wrapped
    /// row pushed the others down, so the heading was drawn twice and the highlight sat on
    /// another row than the one Enter chooses.
    @Test func onANarrowScreenEachChoiceKeepsOneRowAndTheHighlightIsOnIt() async {
        let harness = await Self.harness()
        harness.resize(columns: 40, rows: 14)
        await harness.press(.function(2))
        let rows = Self.inner(harness)
        #expect(rows.filter { $0 == "Recent catalogs" }.count == 1, "\(harness.text)")
        #expect(rows.first?.hasPrefix("alice") == true && rows.first?.hasSuffix("…") == true, "\(rows)")
        // Down past the accounts (their rows end at the blank above the heading): the first catalog.
        for _ in 0..<(rows.firstIndex(of: "") ?? 0) { await harness.press(.down) }
        // The rows of the box (within its corners) with the highlight's style: the list's
        // selected book behind the box has it too, and the key hints below.
        let screen = harness.screen
        let corner = (0..<screen.height).lazy.compactMap { y in
            (0..<screen.width).first { screen[$0, y].symbol == "┌" }.map { (x: $0, y: y) }
        }.first
        let right = corner.flatMap { corner in
            (corner.x + 1..<screen.width).first { screen[$0, corner.y].symbol == "┐" }
        }
        let bottom = corner.flatMap { corner in
            (corner.y + 1..<screen.height).first { screen[corner.x, $0].symbol == "└" }
        }
        let highlighted = (0..<screen.height).filter { y in
            guard let corner, let right, let bottom, y > corner.y, y < bottom else { return false }
            return (corner.x + 1..<right).contains { screen[$0, y].style == Theme.selected }
        }
        #expect(highlighted.count == 1, "\(highlighted.map(screen.trimmedLine))")
        #expect(highlighted.first.map { screen.trimmedLine($0).contains("red.sqlite") } == true, "\(harness.text)")
    }

    @Test func theRecentCatalogsFollowTheAccountsSafeAndCutToTheScreen() async {
        let harness = await Self.harness()
        await harness.press(.function(2))
        let rows = Self.inner(harness)
        #expect(rows.first?.hasPrefix("alice") == true && rows.contains("Recent catalogs"), "\(harness.text)")
        #expect(!rows.contains { $0.contains("now.sqlite") }, "the catalog on screen is not offered")
        #expect(rows.contains("SQLite     ~/␛[31mred.sqlite"), "an escape is drawn as a picture: \(rows)")
        #expect(!harness.text.contains("\u{1B}"))
        let deep = rows.first { $0.hasPrefix("Calibre") }
        #expect(deep?.hasSuffix("nested/Calibre Library") == true && deep?.contains("…") == true, "\(rows)")
        #expect(harness.lines.allSatisfy { TextLayout.width($0) <= 60 })
        #expect(rows.contains("SQLite     ~/gone.sqlite  (missing)"), "\(rows)")
    }

    @Test func downPastTheAccountsAndEnterOpensTheCatalogAndTheHeaderNamesIt() async {
        let harness = await Self.harness()
        // alice and bob, then the first catalog.
        await harness.press(.function(2), .down, .down, .enter)
        await harness.settle()
        #expect(harness.model.state.account == "dora" && harness.model.state.session == 2, "\(harness.text)")
        #expect(harness.lines[0].contains("dora") && harness.lines[0].contains("SQLite ~/␛[31mred.sqlite"))
        #expect(harness.text.contains("Red Book") && !harness.text.contains("War and Peace"), "\(harness.text)")
        // The switcher now offers the catalog the app started with.
        await harness.press(.function(2))
        #expect(Self.inner(harness).contains { $0.hasPrefix("SQLite     ~/now.sqlite") }, "\(harness.text)")
    }

    @Test func aCatalogThatCannotBeOpenedIsSaidAndTheScreenStays() async {
        let harness = await Self.harness()
        // alice and bob, the red and the deep catalogs, then the missing one.
        await harness.press(.function(2), .down, .down, .down, .down, .enter)
        await harness.settle()
        #expect(harness.model.state.account == "alice" && harness.model.state.session == 1)
        #expect(harness.lines[0].contains("Memory") == false && harness.lines[0].contains("SQLite ~/now.sqlite"))
        #expect(harness.text.contains("Could not open ~/gone.sqlite: "), "\(harness.text)")
        #expect(harness.text.contains("War and Peace"), "\(harness.text)")
    }
}
