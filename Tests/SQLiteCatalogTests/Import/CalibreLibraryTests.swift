import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// A Calibre library made here with the tables the import reads, as Calibre declares them in
/// substance, then damaged or made hostile by the SQL a test adds (issue 55, items 5, 8, 10).
struct ScratchCalibreLibrary {
    let folder: String
    var file: String { folder + "/metadata.db" }

    static let tables = """
        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pubdate TEXT, series_index REAL, uuid TEXT AS ('uuid-' || id));
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE books_authors_link (id INTEGER PRIMARY KEY, book INTEGER, author INTEGER);
        CREATE TABLE identifiers (id INTEGER PRIMARY KEY, book INTEGER, type TEXT, val TEXT);
        CREATE TABLE publishers (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE books_publishers_link (id INTEGER PRIMARY KEY, book INTEGER, publisher INTEGER);
        CREATE TABLE series (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE books_series_link (id INTEGER PRIMARY KEY, book INTEGER, series INTEGER);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE books_tags_link (id INTEGER PRIMARY KEY, book INTEGER, tag INTEGER);
        CREATE TABLE comments (id INTEGER PRIMARY KEY, book INTEGER, text TEXT);
        CREATE TABLE ratings (id INTEGER PRIMARY KEY, rating INTEGER);
        CREATE TABLE books_ratings_link (id INTEGER PRIMARY KEY, book INTEGER, rating INTEGER);
        CREATE TABLE books_languages_link (id INTEGER PRIMARY KEY, book INTEGER, lang_code INTEGER);
        """

    /// A library of `tables` (Calibre's, unless a test replaces them) and then `sql`.
    init(in directory: TemporaryDirectory, tables: String = Self.tables, _ sql: String) throws {
        folder = directory.path("Calibre Library")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.execute(tables + "\n" + sql, on: folder + "/metadata.db")
    }

