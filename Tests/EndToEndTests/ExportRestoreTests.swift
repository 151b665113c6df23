import BookCatalog
import BookshelfTestSupport
import CSQLite
import Foundation
import SQLiteCatalog
import TestTags
import Testing

/// `bookshelf export` of a catalog another program wrote: harmless on a terminal, exact
/// everywhere else, and honest about what a plain import would refuse.
@Suite(.tags(.process)) struct ExportRestoreTests {
    /// A catalog of "Plain" plus rows whose titles hold ESC sequences, written by SQL.
    func hostileCatalog(_ sandbox: BookshelfProcess) throws -> (db: String, hostileIDs: [Int]) {
        let db = sandbox.path("catalog.sqlite")
        do {
            let catalog = try SQLiteCatalog.open(path: db, create: true)
            try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
            _ = try catalog.insertBooks(
                [
                    NewBook(title: "Plain", author: "Writer"),
                    NewBook(title: "Osc", author: "Writer"),
                    NewBook(title: "Csi", author: "Writer"),
                ], scope: "main")
        }
        var handle: OpaquePointer?
        #expect(sqlite3_open(db, &handle) == SQLITE_OK)
        for sql in [
            "UPDATE books SET title = 'Osc' || char(27) || ']0;owned' || char(7) WHERE title = 'Osc'",
            "UPDATE books SET author = 'Csi' || char(27) || '[2J' WHERE title = 'Csi'",
        ] {
            #expect(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK, "\(String(cString: sqlite3_errmsg(handle)))")
        }
        var ids: [Int] = []
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "SELECT id FROM books WHERE title <> 'Plain' ORDER BY id", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW { ids.append(Int(sqlite3_column_int64(statement, 0))) }
        sqlite3_finalize(statement)
        sqlite3_close(handle)
        return (db, ids)
    }

    @Test func csvToAPipeIsByteExactAndNamesTheBooksImportWouldRefuse() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let (db, ids) = try hostileCatalog(sandbox)
        #expect(ids.count == 2)
        let result = try sandbox.run(["export", "--db", db])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("\"Osc\u{1B}]0;owned\u{7}\",\"Writer\""), "\(result.output.debugDescription)")
        #expect(result.output.contains("\"Csi\",\"Csi\u{1B}[2J\""), "\(result.output.debugDescription)")
        let named = ids.map(String.init).joined(separator: ", ")
        #expect(
            result.errors.contains("2 books hold text a plain import would refuse (ids \(named))"), "\(result.errors)")
    }

    @Test func csvToATerminalCarriesNoEscape() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let (db, _) = try hostileCatalog(sandbox)
        let binary = try #require(BookshelfProcess.binary)
        let typescript = sandbox.path("typescript")
        // script(1) gives the child a terminal for standard output; its log is the bytes the terminal got.
        let command = [binary.path, "export", "--db", db].map(shellQuoted).joined(separator: " ") + " 2>/dev/null"
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = sandbox.path("home")
        environment["BOOKSHELF_DB"] = nil
        let ending = try ChildProcess.runToEnd(
            ["/usr/bin/script", "-q", "-e", "-c", command, typescript], environment: environment)
        #expect(ending.status == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: typescript)))
        // The log opens with "Script started ..." and ends with "Script done ..."; the book lines are between.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"Plain\",\"Writer\""), "\(text.debugDescription)")
        #expect(text.contains("\"Osc"), "\(text.debugDescription)")
        #expect(!bytes.contains(0x1B), "an escape reached the terminal: \(text.debugDescription)")
        #expect(!bytes.contains(0x07), "a bell reached the terminal: \(text.debugDescription)")
    }

    @Test func everyExportRestoresByteForByte() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let (db, _) = try hostileCatalog(sandbox)
        var handle: OpaquePointer?
        #expect(sqlite3_open(db, &handle) == SQLITE_OK)
        // What the plain import rules refuse or would change, stored by another program.
        for (index, value) in [0x2028, 0x061C, 0x202E, 0x200B, 0x0000].enumerated() {
            let sql =
                "INSERT INTO books(scope, title, author, revision, title_key, title_terms, author_terms, change_seq) "
                + "VALUES ('main', ' Odd ' || char(\(value)) || ' \(index)', char(\(value)), 1, 'odd \(index)', 'odd', '', 1)"
            #expect(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK, "\(String(cString: sqlite3_errmsg(handle)))")
        }
        sqlite3_close(handle)
        for format in ["csv", "jsonl"] {
            let first = try sandbox.run(["export", "--format", format, "--db", db])
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.outputLines.count >= 7, "\(first.output)")
            let file = try sandbox.write("books.\(format)", first.output)
            let copy = sandbox.path("copy-\(format).sqlite")
            let restored = try sandbox.run(["import", file, "--restore", "--db", copy])
            #expect(restored.status == 0, "\(format): \(restored.errors)")
            let second = try sandbox.run(["export", "--format", format, "--db", copy])
            #expect(second.status == 0, "\(second.errors)")
            // The same lines, byte for byte. Their order is the search order, which follows the
            // title keys: the rows written by SQL above carry hand-made keys, the restored ones real keys.
            let lines = { (text: String) in
                text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
            }
            if format == "csv" {
                #expect(
                    lines(second.output).first
                        == Array("title,author,isbn,year,publisher,series,series_index,tags,notes".utf8))
            }
            #expect(
                lines(second.output).sorted { $0.lexicographicallyPrecedes($1) }
                    == lines(first.output).sorted { $0.lexicographicallyPrecedes($1) },
                "\(format): \(second.output.debugDescription)")
            #expect(second.output.utf8.last == UInt8(ascii: "\n"))
        }
    }

    /// The stored bytes of every book, as SQLite itself shows them, in one order.
    func storedBytes(_ db: String) -> [String] {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open(db, &handle) == SQLITE_OK else { return [] }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        sqlite3_prepare_v2(handle, "SELECT hex(title) || ' ' || hex(author) FROM books ORDER BY 1", -1, &statement, nil)
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { rows.append(String(cString: sqlite3_column_text(statement, 0))) }
        return rows
    }

    /// TEXT that is not valid UTF-8, as another program can store it through SQLite's C API:
    /// export keeps every byte, a plain import refuses those lines, and a restore gives back
    /// the same bytes, from CSV and from JSON Lines.
    @Test func textThatIsNotUTF8SurvivesExportAndRestore() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let db = sandbox.path("catalog.sqlite")
        do {
            let catalog = try SQLiteCatalog.open(path: db, create: true)
            try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
            // Valid text that looks like the damage or its escape: it must pass through unchanged.
            _ = try catalog.insertBooks(
                [
                    NewBook(title: "Plain", author: "Writer"),
                    NewBook(title: "Bad title", author: "Writer"),
                    NewBook(title: "Bad author", author: "Writer"),
                    NewBook(title: "Lookalike \\udcff \u{FFFD}", author: "\\xFF"),
                ], scope: "main")
        }
        var handle: OpaquePointer?
        #expect(sqlite3_open(db, &handle) == SQLITE_OK)
        // A lone FF, a valid é, a cut-off sequence, an encoded surrogate, an overlong slash, a
        // code point past U+10FFFF, a stray continuation byte and a NUL; the author ends cut off.
        for sql in [
            "UPDATE books SET title = 'Bad title ' || CAST(X'41FF42C3A9E282EDA080C0AFF490808080004A' AS TEXT) WHERE title = 'Bad title'",
            "UPDATE books SET author = CAST(X'E6A0BCFFFE41F09F98' AS TEXT) WHERE title = 'Bad author'",
        ] {
            #expect(sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK, "\(String(cString: sqlite3_errmsg(handle)))")
        }
        var ids: [Int] = []
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, "SELECT id FROM books WHERE title LIKE 'Bad %' ORDER BY id", -1, &statement, nil)
        while sqlite3_step(statement) == SQLITE_ROW { ids.append(Int(sqlite3_column_int64(statement, 0))) }
        sqlite3_finalize(statement)
        sqlite3_close(handle)
        #expect(ids.count == 2)
        let original = storedBytes(db)
        #expect(original.count == 4)
        #expect(
            original.contains { $0.hasPrefix("426164207469746C6520" + "41FF42C3A9E282EDA080C0AFF490808080004A ") },
            "\(original)")

        for format in ["csv", "jsonl"] {
            let export = try sandbox.run(["export", "--format", format, "--db", db])
            #expect(export.status == 0, "\(format): \(export.errors)")
            let named = ids.map(String.init).joined(separator: ", ")
            #expect(
                export.errors.contains("2 books hold text a plain import would refuse (ids \(named))"),
                "\(format): \(export.errors)")
            if format == "jsonl" {
                // JSON is UTF-8 text: the bytes travel as escapes, not raw.
                #expect(
                    String(validating: export.outputBytes, as: UTF8.self) != nil, "\(export.output.debugDescription)")
                // Each byte outside a valid sequence is one \udcXX, as Python's surrogateescape writes it.
                #expect(
                    export.output.contains(
                        #"{"title":"Bad title A\udcffBé\udce2\udc82\udced\udca0\udc80\udcc0\udcaf\udcf4\udc90\udc80\udc80\udc80\u0000J","author":"Writer"}"#
                    ),
                    "\(export.output.debugDescription)")
                #expect(
                    export.output.contains(#"{"title":"Bad author","author":"格\udcff\udcfeA\udcf0\udc9f\udc98"}"#),
                    "\(export.output.debugDescription)")
            }
            let file = sandbox.path("books.\(format)")
            try Data(export.outputBytes).write(to: URL(fileURLWithPath: file))

            // The lines that hold the two damaged books, by their content.
            let lines = export.outputBytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            let damaged = lines.indices.filter { index in
                let text = String(decoding: lines[index], as: UTF8.self)
                return text.contains("Bad title") || text.contains("Bad author")
            }.map { $0 + 1 }
            #expect(damaged.count == 2, "\(format): \(export.output.debugDescription)")
            let plain = try sandbox.run(["import", file, "--db", sandbox.path("plain-\(format).sqlite")])
            #expect(plain.status == 1, "\(format): \(plain.errors)")
            for line in damaged {
                #expect(
                    plain.errors.contains("books.\(format):\(line): ") && plain.errors.contains("not valid UTF-8"),
                    "\(format): \(plain.errors)")
            }
            #expect(plain.errors.contains("nothing imported: 2 bad lines"), "\(format): \(plain.errors)")

            let copy = sandbox.path("copy-\(format).sqlite")
            let restored = try sandbox.run(["import", file, "--restore", "--db", copy])
            #expect(restored.status == 0, "\(format): \(restored.errors)")
            #expect(storedBytes(copy) == original, "\(format)")
        }
    }

    /// Formula cells (OWASP "CSV Injection") through the real binary: neutralised in CSV,
    /// as they are with --raw-cells and in JSON Lines, and exactly back from `import --restore`.
    @Test func formulaCellsAreNeutralisedAndRestoreExactly() throws {
        let sandbox = try BookshelfProcess()
        defer { sandbox.remove() }
        let source = try sandbox.write(
            "formulas.jsonl",
            """
            {"title": "=HYPERLINK(\\"http://example.com\\")", "author": "+cmd|' /C calc'!A0", "notes": "-2+3"}
            {"title": "@SUM(1)", "author": "'=looks neutralised", "year": -430, "tags": ["=x"]}

            """)
        let db = sandbox.path("catalog.sqlite")
        #expect(try sandbox.run(["import", source, "--db", db]).status == 0)
        let csv = try sandbox.run(["export", "--db", db])
        #expect(csv.status == 0, "\(csv.errors)")
        #expect(
            csv.outputLines.sorted() == [
                #""'=HYPERLINK(""http://example.com"")","'+cmd|' /C calc'!A0","","","","","","","'-2+3""#,
                #""'@SUM(1)","''=looks neutralised","","-430","","","","'=x","""#,
                "title,author,isbn,year,publisher,series,series_index,tags,notes",
            ])
        let raw = try sandbox.run(["export", "--raw-cells", "--db", db])
        #expect(
            raw.outputLines.sorted() == [
                #""=HYPERLINK(""http://example.com"")","+cmd|' /C calc'!A0","","","","","","","-2+3""#,
                #""@SUM(1)","'=looks neutralised","","-430","","","","=x","""#,
                "title,author,isbn,year,publisher,series,series_index,tags,notes",
            ])
        let json = try sandbox.run(["export", "--format", "jsonl", "--db", db])
        #expect(json.output.contains(#"{"title":"@SUM(1)","author":"'=looks neutralised""#), "\(json.output)")
        let both = try sandbox.run(["export", "--format", "jsonl", "--raw-cells", "--db", db])
        #expect(both.status == 2 && both.errors.contains("--raw-cells"), "\(both.errors)")
        for restoring in [true, false] {
            let file = try sandbox.write("export-\(restoring).csv", csv.output)
            let copy = sandbox.path("copy-\(restoring).sqlite")
            let imported = try sandbox.run(["import", file, "--db", copy] + (restoring ? ["--restore"] : []))
            #expect(imported.status == 0, "\(imported.errors)")
            let again = try sandbox.run(["export", "--db", copy])
            #expect(again.outputBytes == csv.outputBytes, "restore: \(restoring): \(again.output)")
        }
    }
}
