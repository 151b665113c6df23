import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `edit`, `history` and `export` as a script meets them: the real binary on a real file.
@Suite(.tags(.process)) struct ScriptingCommandLineTests {
    /// The id of the one book whose search line ends with `suffix`.
    private func bookID(_ sandbox: BookshelfProcess, _ db: String, query: String, suffix: String) throws -> Int {
        let found = try sandbox.run(["search", query, "--db", db, "--limit", "1000"])
        let line = try #require(found.outputLines.first { $0.hasSuffix(suffix) }, "\(found.output)")
        return try #require(Int(line.split(separator: "\t")[0]))
    }

    private func jsonObjects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func editSavesThroughCompareAndSetAndHistoryShowsEveryRevision() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")

        let edited = try sandbox.run([
            "edit", String(id), "--title", "  Römische Geschichte ", "--account", "alice", "--db", db,
        ])
        #expect(edited.status == 0, "\(edited.errors)")
        #expect(edited.output == "2\n")
        let second = try sandbox.run([
            "edit", String(id), "--author", "T. Mommsen", "--if-revision", "2", "--json",
            "--account", "alice", "--db", db,
        ])
        #expect(second.status == 0, "\(second.errors)")
        let saved = try jsonObjects(second.output)
        #expect(
            saved.count == 1 && saved[0]["revision"] as? Int == 3
                && saved[0]["title"] as? String == "Römische Geschichte"
                && saved[0]["author"] as? String == "T. Mommsen")

        let history = try sandbox.run(["history", String(id), "--db", db])
        #expect(history.status == 0, "\(history.errors)")
        let rows = history.outputLines.map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(
            rows.map { [$0[0], $0[2], $0[3], $0[4]] } == [
                ["3", "alice", "Römische Geschichte", "T. Mommsen"],
                ["2", "alice", "Römische Geschichte", "Theodor Mommsen"],
                ["1", "-", "History of Rome", "Theodor Mommsen"],
            ])
        let json = try jsonObjects(try sandbox.run(["history", String(id), "--json", "--db", db]).output)
        #expect(json.map { $0["revision"] as? Int } == [3, 2, 1])
        #expect(json[0]["account"] as? String == "alice" && json[2]["account"] is NSNull)
        #expect(json[0]["operation"] is String && json[2]["operation"] is NSNull)
        #expect(json.allSatisfy { ($0["saved_at"] as? String)?.hasSuffix("Z") == true })
    }

    @Test func aConflictPrintsTheirsAndExitsFourAndSavesNothing() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        #expect(
            try sandbox.run(["edit", String(id), "--title", "Theirs", "--account", "alice", "--db", db]).status == 0)

        let late = try sandbox.run([
            "edit", String(id), "--title", "Mine", "--if-revision", "1", "--account", "alice", "--db", db,
        ])
        #expect(late.status == 4, "\(late.errors)")
        #expect(late.output == "\(id)\tTheirs\tTheodor Mommsen\t2\n")
        #expect(late.errors.contains("conflict") && late.errors.contains("revision 2"), "\(late.errors)")
        let lateJSON = try sandbox.run([
            "edit", String(id), "--author", "X", "--if-revision", "1", "--json", "--db", db,
        ])
        #expect(lateJSON.status == 4)
        #expect(try jsonObjects(lateJSON.output).first?["title"] as? String == "Theirs")
        #expect(try sandbox.run(["history", String(id), "--db", db]).outputLines.count == 2, "nothing was saved")
    }

    /// Nobody saved: a revision past the book's own is said as such, and saves nothing.
    @Test func aRevisionAheadOfTheBookIsNotCalledAConflict() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        #expect(try sandbox.run(["edit", String(id), "--title", "Second", "--db", db]).status == 0)

        let ahead = try sandbox.run(["edit", String(id), "--title", "Mine", "--if-revision", "99", "--db", db])
        #expect(ahead.status == 3, "\(ahead.errors)")
        #expect(ahead.output.isEmpty)
        #expect(
            ahead.errorLines == [
                "bookshelf edit: book \(id) is at revision 2; --if-revision 99 is ahead of it "
                    + "(no one has saved it that far), and nothing was saved"
            ], "\(ahead.errors)")
        #expect(!ahead.errors.contains("someone else"), "\(ahead.errors)")
        #expect(try sandbox.run(["history", String(id), "--db", db]).outputLines.count == 2, "nothing was saved")
    }

    /// Saving the text already stored makes no revision, from the command line as in the app.
    @Test func anEditThatChangesNothingSavesNothing() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        for arguments in [
            ["--title", "History of Rome"], ["--title", " History of Rome  "], ["--author", "Theodor Mommsen"],
            ["--title", "History of Rome", "--author", "Theodor Mommsen", "--if-revision", "1"],
        ] {
            let same = try sandbox.run(["edit", String(id)] + arguments + ["--db", db])
            #expect(same.status == 0, "\(arguments): \(same.errors)")
            #expect(same.output == "1\n", "\(arguments): \(same.output)")
            #expect(same.errorLines.count == 1 && same.errors.contains("No changes"), "\(arguments): \(same.errors)")
        }
        let json = try sandbox.run(["edit", String(id), "--title", "History of Rome", "--json", "--db", db])
        #expect(try jsonObjects(json.output).first?["revision"] as? Int == 1)
        #expect(try sandbox.run(["history", String(id), "--db", db]).outputLines.count == 1, "no revision was made")
        // A real change after them still saves, as revision 2.
        let changed = try sandbox.run(["edit", String(id), "--author", "T. Mommsen", "--db", db])
        #expect(changed.status == 0 && changed.output == "2\n", "\(changed.errors)")
    }

    @Test func readersAndOtherScopesMayNotEditAndExitThree() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        let reader = try sandbox.run(["edit", String(id), "--title", "Vandal", "--account", "bob", "--db", db])
        #expect(reader.status == 3 && reader.output.isEmpty)
        #expect(reader.errorLines.count == 1 && reader.errors.contains("may not edit"), "\(reader.errors)")
        let outsider = try sandbox.run(["edit", String(id), "--title", "Vandal", "--account", "carol", "--db", db])
        #expect(outsider.status == 3 && outsider.output.isEmpty)
        #expect(outsider.errorLines.count == 1 && outsider.errors.contains("no book \(id)"), "\(outsider.errors)")
        #expect(try sandbox.run(["history", String(id), "--account", "carol", "--db", db]).status == 3)
        #expect(try sandbox.run(["history", String(id), "--db", db]).outputLines.count == 1, "nothing was saved")

        for arguments in [
            ["edit", String(id), "--db", db], ["edit", "x", "--title", "T", "--db", db],
            ["edit", String(id), "--title", "  ", "--db", db], ["history", "0", "--db", db],
            ["edit", String(id), "--title", "T", "--if-revision", "0", "--db", db],
            ["export", "--format", "xml", "--db", db],
        ] {
            let outcome = try sandbox.run(arguments)
            #expect(outcome.status == 2 && outcome.errorLines.count == 1, "\(arguments): \(outcome.errors)")
            #expect(!outcome.errors.contains(".."), "one full stop: \(outcome.errors)")
        }
    }

    @Test(arguments: ["csv", "jsonl"])
    func theSampleCatalogExportsAndImportsBackUnchanged(_ format: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        for (scope, account) in [("main", "alice"), ("north", "carol")] {
            let exported = try sandbox.run(["export", "--format", format, "--scope", scope, "--db", db])
            #expect(exported.status == 0, "\(exported.errors)")
            let count = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: scope)
            // A line per book in JSON Lines; in CSV notes of several lines span lines, so the
            // books are counted after the import below.
            if format == "jsonl" { #expect(exported.outputLines.count == count) }
            let file = try sandbox.write("\(scope).\(format)", exported.output)
            let copy = sandbox.path("copy-\(scope).sqlite")
            let imported = try sandbox.run(["import", file, "--scope", scope, "--db", copy])
            #expect(imported.status == 0, "\(imported.errors)")
            // A new catalog holds the imported books only, and the accounts.
            let catalog = try SQLiteCatalog.open(path: copy, create: false)
            #expect(try catalog.bookCount(scope: nil) == count)
            #expect(try Set(catalog.accounts().map(\.name)) == ["alice", "bob", "carol"])
            let again = try sandbox.run(["export", "--format", format, "--account", account, "--db", copy])
            #expect(again.status == 0 && again.output == exported.output)
        }
    }

    @Test func aUnicodeEdgeCorpusRoundTripsThroughBothFormats() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        // Written by hand (not by the exporter), so the test does not check the code with itself.
        let corpus = """
            {"title": "Rome, the City", "author": "Beard, Mary"}
            {"title": "The \\"Quoted\\" Book", "author": "O'Brien"}
            {"title": "\\"", "author": "\\"\\""}
            {"title": "Back\\\\slash \\\\n", "author": "C:\\\\"}
            {"title": "Cafe\\u0301 decomposed", "author": "Café composed"}
            {"title": "👩‍👩‍👧‍👦 🇯🇵 🌸", "author": "שלום مرحبا"}
            {"title": "Soft\\u00adHyphen\\u2060Joiner", "author": "No\\u00a0Break\\u200bZero"}
            {"title": "𝔘𝔫𝔦 𐐷", "author": "=SUM(A1)"}
            """
        let source = try sandbox.write("corpus.jsonl", corpus + "\n")
        let db = sandbox.path("corpus.sqlite")
        #expect(try sandbox.run(["import", source, "--db", db]).status == 0)
        let original = try sandbox.run(["export", "--format", "jsonl", "--db", db])
        let parsed = try jsonObjects(original.output)
        let expected = try jsonObjects(corpus)
        // Scalar for scalar, in title order.
        let pairs = { (objects: [[String: Any]]) in
            objects.map {
                [
                    Array(($0["title"] as? String ?? "").unicodeScalars),
                    Array(($0["author"] as? String ?? "").unicodeScalars),
                ]
            }
        }
        #expect(Set(pairs(parsed).map { "\($0)" }) == Set(pairs(expected).map { "\($0)" }))
        for format in ["csv", "jsonl"] {
            let exported = try sandbox.run(["export", "--format", format, "--db", db])
            let file = try sandbox.write("round.\(format)", exported.output)
            let copy = sandbox.path("round-\(format).sqlite")
            #expect(try sandbox.run(["import", file, "--db", copy]).status == 0)
            #expect(try sandbox.run(["export", "--format", format, "--db", copy]).output == exported.output)
            #expect(try sandbox.run(["export", "--format", "jsonl", "--db", copy]).output == original.output)
        }
        let query = try sandbox.run(["export", "--format", "jsonl", "--query", "rome", "--db", db])
        #expect(try jsonObjects(query.output).map { $0["title"] as? String } == ["Rome, the City"])
    }
}
