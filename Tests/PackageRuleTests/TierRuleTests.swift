import Foundation
import Testing

/// The tests' tiers (CONTRIBUTING.md, `Scripts/test`): a suite that starts a PostgreSQL server,
/// drives tmux or spawns a child process says so with a tag, so that the untagged tier runs
/// in about a minute with nothing beyond the test process. Read from the sources, as the layer
/// rules are: what starts each thing is found by following the test helpers that do it.
@Suite("The test tiers' rules")
struct TierRuleTests {
    /// The calls that start each thing, where the test support does it directly. Every
    /// declaration (type, extension or function) whose text makes one of these calls starts
    /// that thing too, and so does every declaration that calls one of those, and so on.
    static let starters: [String: [String]] = [
        "postgres": ["PostgresScratchServer("],
        "tmux": ["TmuxPane("],
        "process": ["ChildProcess.", "Process(", "posix_spawn("],
    ]

    /// A server or a terminal is made of child processes: a suite tagged for it needs no
    /// `.process` tag for the children that server or terminal starts.
    static let includesProcesses: Set<String> = ["postgres", "tmux"]

    /// The folders whose declarations can start things on a test's behalf.
    static let helperFolders = ["Sources/BookshelfTestSupport", "Tests"]

    @Test("every suite that starts a server, tmux or a child carries the tag for it")
    func everySuiteCarriesItsTags() throws {
        let declarations = try Self.helperFolders.flatMap { try TopLevelDeclaration.all(under: $0) }
        let needs = Self.needs(of: declarations)
        let suites = declarations.filter { $0.suiteTags != nil }
        #expect(suites.count > 150, "the suites were found (\(suites.count))")
        var missing: [String] = []
        for suite in suites {
            let required = needs[suite.name, default: []]
            let implied = required.contains { Self.includesProcesses.contains($0) }
            for tag in required.sorted() where !(suite.suiteTags ?? []).contains(tag) {
                if tag == "process" && implied { continue }
                missing.append("\(suite.path): suite \(suite.name) needs .\(tag)")
            }
        }
        #expect(missing.isEmpty, "suites without the tag for what they start:\n\(missing.joined(separator: "\n"))")
    }

    @Test("tags are given on a top-level @Suite only, so that a tier is a list of suites")
    func tagsOnlyOnSuites() throws {
        var misplaced: [String] = []
        for folder in ["Tests"] {
            for declaration in try TopLevelDeclaration.all(under: folder) {
                let onSuite = declaration.suiteAttribute.map { Self.occurrences(of: ".tags(.", in: $0) } ?? 0
                if Self.occurrences(of: ".tags(.", in: declaration.code) > onSuite {
                    misplaced.append("\(declaration.path): \(declaration.name)")
                }
            }
        }
        #expect(misplaced.isEmpty, ".tags( outside a top-level @Suite attribute:\n\(misplaced.joined(separator: "\n"))")
    }

    @Test("only test targets import TestTags (it links Swift Testing)")
    func onlyTestsImportTheTags() throws {
        let folders = ManifestTests.moduleFolders(under: "Sources").filter { $0 != "TestTags" }.map { "Sources/" + $0 }
        var importers: [String] = []
        for folder in folders + ["Demo"] {
            importers += try LayerRuleTests.files(under: folder, importing: "TestTags").map { folder + "/" + $0 }
        }
        #expect(importers.isEmpty, "TestTags imported outside the tests: \(importers.sorted())")
    }

    @Test("only test targets import CatalogContract (it links Swift Testing)")
    func onlyTestsImportTheContract() throws {
        let folders = ManifestTests.moduleFolders(under: "Sources").filter { $0 != "CatalogContract" }
            .map { "Sources/" + $0 }
        var importers: [String] = []
        for folder in folders + ["Demo"] {
            importers += try LayerRuleTests.files(under: folder, importing: "CatalogContract").map { folder + "/" + $0 }
        }
        #expect(importers.isEmpty, "CatalogContract imported outside the tests: \(importers.sorted())")
    }

