import Foundation
import Testing

/// docs/terminals.md says what a paste does in each field, as `EditorFormTests` shows the app
/// doing it (`aPasteIntoTheNotesKeepsItsLinesAndIntoAFieldJoinsThem`): the notes keep the
/// pasted lines, every one-line field joins them with spaces. The README says the same.
@Suite struct PasteDocsTests {
    static func page(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The "## Pasting" section, its lines joined into one paragraph.
    static func pastingSection() throws -> String {
        let text = try page("docs/terminals.md")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let heading = lines.firstIndex(of: "## Pasting") else { return "" }
        let section = lines[(heading + 1)...].prefix { !$0.hasPrefix("## ") }
        return section.joined(separator: " ")
    }

    @Test func theTerminalsPageSaysTheNotesKeepAPastesLines() throws {
        let section = try Self.pastingSection()
        #expect(!section.isEmpty, "docs/terminals.md has a \"## Pasting\" section")
        #expect(
            section.contains("In the notes each line break stays a line break"),
            "the notes keep a paste's lines: \(section)")
        #expect(
            section.contains("in the search line, a password and the other fields each line break becomes a space"),
            "the one-line fields join them: \(section)")
        #expect(!section.contains("Line breaks and tabs become spaces"), "not for every field: \(section)")
    }
}
