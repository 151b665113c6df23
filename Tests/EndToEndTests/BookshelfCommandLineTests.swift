import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// The `bookshelf` binary as a user and a script meet it: real process, real catalog file.
@Suite(.tags(.process)) struct BookshelfCommandLineTests {
    // MARK: First run and catalog location

    @Test func setupCreatesTheSampleCatalogAndSaysSo() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("new/dir/catalog.sqlite")

        let setup = try sandbox.run(["setup", "--db", db])
        #expect(setup.status == 0)
        #expect(setup.errors.contains("created a new catalog at \(db)"), "\(setup.errors)")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "the catalog is closed cleanly")
        let first = try sandbox.run(["search", "history of rome", "--db", db])
        #expect(first.status == 0)
        #expect(first.outputLines.contains { $0.hasSuffix("\tHistory of Rome\tTheodor Mommsen\t1") }, "\(first.output)")
        #expect(first.outputLines.contains { $0.contains("\tA History of Rome\tMary Beard\t") })

        let again = try sandbox.run(["setup", "--db", db])
        #expect(again.status == 0)
        #expect(!again.errors.contains("created"), "only the first run creates")
        #expect(try sandbox.run(["search", "history of rome", "--db", db]).output == first.output)

        let catalog = try SQLiteCatalog.open(path: db, create: false)
        #expect(try catalog.bookCount(scope: "main") > 1_000)
        #expect(try catalog.bookCount(scope: "north") > 100)
        #expect(try Set(catalog.accounts().map(\.name)) == ["alice", "bob", "carol"])
    }

    @Test func aPathWithNoCatalogIsAnErrorAndNothingIsCreated() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let typo = sandbox.path("typo-dir/cat.sqlite")
        let expected = ": no catalog at \(typo) (create one with `bookshelf setup --db \(typo)` or `bookshelf import`)"
        for (arguments, environment) in [
            (["search", "rome", "--db", typo], [:]),
            (["search", "rome"], ["BOOKSHELF_DB": typo]),
            (["--db", typo], [:]),
            ([], ["BOOKSHELF_DB": typo]),
        ] as [([String], [String: String])] {
            let outcome = try sandbox.run(arguments, environment: environment)
            #expect(outcome.status == 3, "\(arguments) \(environment)")
            #expect(
                outcome.errorLines.count == 1 && outcome.errors.hasPrefix("bookshelf")
                    && outcome.errorLines[0].hasSuffix(expected),
                "\(arguments) \(environment): \(outcome.errors)")
            #expect(outcome.output.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: sandbox.path("typo-dir")), "\(arguments) \(environment)")
        }
        // `search` does not create at the default location either: only the app does.
        let atDefault = try sandbox.run(["search", "rome"])
        #expect(atDefault.status == 3)
        #expect(
            atDefault.errors.contains("no catalog at \(sandbox.path("home/.local/share/bookshelf/catalog.sqlite"))"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("home/.local")))
    }

    @Test func anEmptyFileIsNeverModifiedAndSetupMakesItACatalog() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let empty = try sandbox.write("empty.sqlite", "")
        for arguments in [["search", "rome", "--db", empty], ["--db", empty]] {
            let outcome = try sandbox.run(arguments)
            #expect(outcome.status == 3, "\(arguments)")
            #expect(outcome.errorLines.count == 1, "\(arguments): \(outcome.errors)")
            #expect(outcome.errors.contains("\(empty) is an empty file"), "\(arguments): \(outcome.errors)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty, "\(arguments) left it untouched")
            #expect(!FileManager.default.fileExists(atPath: empty + "-wal"))
        }
        let setup = try sandbox.run(["setup", "--db", empty])
        #expect(setup.status == 0, "\(setup.errors)")
        #expect(setup.output.contains("is ready"))
        let search = try sandbox.run(["search", "history of rome", "--db", empty])
        #expect(search.status == 0, "\(search.errors)")
        #expect(search.output.contains("\tHistory of Rome\tTheodor Mommsen\t1"))
    }

    @Test func setupSaysAnEmptyAccountNameIsEmpty() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let outcome = try sandbox.run(["setup", "--db", sandbox.path("c.sqlite"), "--account", ""])
        #expect(outcome.status == 2)
        #expect(
            outcome.errorLines.count == 1 && outcome.errors.contains("--account needs a name: it is empty"),
            "\(outcome.errors)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("c.sqlite")))
    }

    @Test func theCatalogLocationFollowsOptionThenEnvironmentThenXDGThenHome() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let fromOption = sandbox.path("option.sqlite")
        let fromVariable = sandbox.path("variable.sqlite")
        let dataHome = sandbox.path("data")

        _ = try sandbox.run(
            ["setup", "--db", fromOption], environment: ["BOOKSHELF_DB": fromVariable, "XDG_DATA_HOME": dataHome])
        #expect(FileManager.default.fileExists(atPath: fromOption))
        #expect(!FileManager.default.fileExists(atPath: fromVariable), "--db wins over BOOKSHELF_DB")

        _ = try sandbox.run(["setup"], environment: ["BOOKSHELF_DB": fromVariable, "XDG_DATA_HOME": dataHome])
        #expect(FileManager.default.fileExists(atPath: fromVariable))
        #expect(!FileManager.default.fileExists(atPath: dataHome), "BOOKSHELF_DB wins over XDG_DATA_HOME")

        _ = try sandbox.run(["setup"], environment: ["XDG_DATA_HOME": dataHome])
        #expect(FileManager.default.fileExists(atPath: dataHome + "/bookshelf/catalog.sqlite"))

        _ = try sandbox.run(["setup"], environment: ["XDG_DATA_HOME": "relative/ignored"])
        #expect(FileManager.default.fileExists(atPath: sandbox.path("home/.local/share/bookshelf/catalog.sqlite")))
    }

    // MARK: Search

    @Test func searchFindsKnownBooksAcrossScriptsAndAccents() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let expectations = [
            ("歴史", "日本の歴史"), ("cafe society", "Café Society"), ("angstrom", "Ångström and the Light"),
            ("역사", "한국의 역사"), ("tomatoes", "Cooking with 🍅 Tomatoes"),
        ]
        for (query, title) in expectations {
            let result = try sandbox.run(["search", query, "--db", db])
            #expect(result.status == 0, "\(query)")
            #expect(
                result.outputLines.contains { $0.split(separator: "\t").dropFirst().first.map(String.init) == title },
                "\(query): \(result.output)")
        }
    }

    @Test func searchExitsOneWhenNothingMatchesAndReportsTheTotal() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let none = try sandbox.run(["search", "zzqxv", "--db", db])
        #expect(none.status == 1)
        #expect(none.output.isEmpty)
        #expect(none.errorLines.last == "0 matches")

        let some = try sandbox.run(["search", "mommsen", "--db", db])
        #expect(some.status == 0)
        #expect(some.errorLines.last == "\(some.outputLines.count) matches")
    }

    @Test func limitAndOffsetPageThroughTheMatches() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let all = try sandbox.run(["search", "history", "--limit", "10", "--db", db])
        let firstHalf = try sandbox.run(["search", "history", "--limit=5", "--db", db])
        let secondHalf = try sandbox.run(["search", "history", "--limit", "5", "--offset", "5", "--db", db])
        #expect(all.outputLines.count == 10)
        #expect(firstHalf.outputLines + secondHalf.outputLines == all.outputLines)
        #expect(secondHalf.errorLines.last?.hasSuffix("(showing 6–10)") == true, "\(secondHalf.errors)")
    }

    @Test func jsonOutputIsOneParsableObjectPerLine() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let result = try sandbox.run([
            "search", "café", "--json", "--limit", "20", "--db", try sandbox.starterCatalog(),
        ])
        #expect(result.status == 0)
        #expect(result.outputLines.count == 20)
        for line in result.outputLines {
            let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let object = try #require(parsed as? [String: Any], "\(line)")
            #expect(object["id"] is Int)
            #expect(object["revision"] as? Int == 1)
            #expect(object["author"] is String)
            let title = try #require(object["title"] as? String)
            let author = object["author"] as? String ?? ""
            #expect(
                (title + " " + author).folding(options: .diacriticInsensitive, locale: nil).lowercased().contains(
                    "cafe"))
        }
    }

    @Test func accountsSeeOnlyTheirScope() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let carol = try sandbox.run(["search", "tromsø", "--account", "carol", "--db", db])
        #expect(carol.status == 0)
        #expect(carol.output.contains("Northern Lights over Tromsø"))
        let alice = try sandbox.run(["search", "northern lights over", "--account", "alice", "--db", db])
        #expect(!alice.output.contains("Tromsø"))

        let nobody = try sandbox.run(["search", "rome", "--account", "mallory", "--db", db])
        #expect(nobody.status == 3)
        #expect(nobody.errorLines.count == 1)
        #expect(nobody.errors.contains("no account named \"mallory\""), "\(nobody.errors)")
    }

    @Test func hostileQueriesAreJustText() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let queries = [
            "\"", "NEAR(", "*", "AND", "OR", "NOT", "title:rome", "rome*", "(", ")", "'", "\\", "%", "_",
            "^", "\"a\" OR \"b\"", "NEAR(rome history, 2)", "-", "{", "\u{1B}[31m", "'; DROP TABLE books; --",
        ]
        for query in queries {
            let result = try sandbox.run(["search", query, "--db", db])
            #expect(
                result.status == 0 || result.status == 1, "\(query.debugDescription): \(result.status) \(result.errors)"
            )
            #expect(
                result.errorLines.last?.hasSuffix("matches") == true
                    || result.errorLines.last?.contains("match") == true,
                "\(query.debugDescription): \(result.errors)")
        }
        let dashed = try sandbox.run(["search", "--db", db, "--", "-x"])
        #expect(dashed.status == 0 || dashed.status == 1, "\(dashed.errors)")
        let afterAll = try sandbox.run(["search", "history", "--db", db])
        #expect(afterAll.status == 0, "the catalog still works after hostile queries")
    }

    // MARK: Import

    @Test func importAddsEveryBookOfAGoodCSVFileAndReportsTheCount() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: "main")

        let file = try sandbox.write(
            "books.csv",
            "\u{FEFF}author,title\r\n\"Beard, Mary\",\"SPQR: A Zyxquorian History\"\r\nZoë,\"The \"\"Zyxquorian\"\" Café\"\r\n,Zyxquorian Anonymous\r\n"
        )
        let result = try sandbox.run(["import", file, "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 3 books to scope main.\n")
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: "main") == before + 3)

        let found = try sandbox.run(["search", "zyxquorian", "--db", db])
        #expect(
            Set(found.outputLines.map { $0.split(separator: "\t", omittingEmptySubsequences: false)[1] })
                == ["SPQR: A Zyxquorian History", "The \"Zyxquorian\" Café", "Zyxquorian Anonymous"])
    }

    /// After `import` or `sample` the next program finds a stored search index that lists
    /// every book, rather than building one (or typing through a build) itself: here after
    /// more books than a stored index catches up with, and on a catalog that had none.
    @Test func importAndSampleLeaveASearchIndexTheNextProgramLoads() async throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        #expect(
            try sandbox.run(["search", "history", "--db", db]).status == 0, "the starter catalog's index is stored")
        let lines = (0..<1_500).map { "Imported Volume \($0),Editor \($0 % 7)" }
        let file = try sandbox.write("many.csv", "title,author\n" + lines.joined(separator: "\n") + "\n")
        let imported = try sandbox.run(["import", file, "--db", db])
        #expect(imported.status == 0, "\(imported.errors)")
        try await expectStoredIndex(db, scope: "main")

        let fresh = sandbox.path("sampled.sqlite")
        let sampled = try sandbox.run(["sample", "--count", "2000", "--db", fresh])
        #expect(sampled.status == 0, "\(sampled.errors)")
        try await expectStoredIndex(fresh, scope: "main")
    }

    private func expectStoredIndex(_ db: String, scope: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let catalog = try SQLiteCatalog.open(path: db, create: false)
        let account = try #require(try catalog.accounts().first { $0.scope == scope }, sourceLocation: sourceLocation)
        let (report, _) = try await catalog.remote(account: account.name).searchIndexReport()
        let books = try catalog.bookCount(scope: scope)
        #expect(
            report.origin == .loadedSnapshot && report.books == books,
            "\(report)", sourceLocation: sourceLocation)
    }

    @Test func importReadsJSONLinesIntoTheChosenScope() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let file = try sandbox.write(
            "books.ndjson", "{\"title\": \"北の国から\", \"author\": \"倉本 聰\"}\n\n{\"title\": \"Fjord Winter\"}\n")
        let result = try sandbox.run(["import", file, "--scope", "north", "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 2 books to scope north.\n")
        let carol = try sandbox.run(["search", "北の国", "--account", "carol", "--db", db])
        #expect(carol.output.contains("\t北の国から\t倉本 聰\t1"))
    }

    @Test func anImportWithABadLineReportsItAndChangesNothing() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let before = try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil)

        let file = try sandbox.write(
            "books.csv",
            "title,author\nGood Book,A\n\"Multi\nline notes? no: a title\",B\nAnother Good Book,C\n,Nobody\n")
        let result = try sandbox.run(["import", file, "--db", db])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        // After the line that says the file was read (ImportExportProgressTests).
        #expect(
            result.errorLines.filter { !$0.hasPrefix("Reading books.csv (bytes): ") } == [
                "\(file):3: title contains a control character (U+000A)",
                "\(file):6: missing title",
                "bookshelf import: nothing imported: 2 bad lines in \(file)",
            ])
        #expect(try SQLiteCatalog.open(path: db, create: false).bookCount(scope: nil) == before)
        let search = try sandbox.run(["search", "good book", "--db", db])
        #expect(!search.output.contains("Good Book"))
    }

    @Test func importReadsStandardInputAndDetectsItsFormat() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["import", "-", "--db", db], input: "{\"title\": \"Piped Qwzx Book\"}\n")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Added 1 book to scope main.\n")
        #expect(try sandbox.run(["search", "qwzx", "--db", db]).output.contains("\tPiped Qwzx Book\t"))
    }

    @Test func importRejectsBadJSONWithLineNumbers() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let file = try sandbox.write("books.jsonl", "{\"title\": \"ok\"}\n{\"title\": \"ok\",}\n{\"title\": 5}\n")
        let result = try sandbox.run(["import", file, "--db", sandbox.path("catalog.sqlite")])
        #expect(result.status == 1)
        let problems = result.errorLines.filter { !$0.hasPrefix("Reading books.jsonl (bytes): ") }
        #expect(problems.count == 3)
        #expect(problems[0].hasPrefix("\(file):2: bad JSON: "))
        #expect(problems[1] == "\(file):3: \"title\" must be a string, not a number")
    }

    @Test func importOfAMissingFileFailsWithoutCreatingACatalog() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let result = try sandbox.run(["import", sandbox.path("nope.csv"), "--db", db])
        #expect(result.status == 3)
        #expect(result.errorLines.count == 1)
        #expect(result.errors.contains("cannot read"))
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    // MARK: Sample

    @Test func sampleAddsTheSameBooksForTheSameSeed() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        var listings: [String] = []
        for name in ["one.sqlite", "two.sqlite"] {
            let db = sandbox.path(name)
            let result = try sandbox.run(["sample", "--count", "300", "--seed", "77", "--scope", "extra", "--db", db])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Added 300 sample books (seed 77) to scope extra.\n")
            let catalog = try SQLiteCatalog.open(path: db, create: false)
            #expect(try catalog.bookCount(scope: "extra") == 300)
            try catalog.addAccount(.init(name: "dora", role: .reader, scope: "extra"))
            listings.append(try sandbox.run(["search", "", "--limit", "300", "--account", "dora", "--db", db]).output)
        }
        #expect(listings[0] == listings[1])
        #expect(listings[0].split(separator: "\n").count == 300)
    }

    // MARK: Errors and help

    @Test func usageErrorsExitTwoWithOneLine() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        let cases: [([String], String)] = [
            (["search", "rome", "--frobnicate"], "unknown option --frobnicate"),
            (["search", "-x"], "unknown option -x"),
            (["search", "rome", "--limit"], "--limit N needs a value"),
            (["search", "rome", "--limit", "ten"], "--limit needs a whole number"),
            (["search", "rome", "--limit", "0"], "--limit needs a whole number"),
            (["search", "rome", "--offset", "-1"], "--offset needs a whole number"),
            (["search", "rome", "--json=yes"], "--json takes no value"),
            (["search"], "QUERY is missing"),
            (["import"], "FILE is missing"),
            (["import", "a.csv", "b.csv"], "expected one FILE"),
            (["sample"], "--count N is required"),
            (["sample", "--count", "many"], "--count needs a whole number"),
            (["sample", "--count", "5", "--seed", "-3"], "--seed needs a whole number"),
            (["sample", "--count", "5", "--seed", "x"], "--seed needs a whole number"),
            (["frobnicate"], "unknown command \"frobnicate\""),
            (["--account", "bob", "import", "x.csv"], "--account does not apply"),
            (["--nope"], "unknown option --nope"),
            (["help", "nope"], "unknown command \"nope\""),
        ]
        for (arguments, message) in cases {
            let result = try sandbox.run(arguments, environment: ["BOOKSHELF_DB": db])
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.errors)")
            #expect(result.errorLines.count == 1, "\(arguments): \(result.errors)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: db), "a usage error never creates a catalog")
    }

    @Test func catalogsThatCannotBeUsedAreOneClearLine() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let garbage = try sandbox.write("garbage.sqlite", String(repeating: "not a database\n", count: 100))
        let notADatabase = try sandbox.run(["search", "rome", "--db", garbage])
        #expect(notADatabase.status == 3)
        #expect(notADatabase.errorLines.count == 1)
        #expect(notADatabase.errors.contains("not a Bookshelf catalog"), "\(notADatabase.errors)")
        #expect(try String(contentsOfFile: garbage, encoding: .utf8).hasPrefix("not a database"), "left untouched")

        // A catalog from a newer Bookshelf: the schema version lives in the SQLite header's
        // user_version field (4 big-endian bytes at offset 60).
        let newer = try sandbox.starterCatalog("newer.sqlite")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: newer))
        try handle.seek(toOffset: 60)
        handle.write(Data([0, 0, 0x03, 0xE7]))
        try handle.close()
        let newerResult = try sandbox.run(["search", "rome", "--db", newer])
        #expect(newerResult.status == 3)
        #expect(newerResult.errorLines.count == 1)
        #expect(newerResult.errors.contains("newer Bookshelf"), "\(newerResult.errors)")

        let directory = sandbox.path("a-directory")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let isDirectory = try sandbox.run(["search", "rome", "--db", directory])
        #expect(isDirectory.status == 3, "\(isDirectory.errors)")
        #expect(isDirectory.errorLines.count == 1)
    }

    /// The program's help says what a newcomer meets: every interactive option in the usage
    /// line, which catalogs are created, and the sample's counts per scope, as a search for
    /// everything counts them.
    @Test func theProgramHelpTellsTheTruthAboutTheSample() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let help = try sandbox.run(["--help"]).output
        let usage = try #require(help.split(separator: "\n").first { $0.contains("bookshelf [--db PATH]") })
        for option in ["--account NAME", "--latency SPEC", "--seed N", "--trace FILE"] {
            #expect(usage.contains(option), "\(usage)")
        }
        let db = try sandbox.starterCatalog()
        var counted: [String] = []
        for account in ["alice", "carol"] {
            let all = try sandbox.run(["search", "", "--limit", "100000", "--account", account, "--db", db])
            let digits = String(all.outputLines.count)
            // Grouped by threes with commas, as the help writes numbers ("3,010").
            counted.append(
                digits.enumerated().map { index, digit in
                    index > 0 && (digits.count - index) % 3 == 0 ? ",\(digit)" : String(digit)
                }.joined())
        }
        let flat = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            flat.contains(
                "holds \(counted[0]) sample books and the accounts alice (editor) and bob (reader) in scope main, "
                    + "and \(counted[1]) books and carol (editor) in scope north"), "\(counted): \(flat)")
        #expect(flat.contains("never at a --db PATH or $BOOKSHELF_DB you named"), "\(flat)")
        #expect(!flat.contains("An SQLite catalog that does not exist yet is created"), "\(flat)")

        // The README says the same counts.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            readme.contains(
                "with \(counted[0]) sample books and the accounts `alice` (editor) and `bob` (reader) in scope "
                    + "`main`, and \(counted[1]) books and `carol` (editor) in scope `north`"))
        #expect(!readme.contains("about 3,500 sample books"))
        // The README's example of a symbol query names a book the sample holds.
        #expect(readme.contains("`🍅` finds \"Cooking with 🍅 Tomatoes\""))
        let tomato = try sandbox.run(["search", "🍅", "--db", db])
        #expect(tomato.outputLines.contains { $0.contains("\tCooking with 🍅 Tomatoes\t") }, "\(tomato.output)")
    }

    @Test func everyCommandHasHelp() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let program = try sandbox.run(["--help"])
        #expect(program.status == 0)
        for command in ["search", "import", "sample", "help"] {
            #expect(program.output.contains("\n  \(command) "), "the program help lists \(command)")
        }
        #expect(program.output.contains("BOOKSHELF_DB"))
        #expect(try sandbox.run(["-h"]).output == program.output)
        #expect(try sandbox.run(["help"]).output == program.output)

        let expectedOptions = [
            "search": ["--limit N", "--offset N", "--json", "--account NAME", "--db PATH", "-h, --help"],
            "import": ["--scope S", "--db PATH", "-h, --help"],
            "sample": ["--count N", "--seed S", "--scope S", "--db PATH", "-h, --help"],
        ]
        for (command, options) in expectedOptions {
            let help = try sandbox.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("Usage: bookshelf \(command)"), "\(help.output)")
            for option in options { #expect(help.output.contains(option), "\(command) --help mentions \(option)") }
            #expect(try sandbox.run([command, "-h"]).output == help.output)
            #expect(try sandbox.run(["help", command]).output == help.output)
            #expect(
                try sandbox.run([command, "--frobnicate", "--help"]).status == 2,
                "a bad option is an error even with --help")
        }
        #expect(try sandbox.run(["search", "--help", "--db", sandbox.path("c.sqlite")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("c.sqlite")), "help never opens a catalog")
    }

    @Test func versionAndTheInteractiveModeWithoutATerminal() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let version = try sandbox.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("bookshelf "))

        let bare = try sandbox.run([])
        #expect(bare.status == 3)
        #expect(bare.errors.contains("needs a terminal"))
    }

    /// libpq and what it brings (TLS, Kerberos, LDAP) are 4–5 MB of every process that loads
    /// them, which a search of an SQLite catalog never needs: they are loaded on first use of
    /// PostgreSQL only. The dynamic loader's own trace lists every file a process loads,
    /// dlopen included.
    @Test func aSQLiteSearchNeverLoadsThePostgreSQLClientLibrary() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = try sandbox.starterCatalog()
        let search = try sandbox.run(["search", "history", "--db", db], environment: ["LD_DEBUG": "files"])
        #expect(search.status == 0)
        #expect(search.errors.contains("libsqlite3"), "the loader's trace is there")
        #expect(
            !search.errors.contains("libpq"), "\(search.errors.split(separator: "\n").filter { $0.contains("libpq") })")
    }
}