    @Test("the rule finds what a suite starts through the helpers")
    func theRuleFollowsHelpers() {
        let helper = TopLevelDeclaration(
            path: "Helper.swift", name: "Cluster", suiteAttribute: nil,
            code: "struct Cluster { static func start() throws { _ = try PostgresScratchServer() } }")
        let catalog = TopLevelDeclaration(
            path: "Catalog.swift", name: "Catalog", suiteAttribute: nil,
            code: "struct Catalog { static func make() throws { try Cluster.start() } }")
        let runner = TopLevelDeclaration(
            path: "Runner.swift", name: "runTool", suiteAttribute: nil,
            code: "func runTool() throws { try ChildProcess.run([\"/bin/true\"]) }")
        let suite = TopLevelDeclaration(
            path: "Suite.swift", name: "SomeTests", suiteAttribute: "@Suite(.tags(.process))",
            code:
                "@Suite(.tags(.process)) struct SomeTests { @Test func a() throws { try Catalog.make(); try runTool() } }"
        )
        let plain = TopLevelDeclaration(
            path: "Plain.swift", name: "PlainTests", suiteAttribute: "@Suite",
            code: "@Suite struct PlainTests { func f(_ server: PostgresScratchServer) {} }")
        let needs = Self.needs(of: [helper, catalog, runner, suite, plain])
        #expect(needs["SomeTests"] == ["postgres", "process"])
        #expect(needs["PlainTests", default: []].isEmpty, "naming a type is not starting it")
        #expect(suite.suiteTags == ["process"])
    }

    /// What each declaration starts, directly or through others (a fixed point over calls).
    static func needs(of declarations: [TopLevelDeclaration]) -> [String: Set<String>] {
        var calls = starters.mapValues(Set.init)
        var needs: [String: Set<String>] = [:]
        var changed = true
        while changed {
            changed = false
            for declaration in declarations {
                for (tag, names) in calls where !needs[declaration.name, default: []].contains(tag) {
                    guard !declaration.callsMade.isDisjoint(with: names) else { continue }
                    needs[declaration.name, default: []].insert(tag)
                    calls[tag]?.formUnion(declaration.calls)
                    changed = true
                }
            }
        }
        return needs
    }

    static func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }
}

/// One declaration at the top level of a Swift file (a type, an extension or a function), with
/// its text; extensions of a type carry the type's name. Comments and string literals are
/// blanked before braces are counted, so a brace in a string does not end a declaration.
struct TopLevelDeclaration {
    let path: String
    let name: String
    /// The `@Suite` attribute's text, when this is a suite.
    let suiteAttribute: String?
    /// The declaration's text with comments and string contents blanked.
    let code: String
    /// The calls it makes, as `Name(`, `Name.` and `name(` (a function called as a member of
    /// something else, `.name(`, is not counted: it is not this name).
    let callsMade: Set<String>

    init(path: String, name: String, suiteAttribute: String?, code: String) {
        self.path = path
        self.name = name
        self.suiteAttribute = suiteAttribute
        self.code = code
        self.callsMade = Self.calls(in: Array(code))
    }

