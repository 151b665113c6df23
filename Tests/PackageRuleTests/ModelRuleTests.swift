import Foundation
import Testing

/// The model's rules (ARCHITECTURE.md, BookshelfModel), read from its sources: every store call
/// is an effect the one runner drives, so every answer passes the publication gate.
@Suite("The model's rules")
struct ModelRuleTests {
    /// The model's only asynchronous functions: waits for the runner's own tasks (for tests and
    /// the demo), a store call's body run inside an effect's call, and the requirement of the
    /// app's capability that opens another catalog (`CatalogSwitching.open`), which only an
    /// effect's call calls.
    static let asyncFunctions: Set<String> = [
        "finished(request", "accountsListed(", "theirs(of", "open(_",
    ]

    /// A synchronous function on the main actor cannot await, so a store call can only be made
    /// in a closure something else runs; outside the runner nothing may start a task to run one.
    /// Together: every store call is the call of an `Effect`, and `launch` runs it.
    @Test("only the runner starts tasks, so every store call is an effect's call through the gate")
    func onlyTheRunnerStartsTasks() throws {
        let spawning = try Regex(
            #"\bTask(\.detached)?\s*(\{|\()|\bTask\s*\{|withTaskGroup|withThrowingTaskGroup|async let\b"#)
        var outside: [String] = []
        for (path, text) in try LayerRuleTests.swiftFiles(under: "Sources/BookshelfModel")
        where !path.hasSuffix("/Effects.swift") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(spawning) {
                outside.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(outside.isEmpty, "a task started outside Effects.swift:\n\(outside.joined(separator: "\n"))")
    }

    @Test("the model's functions are synchronous but for the runner's waits and an effect's body")
    func noIntentAwaits() throws {
        let asyncDeclaration = try Regex(#"func ([A-Za-z_]+\(?[A-Za-z_]*)[^{]*\)\s*async\b"#)
        var unexpected: [String] = []
        for (path, text) in try LayerRuleTests.swiftFiles(under: "Sources/BookshelfModel")
        where !path.hasSuffix("/Effects.swift") {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let match = line.firstMatch(of: asyncDeclaration) else { continue }
                let name = String(line[match.range]).dropFirst("func ".count)
                if !Self.asyncFunctions.contains(where: { name.hasPrefix($0) }) {
                    unexpected.append("\(path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(unexpected.isEmpty, "an async function in the model:\n\(unexpected.joined(separator: "\n"))")
    }

    /// The rules would pass on nothing at all: they must see what they forbid.
    @Test("the rules see a task and an awaiting intent where they are written")
    func theRulesSeeWhatTheyForbid() throws {
        let spawning = try Regex(
            #"\bTask(\.detached)?\s*(\{|\()|\bTask\s*\{|withTaskGroup|withThrowingTaskGroup|async let\b"#)
        #expect("        Task { await repository.search(query) }".contains(spawning))
        #expect("        async let page = repository.search(query)".contains(spawning))
        let effects = try LayerRuleTests.swiftFiles(under: "Sources/BookshelfModel").filter {
            $0.path.hasSuffix("/Effects.swift")
        }
        #expect(
            effects.count == 1 && effects[0].text.contains(spawning), "the runner starts its tasks in Effects.swift")
        let asyncDeclaration = try Regex(#"func ([A-Za-z_]+\(?[A-Za-z_]*)[^{]*\)\s*async\b"#)
        #expect("    public func refresh(keeping: Bool) async -> Int? {".contains(asyncDeclaration))
    }

    // MARK: The parts

    /// The composition: the one file where every part's state may be named.
    static let compositionFile = "Sources/BookshelfModel/BookshelfModel.swift"

    /// The model's parts, found in its sources: each is a struct `<Name>Part` of the part's stored
    /// values, which the composition keeps as `<name>Part`; the part's files are named `<Name>…swift`.
    static func parts(in files: [(path: String, text: String)]) throws -> [String] {
        let declaration = try Regex(#"\bstruct ([A-Z][A-Za-z]*)Part\b"#)
        return files.flatMap { file in
            file.text.matches(of: declaration).compactMap { match in match.output[1].substring.map(String.init) }
        }.sorted()
    }

    /// The part that owns a file: the longest part name its file name begins with (nil: a file of
    /// no part, such as a value type every part uses).
    static func owner(of path: String, among parts: [String]) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return parts.filter { name.hasPrefix($0) }.max { $0.count < $1.count }
    }

    /// Lines of `text` that name part `part`'s state: its type or the composition's property.
    static func linesNaming(_ part: String, in text: String) throws -> [(number: Int, line: String)] {
        let property = part.prefix(1).lowercased() + part.dropFirst() + "Part"
        // Simple word boundaries: Unicode's default ones join `searchPart.rows` into one word.
        let naming = try Regex(#"\b(\#(part)Part|\#(property))\b"#).wordBoundaryKind(.simple)
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            number, line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), line.contains(naming) else { return nil }
            return (number + 1, code)
        }
    }

    /// A part's state is its own: only its files and the composition name it. What one part needs
    /// of another it asks through the other's intents and reads, written in the other's files.
    @Test("no part reads another part's state: each part's state is named only in its own files")
    func noPartReadsAnotherPartsState() throws {
        let files = try LayerRuleTests.swiftFiles(under: "Sources/BookshelfModel")
        let parts = try Self.parts(in: files)
        #expect(Set(["Search", "Editor", "Session", "History"]).isSubset(of: parts), "the parts: \(parts)")
        var reaching: [String] = []
        for (path, text) in files where path != Self.compositionFile {
            let owner = Self.owner(of: path, among: parts)
            for part in parts where part != owner {
                for (number, line) in try Self.linesNaming(part, in: text) {
                    reaching.append("\(path):\(number) (\(owner ?? "no part")) names \(part)'s state: \(line)")
                }
            }
        }
        #expect(reaching.isEmpty, "a part reaching into another's state:\n\(reaching.joined(separator: "\n"))")
    }

    /// Each part's struct is declared in one of its own files, and the composition keeps it.
    @Test("each part's state is declared in its own files and kept by the composition")
    func eachPartIsDeclaredInItsFilesAndComposed() throws {
        let files = try LayerRuleTests.swiftFiles(under: "Sources/BookshelfModel")
        let parts = try Self.parts(in: files)
        let composition = try #require(files.first { $0.path == Self.compositionFile }).text
        for part in parts {
            let declaredIn = try files.filter { try $0.text.contains(Regex(#"\bstruct \#(part)Part\b"#)) }.map(\.path)
            #expect(
                declaredIn.count == 1 && declaredIn.allSatisfy { Self.owner(of: $0, among: parts) == part },
                "\(part)Part is declared in \(declaredIn), not in one of the files named \(part)…")
            let property = part.prefix(1).lowercased() + part.dropFirst() + "Part"
            #expect(
                composition.contains("var \(property) = \(part)Part()"),
                "the composition keeps \(part)Part as `var \(property) = \(part)Part()`")
        }
    }

    /// The class's stored values are the composition's own (the runner's bookkeeping, the
    /// session generation, the repository with its freshness floor, the status line, the
    /// dependencies it was made with) and the parts: a value of a part is in its part.
    @Test("the model class stores the runner, the session, the floor and the parts, and nothing of a part")
    func theClassIsTheComposition() throws {
        let composition = try String(
            contentsOf: ManifestTests.root.appendingPathComponent(Self.compositionFile), encoding: .utf8)
        let stored = try Regex(
            #"^    (?:public |public internal\(set\) |private |fileprivate )?(?:var|let) ([a-zA-Z]+)\b(?![^=\n]*\{)"#)
        let names = composition.split(separator: "\n").compactMap { line in
            line.firstMatch(of: stored).map { String($0.output[1].substring ?? "") }
        }
        let own: Set<String> = [
            "onChange", "onTrace", "log", "pageSize", "loadMoreThreshold", "countsBooks", "connector", "catalogs",
            "clock",
            "startingAccount", "keeper", "session", "lastRequest", "lastBackgroundRequest", "lastOrder", "owners",
            "inFlight", "showsBusy", "running", "cancellable", "repository", "reachability", "message",
        ]
        let strays = names.filter { !own.contains($0) && !$0.hasSuffix("Part") }
        #expect(names.contains("searchPart") && names.contains("session"), "the rule reads the class: \(names)")
        #expect(strays.isEmpty, "stored in the class but of no part: \(strays)")
    }

    /// The part rules would pass on nothing at all: they must see a reach where it is written.
    @Test("the part rules see a part named in another part's file")
    func thePartRulesSeeAReach() throws {
        let parts = ["Editor", "History", "Search", "Session"]
        #expect(Self.owner(of: "Sources/BookshelfModel/EditorSaving.swift", among: parts) == "Editor")
        #expect(Self.owner(of: "Sources/BookshelfModel/SessionFreshness.swift", among: parts) == "Session")
        #expect(Self.owner(of: "Sources/BookshelfModel/LineEditor.swift", among: parts) == nil)
        let reach = "        guard let book = searchPart.selectedBook else { return nil }"
        #expect(try Self.linesNaming("Search", in: reach).count == 1)
        #expect(try Self.linesNaming("Search", in: "    var part = SearchPart()").count == 1)
        #expect(try Self.linesNaming("Search", in: "        /// the searchPart's rows").isEmpty, "comments may say it")
        #expect(try Self.linesNaming("Search", in: "        researchPart = 1").isEmpty)
    }
}
