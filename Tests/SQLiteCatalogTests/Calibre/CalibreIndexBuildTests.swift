import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
import SearchEngine
import Synchronization
import Testing

/// An index build over a Calibre library in place beside calibre's writes (issue 62). calibre's
/// `metadata.db` is in SQLite's rollback journal, where a read holds every writer's commit off:
/// a build read in one read locked calibre out for as long as it ran. The build reads in pages,
/// each in a read of its own; these tests pause it between two pages, write there as calibre
/// does (a connection of its own that waits for no lock), and then ask the index.
@Suite struct CalibreIndexBuildTests {
    let directory: TemporaryDirectory
    let library: CalibreLibraryCopy
    init() throws {
        directory = try TemporaryDirectory()
        library = try CalibreLibraryCopy(in: directory)
    }

    var cache: [String: String] { ["XDG_CACHE_HOME": directory.path("cache")] }
    let lockName = "bookshelf-test-\(UUID().uuidString)"

    /// What calibre writes between two of the build's pages, each in a transaction of its own on
    /// a connection that does not wait for a lock (busy timeout 0): a book of the page read
    /// retitled (2), one of a page to come retitled (7), one read removed (1), one to come
    /// removed (5), and a book added (9, by Terry Pratchett). The failures, if any.
    static func writeAsCalibre(_ file: String) -> [String] {
        var failures: [String] = []
        do {
            let calibre = try Connection(path: file, flags: SQLITE_OPEN_READWRITE)
            calibre.setBusyTimeout(milliseconds: 0)
            try CalibreFunctions.register(on: calibre)
            let later = { (seconds: Int) in CalibreTimestamp.text(CalibreTimestamp.now() + seconds * 1_000_000) }
            for sql in [
                "UPDATE books SET title = 'Zebra Omnibus', last_modified = '\(later(1))' WHERE id = 2",
                "UPDATE books SET title = 'Quokka Meditations', last_modified = '\(later(2))' WHERE id = 7",
                "DELETE FROM books WHERE id = 1",
                "DELETE FROM books WHERE id = 5",
                """
                BEGIN;
                INSERT INTO books(title, author_sort, timestamp, pubdate, last_modified, path)
                    VALUES ('Quuxley Manor', 'Pratchett, Terry', '\(later(3))', '\(later(3))', '\(later(3))',
                    'Terry Pratchett/Quuxley Manor (9)');
                INSERT INTO books_authors_link(book, author) VALUES (last_insert_rowid(), 2);
                COMMIT;
                """,
            ] {
                do { try calibre.execute(sql) } catch { failures.append("\(sql.prefix(40)): \(error)") }
            }
        } catch {
            failures.append("cannot open the library as calibre: \(error)")
        }
        return failures
    }

    /// The naive scan over the books as `load` reads them: every book judged by `SearchTerms`.
    private func naive(_ text: String, over books: [BookRecord]) -> [Int] {
        let terms = SearchTerms(text)
        let matching = books.filter(terms.matches)
        let ordered =
            terms.isEmpty
            ? matching.sorted { (SearchTerms.fold($0.title), $0.id) < (SearchTerms.fold($1.title), $1.id) }
            : matching.sorted { terms.sortKey($0) < terms.sortKey($1) }
        return ordered.map(\.id)
    }

    static let queries = [
        "", "the", "zebra", "omens", "quokka", "meditations", "guards", "fellowship", "tolkien", "pratchett",
        "quuxley", "t",
    ]

    @Test func calibreWritesBetweenTheBuildsPagesAndTheIndexEndsExact() async throws {
        let file = library.file
        let written = Mutex<[String]?>(nil)
        let paging = CalibreBuildPaging(books: 3) {
            written.withLock { failures in
                if failures == nil { failures = Self.writeAsCalibre(file) }
            }
        }
        let store = try CalibreLibraryStore.open(path: library.folder, environment: cache)
        let remote = try store.remote(lockName: lockName, buildPaging: paging)
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built)
        #expect(stored)
        // calibre's writes went in while the build was paused between its pages.
        #expect(written.withLock { $0 } == [])

        // Derived from the scenario: the fixture's eight books, 1 and 5 gone, 2 and 7 retitled, 9 added.
        var books: [BookRecord] = []
        for id in 1...10 { if let book = try? await remote.load(id: id) { books.append(book) } }
        #expect(books.map(\.id) == [2, 3, 4, 6, 7, 8, 9])
        #expect(books.first?.title == "Zebra Omnibus")
        for query in Self.queries {
            let page = try await remote.search(SearchQuery(text: query, limit: 100))
            #expect(page.records.map(\.id) == naive(query, over: books), "\(query)")
            #expect(page.total == naive(query, over: books).count, "\(query)")
            #expect(page.source == .index, "\(query)")
        }
        // The next session loads the stored index and catches up to the same answers.
        let next = try store.remote(lockName: lockName)
        #expect(try await next.searchIndexReport().report.origin == .loadedSnapshot)
        for query in Self.queries {
            let page = try await next.search(SearchQuery(text: query, limit: 100))
            #expect(page.records.map(\.id) == naive(query, over: books), "\(query)")
            #expect(page.source == .index, "\(query)")
        }
    }
}
