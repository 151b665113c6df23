import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
import Testing

/// A copy of the committed library that calibre 6.13's `calibredb` made (`Tests/Fixtures`), and
/// plain SQL to look at what a save left in it.
struct CalibreLibraryCopy {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/calibre-library")

    let folder: String
    var file: String { folder + "/metadata.db" }

    init(in directory: TemporaryDirectory) throws {
        folder = directory.path("Calibre Library")
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: folder)
    }

    /// The first column of each row of `sql`, as text.
    func column(_ sql: String) throws -> [String] {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(file, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw ScratchCalibreLibrary.ScratchFailure(message: "cannot open \(file)")
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw ScratchCalibreLibrary.ScratchFailure(message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
        }
        return values
    }

    /// Runs `sql` as calibre would, with its functions (its triggers call them), waiting for a
    /// lock no longer than a reader's short read takes.
    func execute(_ sql: String) throws {
        let connection = try Connection(path: file, flags: SQLITE_OPEN_READWRITE)
        connection.setBusyTimeout(milliseconds: 1_000)
        try CalibreFunctions.register(on: connection)
        try connection.execute(sql)
    }
}

@Suite struct CalibreLibraryStoreTests {
    let directory: TemporaryDirectory
    let library: CalibreLibraryCopy
    init() throws {
        directory = try TemporaryDirectory()
        library = try CalibreLibraryCopy(in: directory)
    }

    /// The test's own cache folder: the library's search index goes there, not the user's.
    var cache: [String: String] { ["XDG_CACHE_HOME": directory.path("cache")] }

    /// The fixture's `last_modified` of book 1, in microseconds, worked out by hand.
    static let fellowshipRevision = 1_796_487_468_907_870

    /// A lock of this test's own, never calibre's: the user's calibre (and the suites that run
    /// calibredb) must not find it held.
    let lockName = "bookshelf-test-\(UUID().uuidString)"

    /// A remote, its index perhaps still being built: the build reads the library in short
    /// reads (`CalibreIndexBuildTests`), so a write as calibre does not wait behind it.
    private func remote() throws -> CalibreBookRemote {
        try CalibreLibraryStore.open(path: library.folder, environment: cache).remote(lockName: lockName)
    }

