import Foundation
import Testing
@testable import BookshelfUI

@Suite("Key help and the README")
struct KeyHelpReadmeTests {
    /// The README beside `Package.swift`, found from this file's place in `Tests/`.
    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The table rows of the README's "### Keys" section: the first run of lines starting with `|`.
    static func readmeKeyTable(_ readme: String) -> [String] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(of: "### Keys") else { return [] }
        let rest = lines[(heading + 1)...].drop { !$0.hasPrefix("|") }
        return Array(rest.prefix { $0.hasPrefix("|") })
    }

    @Test("The README's key table is exactly the one KeyHelp writes")
    func readmeTableMatchesKeyHelp() throws {
        let table = Self.readmeKeyTable(try Self.readme())
        #expect(!table.isEmpty, "the README has a \"### Keys\" table")
        let expected = KeyHelp.markdownTable()
        for (index, (found, wanted)) in zip(table, expected).enumerated() where found != wanted {
            Issue.record("README key table row \(index + 1) is\n  \(found)\nbut KeyHelp writes\n  \(wanted)")
        }
        #expect(table.count == expected.count, "README rows \(table.count), KeyHelp rows \(expected.count)")
    }

    @Test("Every entry the overlay shows is in the README's table with the same keys")
    func everyOverlayEntryIsDocumented() throws {
        let table = Set(Self.readmeKeyTable(try Self.readme()))
        for entry in KeyHelp.sections.flatMap(\.entries) {
            #expect(table.contains { $0.hasPrefix("| \(entry.keys) | ") }, "\(entry.keys) is missing from the README")
        }
    }
}