    static func execute(_ sql: String, on file: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(file, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK
        else { throw ScratchFailure(message: String(cString: sqlite3_errmsg(handle))) }
    }

    struct ScratchFailure: Error { let message: String }
}

@Suite struct CalibreLibraryTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private func failure(reading folder: String, budget: Int? = nil) -> String? {
        do {
            _ = try CalibreLibrary.read(path: folder, workBudget: budget.map { CalibreLibrary.WorkBudget($0) })
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Item 8: duplicates in a damaged library

    @Test func twoBooksSharingOneIdAreRefusedWithTheReason() throws {
        // A books table without its primary key: what a damaged index lets through.
        let books = Self.tablesWithBooks(
            "CREATE TABLE books (id INTEGER, title TEXT, pubdate TEXT, series_index REAL, uuid TEXT AS ('uuid-' || id));"
        )
        let library = try ScratchCalibreLibrary(
            in: directory, tables: books,
            """
            INSERT INTO books VALUES (1, 'Dune', '1965-08-01', 1), (1, 'Dune Again', '1999-01-01', 1),
                                     (2, 'Emma', '1815-12-23', 1);
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        #expect(result.problems.map(\.book) == [1], "\(result.problems)")
        #expect(result.problems.first?.reason.contains("2 books share this id") == true, "\(result.problems)")
        // Neither of the two is taken for the other: only Emma is a book to store.
        #expect(result.books.map(\.title) == ["Emma"])
    }

    /// Issue 60: each book remembers Calibre's uuid for it; one without a usable uuid is still read.
    @Test func eachBookCarriesItsCalibreUUIDAsItsOrigin() throws {
        let books = Self.tablesWithBooks(
            "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, pubdate TEXT, series_index REAL, uuid TEXT);")
        let library = try ScratchCalibreLibrary(
            in: directory, tables: books,
            """
            INSERT INTO books VALUES (1, 'Dune', NULL, 1, 'a96f3e14-a28a-4333-be79-1d8979275122'),
                                     (2, 'Emma', NULL, 1, NULL), (3, 'Kim', NULL, 1, '   ');
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        #expect(result.books.map(\.title) == ["Dune", "Emma", "Kim"])
        #expect(
            result.sourced.map(\.origin) == [
                BookOrigin(source: .calibre, id: "a96f3e14-a28a-4333-be79-1d8979275122"), nil, nil,
            ])
    }

    @Test func aRepeatedAuthorOrTagLinkCountsOnce() throws {
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            INSERT INTO books VALUES (1, 'Dune', '1965-08-01', 1);
            INSERT INTO authors VALUES (1, 'Frank Herbert'), (2, 'Brian Herbert');
            INSERT INTO books_authors_link (book, author) VALUES (1, 1), (1, 1), (1, 2), (1, 1), (1, 1), (1, 1);
            INSERT INTO tags VALUES (1, 'classic');
            INSERT INTO books_tags_link (book, tag) VALUES (1, 1), (1, 1);
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        #expect(result.books.map(\.author) == ["Frank Herbert & Brian Herbert"])
        #expect(result.books.map(\.details.tags) == [["classic"]])
    }

    // MARK: Item 10: text that is not UTF-8

    @Test func textThatIsNotUTF8IsLeftOutAndCountedOrTheBookRefused() throws {
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            INSERT INTO books VALUES (1, 'Dune', '1965-08-01', 1), (2, CAST(X'4475FF6E65' AS TEXT), NULL, 1),
                                     (3, 'Emma', NULL, 1);
            INSERT INTO authors VALUES (1, 'Frank Herbert'), (2, CAST(X'4A616EE9' AS TEXT));
            INSERT INTO books_authors_link (book, author) VALUES (1, 1), (3, 2);
            INSERT INTO publishers VALUES (1, CAST(X'436869C0746F6E' AS TEXT));
            INSERT INTO books_publishers_link (book, publisher) VALUES (1, 1);
            INSERT INTO tags VALUES (1, 'classic'), (2, CAST(X'FE' AS TEXT));
            INSERT INTO books_tags_link (book, tag) VALUES (1, 1), (1, 2);
            INSERT INTO comments (book, text) VALUES (1, CAST(X'3C703E4F6B2E3C2F703EC3' AS TEXT));
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        // A title or an author that is not text: the book cannot be stored, and says why.
        #expect(
            result.problems
                == [
                    .init(book: 2, reason: "the title is not valid UTF-8 text"),
                    .init(book: 3, reason: "the author is not valid UTF-8 text"),
                ])
        // Any other value is left out and counted, as a value that breaks its rule is.
        let dune = try #require(result.books.first)
        #expect(dune.title == "Dune" && dune.author == "Frank Herbert")
        #expect(dune.details.publisher == "" && dune.details.notes == "")
        #expect(dune.details.tags == ["classic"])
        let skipped = Dictionary(uniqueKeysWithValues: result.skipped.map { ($0.reason, $0.count) })
        #expect(skipped["Publisher values that are not valid UTF-8 text"] == 1, "\(result.skipped)")
        #expect(skipped["Tags values that are not valid UTF-8 text"] == 1, "\(result.skipped)")
        #expect(skipped["Notes values that are not valid UTF-8 text"] == 1, "\(result.skipped)")
    }

    // MARK: Item 9: what follows a script or a style is kept

    @Test func aScriptOrAStyleInTheCommentsLosesOnlyItsBody() throws {
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            INSERT INTO books VALUES (1, 'Dune', NULL, 1), (2, 'Emma', NULL, 1);
            INSERT INTO comments (book, text) VALUES
                (1, '<p>First.</p><script>x</script><p>Second.</p>'),
                (2, '<style>p { color: red }</style><p>Kept.</p><SCRIPT type="x">if (a < b) {}</SCRIPT >and this');
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        #expect(result.books.map(\.details.notes) == ["First.\nSecond.", "Kept.\nand this"])
    }

    // MARK: Item 5: only tables are read, within bounds