    @Test func aBookReadsAsTheImportMapsItWithItsLastModifiedAsTheRevision() async throws {
        let store = try CalibreLibraryStore.open(path: library.folder, environment: cache)
        #expect(store.libraryID == (try library.column("SELECT uuid FROM library_id")).first)
        #expect(store.permanentlyReadOnly == nil)
        let book = try await store.remote(lockName: lockName).load(id: 1)
        #expect(book.title == "The Fellowship of the Ring")
        #expect(book.author == "J. R. R. Tolkien")
        #expect(book.revision == Self.fellowshipRevision)
        #expect(book.details.isbn == "9780261103573")
        #expect(book.details.year == 1954)
        #expect(book.details.publisher == "George Allen & Unwin")
        #expect(book.details.series == "The Lord of the Rings")
        #expect(book.details.tags == ["classic", "fantasy"])
        #expect(
            book.details.notes
                == "First of three volumes.\nBought in Oxford & read twice.\nThe map is on the endpapers.")
    }

    /// calibre takes what Bookshelf's rules refuse: a proceedings volume with twelve authors
    /// (their names joined are longer than an author may be here) and a title with a control
    /// character. Such books are left out of search here; `check` must name each, with why, and
    /// every other book stays shown.
    @Test func booksWhoseTitleOrAuthorsBreakBookshelfsRulesAreNamedNotLostSilently() async throws {
        let names = (1...12).map { "Author Number\($0) Longname" }
        try library.execute(
            names.map { "INSERT INTO authors(name, sort) VALUES ('\($0)', '\($0)');" }.joined()
                + "DELETE FROM books_authors_link WHERE book = 8;"
                + "INSERT INTO books_authors_link(book, author) SELECT 8, id FROM authors WHERE name LIKE 'Author Number%';"
                + "UPDATE books SET title = 'Evil ' || char(27) || '[31mRed' WHERE id = 6;")
        #expect(names.joined(separator: " & ").count > BookValidation.maximumAuthorLength)
        let store = try CalibreLibraryStore.open(path: library.folder, environment: cache)
        let notShown = try store.booksNotShown()
        #expect(notShown.map(\.id) == [6, 8])
        #expect(notShown.first?.reason.hasPrefix("A title") == true, "\(notShown)")
        #expect(notShown.last?.reason.hasPrefix("An author") == true, "\(notShown)")
        let shown = try await store.remote(lockName: lockName).search(SearchQuery(text: "", limit: 20))
        #expect(Set(shown.records.map(\.id)) == [1, 2, 3, 4, 5, 7])
    }

    @Test func aSaveWritesWhatCalibreWritesAndMovesTheRevision() async throws {
        let remote = try remote()
        let before = try await remote.load(id: 1)
        let saved = try await remote.save(
            SaveRequest(
                id: 1, title: "The Two Towers", author: "J. R. R. Tolkien & Christopher Tolkien",
                details: BookDetails(
                    isbn: "9780261102361", year: 1954, publisher: "George Allen & Unwin",
                    series: "The Lord of the Rings", seriesIndex: SeriesIndex(thousandths: 2000),
                    tags: ["fantasy", "Classic", "epic"], notes: before.details.notes),
                expectedRevision: before.revision))
        #expect(saved.title == "The Two Towers")
        #expect(saved.author == "J. R. R. Tolkien & Christopher Tolkien")
        #expect(saved.details.tags == ["Classic", "epic", "fantasy"])
        #expect(saved.revision > before.revision)
        // The revision is the stored last_modified, in calibre's own format.
        #expect(
            try library.column("SELECT last_modified FROM books WHERE id = 1") == [
                CalibreTimestamp.text(saved.revision)
            ])
        #expect(try library.column("SELECT sort FROM books WHERE id = 1") == ["Two Towers, The"])
        #expect(
            try library.column("SELECT author_sort FROM books WHERE id = 1") == [
                "Tolkien, J. R. R. & Tolkien, Christopher"
            ])
        #expect(
            try library.column("SELECT sort FROM authors WHERE name = 'Christopher Tolkien'") == [
                "Tolkien, Christopher"
            ])
        #expect(try library.column("SELECT val FROM identifiers WHERE book = 1 AND type = 'isbn'") == ["9780261102361"])
        #expect(try library.column("SELECT series_index FROM books WHERE id = 1") == ["2.0"])
        // An existing tag in another case is that tag, renamed as calibre renames it.
        #expect(try library.column("SELECT name FROM tags WHERE lower(name) = 'classic'") == ["Classic"])
        #expect(try library.column("SELECT count(*) FROM books_tags_link WHERE book = 1") == ["3"])
        // Notes not edited: the comments' HTML is kept byte for byte.
        #expect(
            try library.column("SELECT text FROM comments WHERE book = 1")
                == [
                    "<p>First of three volumes.</p><p>Bought in Oxford &amp; read twice.<br>The map is on the endpapers.</p>"
                ])
        // Marked for calibre to rewrite the book's metadata.opf.
        #expect(try library.column("SELECT book FROM metadata_dirtied WHERE book = 1") == ["1"])
        // The book's other identifier is kept as it was.
        #expect(
            try library.column("SELECT type || ':' || val FROM identifiers WHERE book = 1 ORDER BY type") == [
                "goodreads:34", "isbn:9780261102361",
            ])
        #expect(try await remote.load(id: 1) == saved)
    }

    @Test func aNameNoBookUsesAnyMoreIsDeletedAndOneStillUsedIsKept() async throws {
        let remote = try remote()
        let meditations = try await remote.load(id: 7)
        _ = try await remote.save(
            SaveRequest(
                id: 7, title: meditations.title, author: "Marcus Aurelius",
                details: BookDetails(
                    isbn: meditations.details.isbn, year: nil, publisher: "", series: "", seriesIndex: nil,
                    tags: ["fantasy"], notes: "Written for himself.\n\nNever meant to be read <by us>."),
                expectedRevision: meditations.revision))
        // Book 7 alone had "philosophy", "stoicism" and "Penguin Classics"; others have "fantasy".
        #expect(try library.column("SELECT count(*) FROM tags WHERE name IN ('philosophy', 'stoicism')") == ["0"])
        #expect(try library.column("SELECT count(*) FROM publishers WHERE name = 'Penguin Classics'") == ["0"])
        #expect(try library.column("SELECT count(*) FROM tags WHERE name = 'fantasy'") == ["1"])
        let notes = try library.column("SELECT text FROM comments WHERE book = 7")
        #expect(notes == ["<p>Written for himself.<br><br>Never meant to be read &lt;by us&gt;.</p>"])
        let reread = try await remote.load(id: 7)
        #expect(reread.details.notes == "Written for himself.\n\nNever meant to be read <by us>.")
        #expect(reread.details.tags == ["fantasy"])
    }

    @Test func aChangeMadeInCalibreSinceTheReadIsAConflictAndNothingIsWritten() async throws {
        let remote = try remote()
        let base = try await remote.load(id: 2)
        // calibre saves the book: its last_modified moves.
        try library.execute(
            "UPDATE books SET title = 'Good Omens (calibre)', last_modified = '2026-12-06 14:02:00.000001+00:00' WHERE id = 2"
        )
        await #expect(throws: BookFailure.conflict(expected: base.revision, actual: 1_796_565_720_000_001)) {
            try await remote.save(SaveRequest(id: 2, title: "Good Omens (ours)", expectedRevision: base.revision))
        }
        #expect(try library.column("SELECT title FROM books WHERE id = 2") == ["Good Omens (calibre)"])
        #expect(try library.column("SELECT count(*) FROM metadata_dirtied WHERE book = 2") == ["0"])
    }

    @Test func aSaveWhileCalibreHoldsItsLockIsRefusedAndNothingIsWritten() async throws {
        let remote = try remote()
        let base = try await remote.load(id: 2)
        var calibre: CalibreInstanceLock.Held?
        if case let .taken(held) = CalibreInstanceLock.take(name: lockName) { calibre = held }
        #expect(calibre != nil, "the test's lock could not be taken")
        #expect(CalibreInstanceLock.isHeld(name: lockName) == true)
        await #expect(throws: BookFailure.storeUnavailable(CalibreLibraryStore.calibreIsRunning)) {
            try await remote.save(SaveRequest(id: 2, title: "Good Omens (ours)", expectedRevision: base.revision))
        }
        #expect(try library.column("SELECT title FROM books WHERE id = 2") == ["Good Omens"])
        // calibre closes: the same save goes through, and leaves the lock free.
        calibre = nil
        #expect(CalibreInstanceLock.isHeld(name: lockName) == false)
        let saved = try await remote.save(
            SaveRequest(id: 2, title: "Good Omens (ours)", expectedRevision: base.revision))
        #expect(saved.title == "Good Omens (ours)")
        #expect(CalibreInstanceLock.isHeld(name: lockName) == false)
    }

    @Test func aYearChangeKeepsThePubdatesMonthAndDay() async throws {
        let remote = try remote()
        let base = try await remote.load(id: 4)
        _ = try await remote.save(
            SaveRequest(
                id: 4, title: base.title, author: nil,
                details: BookDetails(
                    isbn: base.details.isbn, year: 1968, publisher: base.details.publisher, series: "",
                    seriesIndex: nil, tags: base.details.tags, notes: base.details.notes),
                expectedRevision: base.revision))
        #expect(try library.column("SELECT pubdate FROM books WHERE id = 4") == ["1968-05-30 00:00:00+00:00"])
    }

    @Test func searchFindsBooksAsEveryStoreDoes() async throws {
        let remote = try remote()
        let page = try await remote.search(SearchQuery(text: "pratchett"))
        // Found by the author alone: in title order, "Good Omens", "Guards! Guards!", "The Sea…".
        #expect(page.records.map(\.id) == [2, 5, 6])
        #expect(page.totalCount == .exact(3))
        // A change calibre commits (stamping the book's last_modified, as each of its writes
        // does) is seen by the next search and the next check.
        try library.execute(
            "UPDATE books SET title = 'Pratchett Omnibus', last_modified = '2026-12-06 10:00:00.000001+00:00' WHERE id = 7"
        )
        #expect(try await remote.checkForChanges() != nil)
        #expect(try await remote.search(SearchQuery(text: "pratchett")).records.first?.id == 7)
    }

    @Test func aLibraryOfANewerCalibreOpensReadOnlyWithTheReason() async throws {
        try library.execute("PRAGMA user_version = 27")
        let store = try CalibreLibraryStore.open(path: library.folder, environment: cache)
        let reason = try #require(store.permanentlyReadOnly)
        #expect(reason.contains("newer than Bookshelf knows (schema version 27"))
        #expect(store.account.role == .reader)
        let remote = try store.remote(lockName: lockName)
        let book = try await remote.load(id: 1)
        await #expect(throws: BookFailure.storeUnavailable(reason)) {
            try await remote.save(SaveRequest(id: 1, title: "Changed", expectedRevision: book.revision))
        }
        #expect(try library.column("SELECT title FROM books WHERE id = 1") == ["The Fellowship of the Ring"])
    }

    @Test func calibre9sSchemaWithoutBooksISBNIsWritten() async throws {
        // calibre 9's upgrade (schema_upgrades.py, version 26): the view that names them goes first.
        try library.execute(
            """
            DROP VIEW meta; ALTER TABLE books DROP COLUMN isbn; ALTER TABLE books DROP COLUMN lccn;
            ALTER TABLE books DROP COLUMN flags; PRAGMA user_version = 26
            """)
        let remote = try remote()
        let base = try await remote.load(id: 3)
        var details = base.details
        details = BookDetails(
            isbn: "9780261103573", year: details.year, publisher: details.publisher, series: details.series,
            seriesIndex: details.seriesIndex, tags: details.tags, notes: details.notes)
        let saved = try await remote.save(
            SaveRequest(id: 3, title: base.title, details: details, expectedRevision: base.revision))
        #expect(saved.details.isbn == "9780261103573")
        #expect(try library.column("SELECT val FROM identifiers WHERE book = 3") == ["9780261103573"])
    }

    // MARK: A hostile library, as an import meets one (issue 55), worked on in place

    @Test func aViewWhereCalibreMakesATableIsRefusedAtOpen() throws {
        try library.execute(
            """
            DROP TABLE comments;
            CREATE VIEW comments AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                SELECT i AS id, i AS book, 'x' AS text FROM n;
            """)
        #expect(throws: CalibreLibrary.Failure.self) {
            try CalibreLibraryStore.open(path: library.folder, environment: cache)
        }
        do {
            _ = try CalibreLibraryStore.open(path: library.folder, environment: cache)
        } catch {
            #expect(error.description.contains("its comments is a view, not a table"), "\(error)")
        }
    }

    @Test func aViewInPlaceOfATableASaveWritesIsRefusedAtOpen() throws {
        // Writing to a view would run its INSTEAD OF trigger: whatever its maker wrote.
        try library.execute(
            """
            DROP TABLE metadata_dirtied; CREATE TABLE elsewhere (id INTEGER PRIMARY KEY, book INTEGER);
            CREATE VIEW metadata_dirtied AS SELECT id, book FROM elsewhere;
            CREATE TRIGGER redirect INSTEAD OF INSERT ON metadata_dirtied BEGIN
                INSERT INTO elsewhere (book) VALUES (NEW.book);
            END;
            """)
        do {
            _ = try CalibreLibraryStore.open(path: library.folder, environment: cache)
            Issue.record("the library opened")
        } catch {
            #expect(error.description.contains("its metadata_dirtied is a view, not a table"), "\(error)")
        }
    }

    @Test func aTriggerThatNeverEndsIsStoppedByTheWorkBoundAndNothingIsWritten() async throws {
        // A save's statements are metered as a read's are: a trigger that would run for ever
        // is stopped once the library's size's worth of work is spent, and the save rolled back.
        try library.execute(
            """
            CREATE TRIGGER hostile AFTER UPDATE ON books BEGIN
                SELECT count(*) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n);
            END;
            """)
        let remote = try remote()
        let base = try await remote.load(id: 5)
        do {
            _ = try await remote.save(
                SaveRequest(id: 5, title: "Guards! Guards! (ours)", expectedRevision: base.revision))
            Issue.record("the save went through")
        } catch {
            #expect("\(error)".contains("took more work than a library of its size needs"), "\(error)")
        }
        #expect(try library.column("SELECT title FROM books WHERE id = 5") == ["Guards! Guards!"])
        #expect(try library.column("SELECT count(*) FROM metadata_dirtied WHERE book = 5") == ["0"])
    }
}
