import Foundation
import TestTags
import Testing

/// The fields beyond title and author through the real binary: `edit` sets and clears each,
/// `search --json` and `history --json` show them, and export → import keeps every byte.
@Suite(.tags(.process)) struct RecordFieldsCommandLineTests {
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

    /// The book as `search --json` shows it.
    private func searched(_ sandbox: BookshelfProcess, _ db: String, id: Int) throws -> [String: Any] {
        let found = try sandbox.run(["search", "history of rome", "--json", "--db", db])
        return try #require(try jsonObjects(found.output).first { $0["id"] as? Int == id }, "\(found.output)")
    }

    @Test func editSetsEachFieldAndAnEmptyValueClearsOnlyThatField() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        // The starter catalog may give the book details of its own: revision 1 keeps them.
        let initial = try searched(sandbox, db, id: id)
        let edited = try sandbox.run([
            "edit", String(id), "--isbn", "0-14-044933-7", "--year", "1854", "--publisher", "Weidmann",
            "--series", "Römische Geschichte", "--series-index", "1.5", "--tags", "history, Rome, rome",
            "--notes", "Volume one.\nRead in German.", "--account", "alice", "--db", db,
        ])
        #expect(edited.status == 0, "\(edited.errors)")
        #expect(edited.output == "2\n")
        let book = try searched(sandbox, db, id: id)
        #expect(book["isbn"] as? String == "9780140449334")
        #expect(book["year"] as? Int == 1854)
        #expect(book["publisher"] as? String == "Weidmann")
        #expect(book["series"] as? String == "Römische Geschichte")
        #expect(book["series_index"] as? Double == 1.5)
        // A set, folded: "Rome" and "rome" are one tag, the first kept.
        #expect(book["tags"] as? [String] == ["history", "Rome"])
        #expect(book["notes"] as? String == "Volume one.\nRead in German.")
        #expect(book["title"] as? String == "History of Rome")

        let cleared = try sandbox.run([
            "edit", String(id), "--publisher", "", "--tags", "", "--if-revision", "2", "--account", "alice", "--db", db,
        ])
        #expect(cleared.status == 0 && cleared.output == "3\n", "\(cleared.errors)")
        let after = try searched(sandbox, db, id: id)
        #expect(after["publisher"] == nil && after["tags"] == nil)
        #expect(after["isbn"] as? String == "9780140449334" && after["year"] as? Int == 1854)
        #expect(after["notes"] as? String == "Volume one.\nRead in German.")

        let history = try jsonObjects(
            try sandbox.run(["history", String(id), "--json", "--account", "alice", "--db", db]).output)
        #expect(history.map { $0["revision"] as? Int } == [3, 2, 1])
        #expect(history.map { $0["publisher"] as? String } == [nil, "Weidmann", initial["publisher"] as? String])
        #expect(
            history.map { $0["isbn"] as? String } == ["9780140449334", "9780140449334", initial["isbn"] as? String])
    }

    @Test(arguments: [
        (["--isbn", "978-0-14-044933-5"], "ISBN"), (["--year", "1854.5"], "Year"),
        (["--series-index", "-1"], "Series index"),
        (["--tags", "a, \u{7}b"], "Tags"), (["--notes", "bell \u{7}"], "Notes"),
    ])
    func aBadValueExits2NamingTheFieldAndSavesNothing(_ option: [String], _ field: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        let refused = try sandbox.run(
            ["edit", String(id)] + option + ["--title", "Changed", "--account", "alice", "--db", db])
        #expect(refused.status == 2, "\(refused.errors)")
        #expect(refused.errors.contains(field + ":"), "\(refused.errors)")
        let book = try searched(sandbox, db, id: id)
        #expect(book["revision"] as? Int == 1 && book["title"] as? String == "History of Rome")
    }

    @Test func notesFileDashReadsStandardInputKeepingItsLines() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        let edited = try sandbox.run(
            ["edit", String(id), "--notes-file", "-", "--account", "alice", "--db", db],
            input: "First line\r\n\nThird line\n")
        #expect(edited.status == 0, "\(edited.errors)")
        #expect(try searched(sandbox, db, id: id)["notes"] as? String == "First line\n\nThird line")
        let both = try sandbox.run(
            ["edit", String(id), "--notes", "x", "--notes-file", "-", "--account", "alice", "--db", db], input: "y")
        #expect(both.status == 2)
    }

    /// A notes file that cannot be used is a file problem (exit 3, as `import` says of its
    /// file), not a wrong command line: no usage tail, and nothing saved.
    @Test func aNotesFileThatCannotBeReadExits3WithoutTheUsageTail() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let id = try bookID(sandbox, db, query: "history of rome", suffix: "\tHistory of Rome\tTheodor Mommsen\t1")
        let unreadable = try sandbox.write("unreadable.txt", "secret")
        #expect(chmod(unreadable, 0o000) == 0)
        let notUTF8 = sandbox.path("latin1.txt")
        #expect(FileManager.default.createFile(atPath: notUTF8, contents: Data([0x63, 0x61, 0x66, 0xE9])))
        let cases =
            [
                (sandbox.path("missing.txt"), "missing.txt"), (sandbox.path(""), "s a directory"),
                (notUTF8, "UTF-8"),
            ] + (getuid() == 0 ? [] : [(unreadable, "ermission denied")])
        for (file, said) in cases {
            let refused = try sandbox.run(
                ["edit", String(id), "--notes-file", file, "--account", "alice", "--db", db])
            #expect(refused.status == 3, "\(file): \(refused.errors)")
            #expect(refused.errors.contains(said), "\(file): \(refused.errors)")
            #expect(!refused.errors.contains("--help"), "\(file): \(refused.errors)")
            #expect(refused.output.isEmpty)
        }
        #expect(try searched(sandbox, db, id: id)["revision"] as? Int == 1)
    }

    /// Written by hand, every field used, so the test does not check the exporter with itself.
    static let detailedBooks = """
        {"title": "Great Expectations", "author": "Charles Dickens", "isbn": "0-14-143956-4", "year": 1861, "publisher": "Penguin, Classics", "series": "Penguin \\"Black\\"", "series_index": 2.5, "tags": ["Victorian", "classic"], "notes": "First, with a comma.\\n\\n\\"Quoted\\" third"}
        {"title": "No details", "author": ""}
        {"title": "The Histories", "author": "Herodotus", "year": -430, "tags": ["history"], "notes": "Τὰ ἱστορικά 🌍"}

        """

    @Test(arguments: ["csv", "jsonl"])
    func everyFieldSurvivesExportAndImportByteForByte(_ format: String) throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let source = try sandbox.write("books.jsonl", Self.detailedBooks)
        let db = sandbox.path("first.sqlite")
        let imported = try sandbox.run(["import", source, "--db", db])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.errors.contains("Read 3 books (15 fields mapped)."), "\(imported.errors)")
        let first = try sandbox.run(["export", "--format", format, "--db", db])
        #expect(first.status == 0, "\(first.errors)")
        let objects = try jsonObjects(try sandbox.run(["export", "--format", "jsonl", "--db", db]).output)
        let dickens = try #require(objects.first { $0["title"] as? String == "Great Expectations" })
        #expect(dickens["isbn"] as? String == "9780141439563")
        #expect(dickens["tags"] as? [String] == ["classic", "Victorian"])
        #expect(dickens["notes"] as? String == "First, with a comma.\n\n\"Quoted\" third")
        for restoring in [false, true] {
            let file = try sandbox.write("again-\(restoring).\(format)", first.output)
            let copy = sandbox.path("copy-\(restoring).sqlite")
            let again = try sandbox.run(["import", file, "--db", copy] + (restoring ? ["--restore"] : []))
            #expect(again.status == 0, "\(again.errors)")
            let second = try sandbox.run(["export", "--format", format, "--db", copy])
            #expect(second.outputBytes == first.outputBytes, "restore: \(restoring)")
        }
    }

    @Test func aBadValueInAFileIsReportedByLineAndColumnAndNothingIsImported() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let file = try sandbox.write("bad.csv", "title,isbn,year\nGood,,1999\nBad,9780141439564,\nWorse,,2999999\n")
        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["import", file, "--db", db])
        #expect(result.status == 1)
        #expect(result.errors.contains("bad.csv:3: isbn: "), "\(result.errors)")
        #expect(result.errors.contains("bad.csv:4: year: "), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
