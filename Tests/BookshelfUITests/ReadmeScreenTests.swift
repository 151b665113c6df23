import BookCatalog
import CatalogSimulation
import Foundation
import Testing
@testable import BookshelfUI

/// The screens the README shows are painted by the app itself, so they cannot go stale.
///
/// Each one sits in the README as a fenced block right after a `<!-- screen: NAME -->` line;
/// this suite paints the scenario of that name over the starter catalog (the memory store,
/// which answers exactly as the SQLite one) and compares line for line. After a change to
/// the screen, `BOOKSHELF_WRITE_README_SCREENS=1 swift test --filter ReadmeScreenTests`
/// writes the new screens into the README, for review in the diff.
@MainActor
@Suite("The README's screens", .serialized)
struct ReadmeScreenTests {
    static let store = StoreInfo(kind: "SQLite", location: "~/.local/share/bookshelf/catalog.sqlite")

    /// Each scenario as a user would play it on a first run, as alice.
    static let scenarios: [String: @MainActor () async throws -> [String]] = [
        "main-view": {
            let harness = AppHarness.starter(columns: 100, rows: 20, store: store)
            await harness.start()
            await harness.awaitCatalogSize()
            await harness.type("hist rom")
            return harness.lines
        },
        "conflict-banner": {
            let harness = AppHarness.starter(columns: 90, rows: 18, store: store)
            await harness.start()
            await harness.awaitCatalogSize()
            await harness.type("mommsen")
            await harness.press(.enter)
            let id = try #require(harness.model.state.editor?.bookID)
            // Another editor retitles the book while alice edits revision 1.
            _ = try await harness.otherEditor("alice").save(
                SaveRequest(
                    id: id, title: "History of Rome (Second Edition)",
                    author: "Theodor Mommsen", expectedRevision: 1))
            await harness.press(.end)
            await harness.type(", Volume 1")
            await harness.press(.enter)
            return harness.lines
        },
    ]

    @Test("every screen in the README is the one the app paints", arguments: ["main-view", "conflict-banner"])
    func readmeScreen(name: String) async throws {
        let readme = try KeyHelpReadmeTests.readme()
        let shown = try #require(Self.block(named: name, in: readme), "the README has a screen named \(name)")
        let scenario = try #require(Self.scenarios[name])
        let painted = try await scenario()
        if ProcessInfo.processInfo.environment["BOOKSHELF_WRITE_README_SCREENS"] == "1" {
            try Self.write(painted, named: name, into: readme)
            return
        }
        for (index, (found, wanted)) in zip(shown, painted).enumerated() where found != wanted {
            Issue.record("\(name) line \(index + 1) in the README is\n  \(found)\nbut the app paints\n  \(wanted)")
        }
        #expect(
            shown.count == painted.count,
            "\(name): the README shows \(shown.count) lines, the app paints \(painted.count)")
    }

    @Test("every screen the README marks has a scenario")
    func everyMarkedScreenHasAScenario() throws {
        let readme = try KeyHelpReadmeTests.readme()
        let names = readme.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(Self.markerPrefix), line.hasSuffix(" -->") else { return nil }
            return String(line.dropFirst(Self.markerPrefix.count).dropLast(4))
        }
        #expect(Set(names) == Set(Self.scenarios.keys))
    }

    static let markerPrefix = "<!-- screen: "

    /// The lines of the fenced block after `<!-- screen: name -->`, and where they are.
    static func blockRange(named name: String, in lines: [String]) -> Range<Int>? {
        guard let marker = lines.firstIndex(of: "\(markerPrefix)\(name) -->"), marker + 1 < lines.count,
            lines[marker + 1].hasPrefix("```")
        else { return nil }
        let start = marker + 2
        guard let end = lines[start...].firstIndex(of: "```") else { return nil }
        return start..<end
    }

    static func block(named name: String, in readme: String) -> [String]? {
        let lines = readme.components(separatedBy: "\n")
        return blockRange(named: name, in: lines).map { Array(lines[$0]) }
    }

    static func write(_ screen: [String], named name: String, into readme: String) throws {
        var lines = readme.components(separatedBy: "\n")
        let range = try #require(blockRange(named: name, in: lines))
        lines.replaceSubrange(range, with: screen)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try lines.joined(separator: "\n").write(
            to: root.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
    }
}