    @Test(arguments: ["books", "authors", "identifiers", "comments", "books_languages_link"])
    func aViewInPlaceOfAnyTableReadIsRefusedByName(table: String) throws {
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            INSERT INTO books VALUES (1, 'Dune', '1965-08-01', 1);
            ALTER TABLE \(table) RENAME TO old_\(table);
            CREATE VIEW \(table) AS SELECT * FROM old_\(table);
            """)
        let message = try #require(failure(reading: library.folder))
        #expect(message.contains("its \(table) is a view, not a table"), "\(message)")
    }

    @Test func aVirtualTableInPlaceOfATableIsRefusedByName() throws {
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            DROP TABLE tags;
            CREATE VIRTUAL TABLE tags USING fts4(name);
            """)
        let message = try #require(failure(reading: library.folder))
        #expect(message.contains("its tags is a virtual table, not a table"), "\(message)")
    }

    @Test func aMissingTableIsNamed() throws {
        let library = try ScratchCalibreLibrary(in: directory, "DROP TABLE books_series_link;")
        let message = try #require(failure(reading: library.folder))
        #expect(message.contains("it has no books_series_link table"), "\(message)")
    }

    /// A value one byte longer than the limit: stored, or made when read by a generated column
    /// (part of a table, so only the length limit can stop it).
    @Test(arguments: [
        "CREATE TABLE comments (id INTEGER PRIMARY KEY, book INTEGER, text TEXT);",
        "CREATE TABLE comments (id INTEGER PRIMARY KEY, book INTEGER, text AS (zeroblob(\(CalibreLibrary.maximumValueBytes + 1))));",
    ])
    func aValueLongerThanAFieldMayHoldStopsTheReadAndNamesItsTable(comments: String) throws {
        let library = try ScratchCalibreLibrary(
            in: directory, tables: Self.tablesWithComments(comments),
            """
            INSERT INTO books VALUES (1, 'Dune', NULL, 1);
            INSERT INTO comments (book) VALUES (1);
            """
                + (comments.contains(" AS (")
                    ? "" : "UPDATE comments SET text = printf('%.*c', \(CalibreLibrary.maximumValueBytes + 1), 'x');"))
        let message = try #require(failure(reading: library.folder))
        #expect(message.contains("its comments table holds a value longer than"), "\(message)")
    }

    @Test func workBeyondTheBudgetStopsTheReadAndNamesTheTable() throws {
        let rows = (1...2_000).map { "(\($0), 'Book \($0)', NULL, 1)" }.joined(separator: ", ")
        let library = try ScratchCalibreLibrary(in: directory, "INSERT INTO books VALUES \(rows);")
        #expect(throws: Never.self) { try CalibreLibrary.read(path: library.folder) }
        let message = try #require(failure(reading: library.folder, budget: 5_000))
        #expect(message.contains("reading its books table took more work"), "\(message)")
    }

    /// A few thousand rows whose join returns sixteen million: authors without their key, all
    /// with one id. The budget the file's size allows stops it.
    @Test func aJoinThatMultipliesRowsIsStoppedByTheBudgetOfTheFilesSize() throws {
        let authors = Self.replacing("CREATE TABLE authors (", with: "CREATE TABLE authors (id INTEGER, name TEXT);")
        let library = try ScratchCalibreLibrary(
            in: directory, tables: authors,
            """
            INSERT INTO books VALUES (1, 'Dune', NULL, 1);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
            INSERT INTO authors SELECT 1, 'Frank Herbert' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
            INSERT INTO books_authors_link (book, author) SELECT 1, 1 FROM n;
            """)
        // The same file made to look ten gigabytes long: a hole, not rows, allows no more work.
        for size in [nil, 10 << 30] as [Int?] {
            if let size { #expect(truncate(library.file, off_t(size)) == 0) }
            let message = try #require(failure(reading: library.folder))
            #expect(
                message.contains(
                    "reading its books_authors_link and authors tables took more work than a library of its size needs"),
                "\(message)")
        }
    }

