import BookCatalog
import BookshelfTestSupport
import Foundation
import SQLiteCatalog
import Synchronization
import Testing

/// A library searched through the search engine (issue 62, item 2): its index in the user's
/// cache, never in the library's folder, catching up with what calibredb adds, changes and
/// removes beside an open session. In `CalibreInPlaceTests`, one test at a time: they run
/// calibredb, and calibre's lock is per user.
extension CalibreInPlaceTests {
    /// The test's own cache folder, where the library's index and change ledger go.
    var cache: [String: String] { ["XDG_CACHE_HOME": sandbox.path("cache")] }

    /// Every file under `folder`, with its size and modification time: what calibre alone manages.
    private func listing(_ folder: String) throws -> [String: [FileAttributeKey: Any]] {
        var found: [String: [FileAttributeKey: Any]] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            found[name] = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
        }
        return found
    }

    /// The library's books as `load` reads them, one by one, up to the largest id calibre gave.
    private func everyBook(_ remote: CalibreBookRemote, upTo largest: Int) async throws -> [BookRecord] {
        var books: [BookRecord] = []
        for id in 1...largest {
            if let book = try? await remote.load(id: id) { books.append(book) }
        }
        return books
    }

    /// The naive scan: every book judged by `SearchTerms`, in its order, as the in-memory store answers.
    private func naive(_ text: String, over books: [BookRecord], limit: Int = 100) -> [Int] {
        let terms = SearchTerms(text)
        let matching = books.filter(terms.matches)
        let ordered =
            terms.isEmpty
            ? matching.sorted { (SearchTerms.fold($0.title), $0.id) < (SearchTerms.fold($1.title), $1.id) }
            : matching.sorted { terms.sortKey($0) < terms.sortKey($1) }
        return ordered.prefix(limit).map(\.id)
    }

    private func ids(_ remote: CalibreBookRemote, _ text: String, limit: Int = 100) async throws -> [Int] {
        try await remote.search(SearchQuery(text: text, limit: limit)).records.map(\.id)
    }

    /// The index file of the library in the test's cache (the one that is not the change ledger).
    private func indexFile() throws -> String {
        let folder = sandbox.path("cache") + "/bookshelf"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix("calibre-") && $0.contains("-search-") && !$0.hasSuffix("-changes")
                && !$0.contains("-changes-")
        }
        #expect(names.count == 1, "\(names)")
        return folder + "/" + (try #require(names.first))
    }

    static let queries = [
        "", "the", "t", "ring", "tolkien", "pratchett", "guards", "fantasy", "sea fish", "9780261103573", "zz",
        "año", "o",
    ]

    @Test func answersAreTheNaiveScansBeforeAndAfterTheIndexAndNoFileAppearsInTheLibrary() async throws {
        defer { sandbox.remove() }
        // Books calibredb adds beside the fixture's, with words the queries share.
        for (title, author) in [("The Ring of Fire", "Ann Other"), ("Tolkien's World", "Sea Fisher")] {
            let added = try calibredb(["add", "--empty", "--title", title, "--authors", author])
            #expect(added.status == 0, "\(added.output)")
        }
        let before = try listing(library)
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        let remote = try store.remote()
        let books = try await everyBook(remote, upTo: 10)
        #expect(books.count == 10)
        // Asked at once, while the index may still be built, and again from the index.
        for query in Self.queries {
            #expect(try await ids(remote, query) == naive(query, over: books), "\(query)")
        }
        let (report, stored) = try await remote.searchIndexReport()
        #expect(report.origin == .built && stored)
        for query in Self.queries {
            let page = try await remote.search(SearchQuery(text: query, limit: 100))
            #expect(page.records.map(\.id) == naive(query, over: books), "\(query)")
            if !query.isEmpty { #expect(page.source == .index, "\(query)") }
        }
        // The next session loads the stored index, and answers the same.
        let next = try store.remote()
        #expect(try await next.searchIndexReport().report.origin == .loadedSnapshot)
        for query in Self.queries {
            #expect(try await ids(next, query) == naive(query, over: books), "\(query)")
        }
        // So does the command, a process of its own.
        let command = try sandbox.run(["search", "--db", library, "--limit", "100", "tolkien"], environment: cache)
        #expect(command.status == 0, "\(command.errors)")
        #expect(
            command.outputLines.compactMap { Int($0.split(separator: "\t")[0]) } == naive("tolkien", over: books))

        // Nothing was made, changed or removed in the library's folder; the index is in the cache.
        let after = try listing(library)
        #expect(Set(after.keys) == Set(before.keys))
        for (name, attributes) in before {
            #expect(after[name]?[.modificationDate] as? Date == attributes[.modificationDate] as? Date, "\(name)")
            #expect(after[name]?[.size] as? Int == attributes[.size] as? Int, "\(name)")
        }
        _ = try indexFile()
    }

    @Test func whatCalibredbAddsChangesAndRemovesBesideAnOpenSessionIsFoundByTheNextSearch() async throws {
        defer { sandbox.remove() }
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        let remote = try store.remote()
        #expect(try await remote.searchIndexReport().report.origin == .built)
        #expect(try await ids(remote, "pratchett") == [2, 5, 6])

        // calibredb adds a book: id 9, the next after the fixture's eight.
        let added = try calibredb(["add", "--empty", "--title", "Quuxley Manor", "--authors", "Terry Pratchett"])
        #expect(added.status == 0, "\(added.output)")
        #expect(try await ids(remote, "quuxley") == [9])
        #expect(try await ids(remote, "pratchett") == [2, 5, 9, 6])

        // calibredb retitles Good Omens: found by its new title, no longer by its old one.
        let changed = try calibredb(["set_metadata", "2", "--field", "title:Zebra Omnibus"])
        #expect(changed.status == 0, "\(changed.output)")
        #expect(try await ids(remote, "zebra") == [2])
        #expect(try await ids(remote, "omens") == [])

        // calibredb removes Guards! Guards!: gone from every answer, the empty query's too.
        let removed = try calibredb(["remove", "5"])
        #expect(removed.status == 0, "\(removed.output)")
        #expect(try await ids(remote, "guards") == [])
        #expect(try await ids(remote, "pratchett") == [9, 6, 2])
        let all = try await remote.search(SearchQuery(text: "", limit: 100))
        #expect(all.total == 8)
        #expect(!all.records.map(\.id).contains(5))

        // Caught up in place, not rebuilt: the index still answers.
        #expect(try await remote.search(SearchQuery(text: "pratchett")).source == .index)

        // A session opened now loads the stored index and catches up to the same answers.
        let next = try store.remote()
        #expect(try await ids(next, "pratchett") == [9, 6, 2])
        #expect(try await ids(next, "guards") == [])
    }

    /// calibre's database is in SQLite's rollback journal, where a reader holds calibre's
    /// commits off: the index build reads in pages, each in a read of its own, so that calibredb
    /// saves between two of them (the build paused there) rather than waiting out its busy
    /// timeout and failing with "database is locked"; the index then catches up with the save.
    @Test func calibredbSavesWhileTheIndexIsBuiltAndTheIndexCatchesUp() async throws {
        defer { sandbox.remove() }
        let tool = try #require(CalibreTools.calibredb, "calibredb is required (CI is set)")
        let (library, environment, output) = (library, calibreEnvironment, sandbox.path("calibredb-paused"))
        let status = Mutex<Int32?>(nil)
        let paging = CalibreBuildPaging(books: 3) {
            status.withLock { status in
                guard status == nil else { return }
                status = try? ChildProcess.run(
                    [tool, "--library-path", library, "set_metadata", "7", "--field", "title:Quokka Meditations"],
                    output: output, environment: environment)
            }
        }
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        let remote = try store.remote(buildPaging: paging)
        #expect(try await remote.searchIndexReport().report.origin == .built)
        #expect(
            status.withLock { $0 } == 0,
            "calibredb set_metadata, while the build was paused: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")"
        )
        #expect(try await ids(remote, "quokka") == [7])
        #expect(try await ids(remote, "meditations") == [7])
        #expect(try await remote.search(SearchQuery(text: "quokka")).source == .index)
        let books = try await everyBook(remote, upTo: 8)
        #expect(books.first { $0.id == 7 }?.title == "Quokka Meditations")
        for query in Self.queries {
            #expect(try await ids(remote, query) == naive(query, over: books), "\(query)")
        }
    }

    /// A session opened on a library nobody wrote since answers its first results from the
    /// stored index; one opened after calibredb added, retitled and removed books catches the
    /// stored index up with those books and answers exactly, from the index too.
    @Test func aNewSessionAnswersFromTheStoredIndexCaughtUpWithWhatCalibredbChangedBetween() async throws {
        defer { sandbox.remove() }
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        let first = try store.remote()
        #expect(try await first.searchIndexReport().report.origin == .built)
        await first.finishIndexPreparation()
        let unchanged = try await store.remote().search(SearchQuery(text: "", limit: 100, countLater: true))
        #expect(unchanged.source == .index)
        #expect(unchanged.records.map(\.id) == naive("", over: try await everyBook(first, upTo: 8)))

        #expect(
            try calibredb(["add", "--empty", "--title", "Quuxley Manor", "--authors", "Terry Pratchett"]).status == 0)
        #expect(try calibredb(["set_metadata", "2", "--field", "title:Zebra Omnibus"]).status == 0)
        #expect(try calibredb(["remove", "5"]).status == 0)
        let books = try await everyBook(first, upTo: 9)
        #expect(books.map(\.id) == [1, 2, 3, 4, 6, 7, 8, 9])
        for query in Self.queries + ["quuxley", "zebra", "omens", "guards"] {
            let page = try await store.remote().search(SearchQuery(text: query, limit: 100, countLater: true))
            #expect(page.source == .index, "\(query)")
            #expect(page.records.map(\.id) == naive(query, over: books), "\(query)")
        }
    }

    @Test func aDamagedOrForeignIndexFileInTheCacheIsRebuiltNotTrusted() async throws {
        defer { sandbox.remove() }
        let store = try CalibreLibraryStore.open(path: library, environment: cache)
        #expect(try await store.remote().searchIndexReport().report.origin == .built)
        let path = try indexFile()

        // Damaged in its header: never loaded.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in 16..<24 { bytes[offset] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))
        let afterDamage = try store.remote()
        #expect(try await afterDamage.searchIndexReport().report.origin == .built)
        #expect(try await ids(afterDamage, "pratchett") == [2, 5, 6])

        // Damaged in its data, which is checked where a search reads it: every answer is still
        // the library's (a search that finds the damage distrusts the index and reads the books).
        bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let tail = bytes.count / 2
        for offset in tail..<bytes.count { bytes[offset] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))
        let afterDataDamage = try store.remote()
        let books = try await everyBook(afterDataDamage, upTo: 8)
        for _ in 0..<2 {
            for query in Self.queries {
                #expect(try await ids(afterDataDamage, query) == naive(query, over: books), "\(query)")
            }
        }

        // Foreign: another library's index (calibredb makes a new library, with its own uuid).
        let other = sandbox.path("Other Library")
        let tool = try #require(CalibreTools.calibredb)
        let made = try ChildProcess.run(
            [tool, "--library-path", other, "add", "--empty", "--title", "Pratchett Elsewhere"],
            output: sandbox.path("other.log"), environment: calibreEnvironment)
        #expect(made == 0)
        let otherStore = try CalibreLibraryStore.open(path: other, environment: cache)
        #expect(otherStore.libraryID != store.libraryID)
        #expect(try await otherStore.remote().searchIndexReport().report.origin == .built)
        let otherPath = try #require(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.path("cache") + "/bookshelf").map {
                sandbox.path("cache") + "/bookshelf/" + $0
            }.first { $0 != path && $0.contains("-search-") && !$0.hasSuffix("-changes") })
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: otherPath, toPath: path)
        let afterForeign = try store.remote()
        #expect(try await afterForeign.searchIndexReport().report.origin == .built)
        #expect(try await ids(afterForeign, "pratchett") == [2, 5, 6])
    }
}