    /// The tag names in the `@Suite` attribute's `.tags(…)`, when this is a suite.
    var suiteTags: Set<String>? {
        guard let attribute = suiteAttribute else { return nil }
        guard let start = attribute.range(of: ".tags(") else { return [] }
        let list = attribute[start.upperBound...].prefix { $0 != ")" }
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces.union(["."])) })
    }

    /// How other code calls into this declaration: `Name(` and `Name.` for a type, `name(` for
    /// a function.
    var calls: [String] {
        name.first?.isUppercase == true ? [name + "(", name + "."] : [name + "("]
    }

    static func calls(in characters: [Character]) -> Set<String> {
        var found: Set<String> = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            guard character.isLetter || character == "_" else {
                index += 1
                continue
            }
            let start = index
            while index < characters.count
                && (characters[index].isLetter || characters[index].isNumber || characters[index] == "_")
            {
                index += 1
            }
            guard index < characters.count, characters[index] == "(" || characters[index] == "." else { continue }
            let name = String(characters[start..<index])
            let member = start > 0 && characters[start - 1] == "."
            if characters[index] == "(" && (!member || name.first?.isUppercase == true) { found.insert(name + "(") }
            if characters[index] == "." && name.first?.isUppercase == true { found.insert(name + ".") }
        }
        return found
    }

    static func all(under folder: String) throws -> [TopLevelDeclaration] {
        try LayerRuleTests.swiftFiles(under: folder).flatMap { split($0.text, path: $0.path) }
    }

    static func split(_ text: String, path: String) -> [TopLevelDeclaration] {
        let code = blankingCommentsAndStrings(Array(text))
        let keyword = try! Regex(
            #"(?:^|[^A-Za-z0-9_@])(struct|class|enum|actor|extension|func)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
        var declarations: [TopLevelDeclaration] = []
        var depth = 0
        var start = 0
        for index in code.indices {
            switch code[index] {
            case "{":
                depth += 1
            case "}":
                depth -= 1
                guard depth == 0 else { continue }
                let blanked = String(code[start...index])
                let head = blanked.prefix { $0 != "{" }
                if let match = head.firstMatch(of: keyword), let name = match.output[2].substring {
                    declarations.append(
                        TopLevelDeclaration(
                            path: path, name: String(name), suiteAttribute: suiteAttribute(in: head), code: blanked))
                }
                start = index + 1
            case "\n" where depth == 0:
                // A top-level line outside braces (an import, a typealias, a global constant)
                // ends here, unless it is an attribute or a signature that goes on.
                let line = String(code[start...index]).trimmingCharacters(in: .whitespacesAndNewlines)
                if line.isEmpty || line.hasPrefix("import ") || line.hasPrefix("#") || line.hasPrefix("@testable ")
                    || line.hasPrefix("let ") || line.hasPrefix("var ") || line.hasPrefix("typealias ")
                {
                    start = index + 1
                }
            default:
                break
            }
        }
        return declarations
    }

    /// The `@Suite` attribute in a declaration's head, up to its closing parenthesis (or the
    /// bare word), if it has one. String contents are blanked, so only the traits are left.
    static func suiteAttribute(in head: Substring) -> String? {
        guard let at = head.range(of: "@Suite") else { return nil }
        var end = at.upperBound
        if end < head.endIndex, head[end] == "(" {
            var depth = 0
            repeat {
                if head[end] == "(" { depth += 1 }
                if head[end] == ")" { depth -= 1 }
                end = head.index(after: end)
            } while depth > 0 && end < head.endIndex
        }
        return String(head[at.lowerBound..<end])
    }

    /// The text with comments and the contents of string literals replaced by spaces (the
    /// quotes stay; lines stay where they were). Handles `//`, `/* */`, "…", #"…"# and """…""".
    static func blankingCommentsAndStrings(_ text: [Character]) -> [Character] {
        var out = text
        var index = 0
        func blank(_ range: Range<Int>) {
            for position in range where out[position] != "\n" { out[position] = " " }
        }
        func starts(_ prefix: String, at position: Int) -> Bool {
            var position = position
            for character in prefix {
                guard position < text.count, text[position] == character else { return false }
                position += 1
            }
            return true
        }
        while index < text.count {
            if starts("//", at: index) {
                let end = text[index...].firstIndex(of: "\n") ?? text.count
                blank(index..<end)
                index = end
            } else if starts("/*", at: index) {
                var end = index + 2
                while end < text.count && !starts("*/", at: end) { end += 1 }
                end = min(end + 2, text.count)
                blank(index..<end)
                index = end
            } else if text[index] == "#" || text[index] == "\"" {
                var hashes = 0
                var position = index
                while position < text.count && text[position] == "#" {
                    hashes += 1
                    position += 1
                }
                guard position < text.count, text[position] == "\"" else {
                    index = position + (hashes == 0 ? 1 : 0)
                    continue
                }
                let multiline = starts("\"\"\"", at: position)
                let quote = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
                var end = position + (multiline ? 3 : 1)
                while end < text.count && !starts(quote, at: end) {
                    if hashes == 0 && text[end] == "\\" { end += 1 }
                    if !multiline && text[end] == "\n" { break }
                    end += 1
                }
                let stop = min(end, text.count)
                blank((position + (multiline ? 3 : 1))..<stop)
                index = min(stop + quote.count, text.count)
            } else {
                index += 1
            }
        }
        return out
    }
}
