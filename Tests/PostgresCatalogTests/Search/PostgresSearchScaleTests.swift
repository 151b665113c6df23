import BookCatalog
import Foundation
@testable import PostgresCatalog
import SQLiteCatalog
import TestTags
import Testing

/// Totals past the counting limit, keyset paging under concurrent writes, and what a
/// notification can tell a role of another scope: on a catalog large enough to cross
/// `SearchPage.exactCountLimit`.
@Suite(
    "PostgreSQL search at scale", .enabled(if: PostgresTestCluster.shouldRun, "PostgreSQL server binaries not found"),
    .tags(.postgres))
struct PostgresSearchScaleTests {
    /// 11,000 books with "Middle" (past the counting limit), 1,500 more with "Common Other"
    /// (under it, and few enough for PostgreSQL to count), 30 with "Rare". Every "Middle"
    /// book is also "Common".
    static let middle = 11_000
    static let commonOnly = 1_500
    static let rare = 30

    static func books() -> [NewBook] {
        (0..<middle).map { NewBook(title: "Common Middle \($0)", author: "Anon") }
            + (0..<commonOnly).map { NewBook(title: "Common Other \($0)", author: "Anon") }
            + (0..<rare).map { NewBook(title: "Rare \($0)", author: "Anon") }
    }

    @Test("every page names the database's search function as what answered it, or that it was not asked")
    func everyPageNamesItsSource() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        try await catalog.setup.importBooks(Array(Self.books().suffix(Self.rare)), scope: "main")
        let remote = try await catalog.remote(for: editor)
        // Matches, none, every book, and a page after a cursor: the database answers each.
        let first = try await remote.search(SearchQuery(text: "rare", limit: 10))
        #expect(first.source == .searchFunction)
        let second = try await remote.search(SearchQuery(text: "rare", limit: 10, offset: 10, after: first.next))
        #expect(second.source == .searchFunction)
        for text in ["zzz", ""] {
            #expect(try await remote.search(SearchQuery(text: text)).source == .searchFunction, "\(text)")
        }
        // Nothing can match a query without searchable words: the database is not asked.
        #expect(try await remote.search(SearchQuery(text: "?!")).source == .noSearchableWords)
    }

    @Test("totals are exact below the limit, flagged past it, and the same kind on SQLite")
    func totals() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        try await catalog.setup.importBooks(Self.books(), scope: "main")
        try await catalog.setup.analyze()
        let postgres = try await catalog.remote(for: editor)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bookshelf-totals-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sqliteCatalog = try SQLiteCatalog.open(
            path: directory.appendingPathComponent("c.sqlite").path, create: true)
        try sqliteCatalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try sqliteCatalog.insertBooks(Self.books(), scope: "main") { _ in }
        let sqlite = try sqliteCatalog.remote(account: "editor")

        let limit = SearchPage.exactCountLimit
        #expect(limit < Self.middle, "the scenario must cross the counting limit")
        for store in [postgres as any SearchableBookRemote, sqlite] {
            #expect(try await store.search(SearchQuery(text: "rare")).totalCount == .exact(Self.rare))
            #expect(try await store.search(SearchQuery(text: "zzz")).totalCount == .exact(0))
            #expect(try await store.search(SearchQuery(text: "other")).totalCount == .exact(Self.commonOnly))
        }
        // SQLite counts everything and stops saying exactly at the limit. PostgreSQL counts only
        // what its estimate says is few (counting reads a row per match), and otherwise gives
        // the planner's estimate, saying so.
        let everything = Self.middle + Self.commonOnly + Self.rare
        for (text, actual) in [("middle", Self.middle), ("common", Self.middle + Self.commonOnly), ("", everything)] {
            #expect(try await sqlite.search(SearchQuery(text: text)).totalCount == .atLeast(limit), "\(text)")
            let total = try await postgres.search(SearchQuery(text: text)).totalCount
            guard case let .about(estimate) = total else {
                Issue.record("expected an estimate for \(actual) matches of \"\(text)\", got \(total)")
                continue
            }
            #expect(abs(estimate - actual) < actual / 5, "estimate \(estimate) for \(actual)")
        }

        // The same rows in the same order on both stores, first page and after a cursor.
        for text in ["middle", "common", "", "rare", "common 1"] {
            let first = try await postgres.search(SearchQuery(text: text, limit: 40))
            #expect(first.records == (try await sqlite.search(SearchQuery(text: text, limit: 40))).records, "\(text)")
            let second = try await postgres.search(SearchQuery(text: text, limit: 40, offset: 40, after: first.next))
            #expect(
                second.records == (try await sqlite.search(SearchQuery(text: text, limit: 40, offset: 40))).records,
                "\(text)")
        }
        // The last page knows the exact number.
        let last = try await postgres.search(SearchQuery(text: "middle", limit: 50, offset: Self.middle - 20))
        #expect(last.records.count == 20 && last.totalCount == .exact(Self.middle))
    }

    @Test("keyset paging returns every match exactly once while another connection inserts and renames")
    func keysetPagingUnderWrites() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let editor = try await catalog.addAccount("editor", role: .editor, scope: "main")
        // Titles "Page 0000" ... in title order; all match "page".
        let stored = try await catalog.addBooks(
            (0..<1_200).map { NewBook(title: String(format: "Page %04d", $0)) }, scope: "main")
        let others = try await catalog.addBooks(
            (0..<50).map { NewBook(title: String(format: "Other %04d", $0)) }, scope: "main")
        let reader = try await catalog.remote(for: editor)
        let writer = try await catalog.remote(for: try await catalog.addAccount("writer", role: .editor, scope: "main"))

        func pageThrough(useCursor: Bool) async throws -> (seen: [Int], stable: Set<Int>) {
            var seen: [Int] = []
            var cursor: SearchCursor?
            var changed = Set<Int>()
            var round = 0
            while true {
                let page = try await reader.search(
                    SearchQuery(
                        text: "page", limit: 100, offset: seen.count,
                        after: useCursor ? cursor : nil))
                seen += page.records.map(\.id)
                guard let last = page.records.last, page.records.count == 100 else { break }
                cursor = page.next
                // Between pages: two new matching books sort before the position reached (they
                // would shift an offset), one after; one matching book ahead is renamed away,
                // one non-matching book is renamed into the matches ahead.
                let inserted = try await catalog.addBooks(
                    [
                        NewBook(title: "Page !\(useCursor) \(round) a"),
                        NewBook(title: "Page !\(useCursor) \(round) b"),
                        NewBook(title: "Page \(last.title.dropFirst(5))z \(useCursor)"),
                    ], scope: "main")
                changed.formUnion(inserted.map(\.id))
                let ahead = stored[min(stored.count - 1, (round + 2) * 100 + 7)]
                let current = try await writer.load(id: ahead.id)
                if current.title.hasPrefix("Page") {
                    _ = try await writer.save(
                        id: ahead.id, title: "Gone \(ahead.id)", expectedRevision: current.revision)
                    changed.insert(ahead.id)
                }
                if round < others.count {
                    let other = try await writer.load(id: others[round].id)
                    _ = try await writer.save(
                        id: other.id, title: "Page 9\(other.title)", expectedRevision: other.revision)
                    changed.insert(other.id)
                }
                round += 1
            }
            let stable = Set(stored.map(\.id)).subtracting(changed)
            return (seen, stable)
        }

        let keyset = try await pageThrough(useCursor: true)
        #expect(keyset.seen.count == Set(keyset.seen).count, "a book came twice")
        let missing = keyset.stable.subtracting(keyset.seen)
        #expect(missing.isEmpty, "books never changed but not returned: \(missing.count)")

        // The same scenario by offset shows why: rows inserted before the position shift it.
        // Restore the titles first so the second run starts from the same catalog.
        for book in stored {
            let current = try await writer.load(id: book.id)
            if current.title != book.title {
                _ = try await writer.save(id: book.id, title: book.title, expectedRevision: current.revision)
            }
        }
        let byOffset = try await pageThrough(useCursor: false)
        #expect(byOffset.seen.count != Set(byOffset.seen).count, "offset paging should repeat rows in this scenario")
    }

    @Test("a role of scope north that listens on every channel it can name learns no id of a main book")
    func notificationsTellNothing() async throws {
        let catalog = try await PostgresTestCatalog.make()
        let mainEditor = try await catalog.addAccount("main_editor", role: .editor, scope: "main")
        let mainReader = try await catalog.addAccount("main_reader", role: .reader, scope: "main")
        let north = try await catalog.addAccount("north", role: .editor, scope: "north")
        let secret = try #require(
            try await catalog.addBooks([NewBook(title: "Main Secret 424242")], scope: "main").first)
        _ = try await catalog.addBooks([NewBook(title: "North Book")], scope: "north")

        let listener = try await RawSQLSession(catalog.connector(for: north))
        // Version 1 of the schema notified 'bookshelf_' || md5(scope), which anyone can compute.
        let hashed = try await listener.rows("SELECT 'bookshelf_' || md5('main'), 'bookshelf_' || md5('north')")
        let channels =
            ["bookshelf_changed", "bookshelf_main", "bookshelf_north", "main", "bookshelf"]
            + (hashed.first ?? []).compactMap { $0 }
        for channel in channels {
            _ = try await listener.rows("LISTEN \"\(channel)\"")
        }
        let northRemote = try await catalog.remote(for: north)
        let mainRemote = try await catalog.remote(for: mainReader)
        #expect(try await northRemote.checkForChanges() == nil)
        #expect(try await mainRemote.checkForChanges() == nil)

        let editor = try await catalog.remote(for: mainEditor)
        let saved = try await editor.save(id: secret.id, title: "Main Secret 424242 v2", expectedRevision: 1)
        #expect(saved.revision == 2)

        _ = try await listener.rows("SELECT 1")
        let heard = try await listener.notifications()
        #expect(!heard.isEmpty, "the listener should hear that something changed")
        for notification in heard {
            #expect(notification.payload.isEmpty, "payload \(notification.payload) on \(notification.channel)")
            #expect(!notification.payload.contains(String(secret.id)))
        }
        #expect(
            try await northRemote.checkForChanges() == nil, "north cannot read the main book, so nothing changed for it"
        )
        #expect(try await mainRemote.checkForChanges() == ChangeNotice(bookIDs: [secret.id]))
        #expect(try await mainRemote.checkForChanges() == nil, "each change is reported once")
        #expect(try await editor.checkForChanges() == nil, "a session's own save is not news to it")
    }
}
