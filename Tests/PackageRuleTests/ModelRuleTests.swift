import Foundation
import Testing

/// The model's rules (ARCHITECTURE.md, BookshelfModel), read from its sources: every store call
/// is an effect the one runner drives, so every answer passes the publication gate.
@Suite("The model's rules")
struct ModelRuleTests {
    /// The model's only asynchronous functions: waits for the runner's own tasks (for tests and
    /// the demo), and a store call's body run inside an effect's call.
    static let asyncFunctions: Set<String> = [
        "finished(request", "accountsListed(", "theirs(of",
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
}
