import Foundation
import Testing

/// Rules of ARCHITECTURE.md that a change could break without any other test noticing.
@Suite("The layers' rules")
struct LayerRuleTests {
    /// The Swift files under `folder` (relative to the package root) whose lines import `module`.
    static func files(under folder: String, importing module: String) throws -> Set<String> {
        let directory = ManifestTests.root.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        var found: Set<String> = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                (line.hasPrefix("import ") || line.hasPrefix("@testable import ")) && line.split(separator: " ").last == Substring(module)
            }
            if imports { found.insert(file) }
        }
        return found
    }

    @Test("in TerminalUI only NcursesBackend touches ncurses")
    func onlyTheBackendImportsNcurses() throws {
        let importers = try Self.files(under: "Sources/TerminalUI", importing: "CNcurses")
        #expect(importers == ["NcursesBackend.swift"], "files of TerminalUI importing CNcurses: \(importers.sorted())")
    }
}
