import Foundation
import TestTags
import Testing

/// `bookshelf edit --search`, `undo` and the batch in `history`, through the real binary on the
/// starter catalog (issue 61, ask 6): what each book's outcome must be follows from what the
/// search matched and what a single edit saved before.
@Suite(.tags(.process)) struct BulkEditCommandLineTests {
    private func jsonObjects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The ids `search QUERY` prints, in its order.
    private func ids(_ sandbox: BookshelfProcess, _ db: String, _ query: String) throws -> [Int] {
        try sandbox.run(["search", query, "--db", db, "--limit", "1000"]).outputLines.map {
            try #require(Int($0.split(separator: "\t")[0]))
        }
    }

    @Test func aBulkEditSavesEachMatchAsABatchThatUndoReverts() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let matched = try ids(sandbox, db, "history")
        try #require(matched.count >= 2)
        // One of them has the tag already: it is unchanged.
        let tagged = try sandbox.run([
            "edit", String(matched[0]), "--tags", "batched", "--account", "alice", "--db", db,
        ])
        #expect(tagged.status == 0, "\(tagged.errors)")

        let dry = try sandbox.run([
            "edit", "--search", "history", "--add-tag", "batched", "--dry-run", "--json", "--account", "alice", "--db",
            db,
        ])
        #expect(dry.status == 0, "\(dry.errors)")
        let wouldBe = try jsonObjects(dry.output)
        #expect(
            wouldBe.dropLast().map { $0["outcome"] as? String } == ["unchanged"]
                + matched.dropFirst().map { _ in "would_save" })
        #expect(wouldBe.last?["dry_run"] as? Bool == true && wouldBe.last?["batch"] is NSNull)

        let edited = try sandbox.run([
            "edit", "--search", "history", "--add-tag", "batched", "--json", "--account", "alice", "--db", db,
        ])
        #expect(edited.status == 0, "\(edited.errors)")
        let lines = try jsonObjects(edited.output)
        #expect(lines.dropLast().map { $0["id"] as? Int } == matched)
        #expect(
            lines.dropLast().map { $0["outcome"] as? String } == ["unchanged"]
                + matched.dropFirst().map { _ in "saved" })
        let batch = try #require(lines.last?["batch"] as? Int)
        #expect(lines.last?["saved"] as? Int == matched.count - 1 && lines.last?["unchanged"] as? Int == 1)
        #expect(
            edited.errors.contains(
                "Batch \(batch): \(matched.count - 1) saved, 1 unchanged, 0 merged, 0 conflicts, 0 failed"),
            "\(edited.errors)")

        let history = try sandbox.run(["history", String(matched[1]), "--db", db])
        #expect(history.outputLines.first?.hasSuffix("\t\(batch)") == true, "\(history.output)")
        #expect(history.outputLines.last?.hasSuffix("\t-") == true, "\(history.output)")

        let undone = try sandbox.run(["undo", String(batch), "--account", "alice", "--db", db])
        #expect(undone.status == 0, "\(undone.errors)")
        #expect(undone.errors.contains("\(matched.count - 1) saved, 0 unchanged"), "\(undone.errors)")
        let after = try jsonObjects(
            try sandbox.run(["search", "history", "--json", "--db", db, "--limit", "1000"]).output)
        for book in after where book["id"] as? Int != matched[0] {
            #expect(!((book["tags"] as? [String]) ?? []).contains("batched"), "\(book)")
        }
    }

    @Test func badChangesAreUsageErrorsAndAnUnknownBatchIsNotFound() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let unknown = try sandbox.run(["undo", "999", "--account", "alice", "--db", db])
        #expect(unknown.status == 3 && unknown.errors.contains("no batch 999"), "\(unknown.errors)")
        let usage = try sandbox.run(["edit", "--search", "history", "--title", "Same", "--db", db])
        #expect(usage.status == 2, "\(usage.errors)")
        let both = try sandbox.run(["edit", "--search", "history", "--add-tag", "a", "--remove-tag", "A", "--db", db])
        #expect(both.status == 2, "\(both.errors)")
        // All or nothing with nothing to refuse saves every match in one batch.
        let whole = try sandbox.run([
            "edit", "--search", "history", "--add-tag", "whole", "--all-or-nothing", "--account", "alice", "--db", db,
        ])
        #expect(whole.status == 0 && whole.errors.contains("Batch 1: "), "\(whole.errors)")
        // A year past next year is refused before anything is read.
        let late = try sandbox.run(["edit", "--search", "history", "--year", "99999", "--db", db])
        #expect(late.status == 2, "\(late.errors)")
    }
}