    /// A journal beside the file (Calibre stopped in the middle of a save): rolling it back
    /// needs a write, which this reader never does, so it says what to do instead.
    @Test func aSaveCutOffIsLeftToCalibreToFinish() throws {
        let library = try ScratchCalibreLibrary(in: directory, "INSERT INTO books VALUES (1, 'Dune', NULL, 1);")
        // A rollback journal's magic number, then bytes: SQLite takes it for a hot journal.
        let journal = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7] + [UInt8](repeating: 0xAB, count: 2_040)
        #expect(FileManager.default.createFile(atPath: library.file + "-journal", contents: Data(journal)))
        let before = try Data(contentsOf: URL(fileURLWithPath: library.file))
        let message = try #require(failure(reading: library.folder))
        #expect(message.contains("a save to it was cut off"), "\(message)")
        #expect(message.contains("open the library in Calibre once"), "\(message)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library.file)) == before)
    }

    /// An identifier's kind is any text: thousands of kinds, or a kind of a megabyte, make a
    /// summary of a few short lines, counted all the same.
    @Test func identifiersOfThousandsOfKindsMakeAFewShortLines() throws {
        let kinds = (1...2_000).map { "(1, 'kind \($0)', 'x')" }.joined(separator: ", ")
        let library = try ScratchCalibreLibrary(
            in: directory,
            """
            INSERT INTO books VALUES (1, 'Dune', NULL, 1), (2, 'Emma', NULL, 1);
            INSERT INTO identifiers (book, type, val) VALUES \(kinds);
            INSERT INTO identifiers (book, type, val) VALUES (2, 'kind 1', 'y'), (2, printf('%.*c', 500000, 'k'), 'z');
            """)
        let result = try CalibreLibrary.read(path: library.folder)
        let identifierLines = result.skipped.filter { $0.reason.hasPrefix("identifiers of") }
        #expect(identifierLines.count <= 11, "\(identifierLines.count) lines")
        #expect(identifierLines.allSatisfy { $0.reason.count < 100 })
        #expect(identifierLines.map(\.count).reduce(0, +) == 2_002)
        #expect(identifierLines.first?.reason == "identifiers of kind \"kind 1\" (only ISBNs are kept)")
        #expect(identifierLines.first?.count == 2)
    }

    /// A library in WAL mode with its log, read from a private copy: a file made sparse (four
    /// gigabytes long, a few pages on disk) is copied as it is, holes and all, and read whole.
    @Test func aSparseLibraryWithItsLogIsReadFromItsCopy() throws {
        let library = try ScratchCalibreLibrary(
            in: directory, "PRAGMA journal_mode = WAL; INSERT INTO books VALUES (1, 'Dune', NULL, 1);")
        var calibre: OpaquePointer?
        defer { sqlite3_close_v2(calibre) }
        #expect(sqlite3_open_v2(library.file, &calibre, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        #expect(sqlite3_exec(calibre, "PRAGMA wal_autocheckpoint = 0", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_exec(calibre, "INSERT INTO books VALUES (2, 'Emma', NULL, 1)", nil, nil, nil) == SQLITE_OK)
        #expect(truncate(library.file, 4 << 30) == 0)
        let result = try CalibreLibrary.read(path: library.folder)
        #expect(result.books.map(\.title) == ["Dune", "Emma"])
    }

    /// Calibre's tables with `books` declared as given.
    private static func tablesWithBooks(_ declaration: String) -> String {
        replacing("CREATE TABLE books (", with: declaration)
    }

    private static func tablesWithComments(_ declaration: String) -> String {
        replacing("CREATE TABLE comments (", with: declaration)
    }

    private static func replacing(_ start: String, with declaration: String) -> String {
        ScratchCalibreLibrary.tables.split(separator: "\n").map { line in
            line.hasPrefix(start) ? declaration : String(line)
        }.joined(separator: "\n")
    }
}
