import BookCatalog
import CSQLite
import Foundation
@testable import SQLiteCatalog
import Testing

/// What only the SQLite adapter promises: opening errors that leave files untouched, locking,
/// several connections to one file, and all-or-nothing imports.
@Suite struct SQLiteCatalogTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    // MARK: Opening

    @Test func aMissingFileIsNotFoundAndNotCreated() throws {
        let path = directory.path("absent.sqlite")
        #expect(throws: SQLiteCatalogError.notFound(path: path)) { try SQLiteCatalog.open(path: path, create: false) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aMissingDirectoryCannotBeCreated() throws {
        let path = directory.path("no/such/dir/catalog.sqlite")
        do {
            _ = try SQLiteCatalog.open(path: path, create: true)
            Issue.record("opened a catalog in a missing directory")
        } catch {
            guard case .cannotOpen(path, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.contains(path))
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftUntouched() throws {
        let path = directory.path("notes.txt")
        let content = Data(String(repeating: "Shopping list: eggs, milk, bread.\n", count: 200).utf8)
        try content.write(to: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.notADatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: false)
        }
        #expect(throws: SQLiteCatalogError.notADatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(SQLiteCatalogError.notADatabase(path: path).description.contains("not a Bookshelf catalog"))
    }

    @Test func anEmptyFileIsRefusedUntouchedUnlessCreating() throws {
        let path = directory.path("empty.sqlite")
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.emptyFile(path: path)) { try SQLiteCatalog.open(path: path, create: false) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let created = try SQLiteCatalog.open(path: path, create: true)
        #expect(try created.bookCount(scope: nil) == 0)
    }

    @Test func anotherProgramsDatabaseIsRefusedUntouched() throws {
        let path = directory.path("other.sqlite")
        do {
            let raw = try RawConnection(path, create: true)
            try execute(raw.handle, "CREATE TABLE notes(text TEXT)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.otherDatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: false)
        }
        #expect(throws: SQLiteCatalogError.otherDatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A negative `user_version` (the fuzz target CatalogFileDamage made one) is no version
    /// Bookshelf writes: the file is refused untouched, where the migration indexed its steps
    /// at the negative number and the process died.
    @Test func aNegativeSchemaVersionIsAnotherProgramsDatabase() throws {
        let path = directory.path("negative.sqlite")
        do {
            let raw = try RawConnection(path, create: true)
            try execute(raw.handle, "CREATE TABLE notes(text TEXT); PRAGMA user_version = -3")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.otherDatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: true)
        }
        #expect(throws: SQLiteCatalogError.otherDatabase(path: path)) {
            try SQLiteCatalog.open(path: path, create: false)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aDamagedCatalogIsReportedAsCorrupt() throws {
        let path = directory.path("damaged.sqlite")
        try makeCatalog(path, books: 50)
        // Keep the 100-byte header (it still says "SQLite format 3") and wreck the schema page.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for index in 100..<4_096 { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.corrupt(path: path)) { try SQLiteCatalog.open(path: path, create: false) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aCatalogFromANewerProgramIsRefusedAndLeftUntouched() throws {
        let path = directory.path("future.sqlite")
        try makeCatalog(path, books: 3)
        try withRawConnection(path) { try execute($0, "PRAGMA user_version = 99") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: SQLiteCatalogError.newerSchema(found: 99, known: Schema.currentVersion)) {
            try SQLiteCatalog.open(path: path, create: false)
        }
        #expect(throws: SQLiteCatalogError.newerSchema(found: 99, known: Schema.currentVersion)) {
            try SQLiteCatalog.open(path: path, create: true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(SQLiteCatalogError.newerSchema(found: 99, known: 2).description.contains("newer Bookshelf"))
    }

    /// File permissions do not bind root, so this can only be shown as another user. As root,
    /// `SQLiteFileSystemTests` shows the same error on a read-only tmpfs.
    @Test(.enabled(if: geteuid() != 0, "root may write read-only files"))
    func aReadOnlyFileIsRefused() throws {
        let path = directory.path("readonly.sqlite")
        try makeCatalog(path, books: 3)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        #expect(throws: SQLiteCatalogError.readOnly(path: path)) { try SQLiteCatalog.open(path: path, create: false) }
    }

    @Test func reopeningKeepsBooksAndAccounts() throws {
        let path = directory.path("kept.sqlite")
        try makeCatalog(path, books: 10)
        let reopened = try SQLiteCatalog.open(path: path, create: false)
        #expect(try reopened.bookCount(scope: "main") == 10)
        #expect(try reopened.bookCount(scope: nil) == 10)
        #expect(try reopened.accounts().map(\.name) == ["editor", "reader"])
        let raw = try RawConnection(path)
        let mode = try queryText(raw.handle, "PRAGMA journal_mode")
        let version = try queryText(raw.handle, "PRAGMA user_version")
        #expect(mode == "wal" && version == "\(Schema.currentVersion)")
    }

    // MARK: Accounts

    @Test func anUnknownAccountIsAClearError() throws {
        let catalog = try makeCatalog(directory.path("c.sqlite"), books: 1)
        #expect(throws: SQLiteCatalogError.unknownAccount("mallory")) { try catalog.remote(account: "mallory") }
        #expect(SQLiteCatalogError.unknownAccount("mallory").description.contains("mallory"))
    }

    @Test func theStoreChecksTheRoleOnEveryCall() async throws {
        let catalog = try makeCatalog(directory.path("c.sqlite"), books: 1)
        let remote = try catalog.remote(account: "editor")
        let first = try await remote.save(SaveRequest(id: 1, title: "Still an editor", expectedRevision: 1))
        try catalog.addAccount(Account(name: "editor", role: .reader, scope: "main"))
        await expectFailure(.notAllowed) {
            _ = try await remote.save(SaveRequest(id: 1, title: "Demoted", expectedRevision: 2))
        }
        #expect(try await remote.load(id: 1) == first)
    }

    // MARK: Imports

    @Test func anImportIsAllOrNothing() throws {
        let catalog = try makeCatalog(directory.path("c.sqlite"), books: 2)
        let books = [NewBook(title: "Fine"), NewBook(title: "  "), NewBook(title: "Also fine")]
        #expect(throws: SQLiteCatalogError.invalidBook(index: 1, reason: .invalidTitle)) {
            try catalog.insertBooks(books, scope: "main", progress: nil)
        }
        #expect(try catalog.bookCount(scope: nil) == 2)
        var reported: [Int] = []
        let inserted = try catalog.insertBooks(
            (0..<2_500).map { NewBook(title: " Book \($0) ", author: "A") }, scope: "main"
        ) {
            reported.append($0)
        }
        #expect(inserted == 2_500 && reported == [1_000, 2_000, 2_500])
        #expect(try catalog.bookCount(scope: "main") == 2_502)
    }

    /// A large import drops the title index and creates it again at the end (one sort instead
    /// of a random insert per book): afterwards the catalog has the same index as a new one,
    /// and result order reads it; a large import that fails leaves it in place.
    @Test func aLargeImportLeavesTheTitleIndexAsANewCatalogHasIt() async throws {
        let indexSQL = "SELECT sql FROM sqlite_master WHERE name = 'books_by_scope_title'"
        let fresh = directory.path("fresh.sqlite")
        try makeCatalog(fresh, books: 0)
        let freshConnection = try RawConnection(fresh)
        let expectedSQL = try queryText(freshConnection.handle, indexSQL)
        #expect(expectedSQL != nil)

        let path = directory.path("c.sqlite")
        let catalog = try makeCatalog(path, books: 3)
        let large = (0..<SQLiteCatalog.bulkImport).map { NewBook(title: "Imported \(SQLiteCatalog.bulkImport - $0)") }
        #expect(throws: SQLiteCatalogError.invalidBook(index: large.count, reason: .invalidTitle)) {
            try catalog.insertBooks(large + [NewBook(title: " ")], scope: "main")
        }
        let afterFailure = try RawConnection(path)
        #expect(try queryText(afterFailure.handle, indexSQL) == expectedSQL)

        try catalog.insertBooks(large, scope: "main")
        let raw = try RawConnection(path)
        #expect(try queryText(raw.handle, indexSQL) == expectedSQL)
        #expect(try queryText(raw.handle, "PRAGMA integrity_check") == "ok")
        // All books in title order: the three "Book n", then the imports by folded title
        // ("imported 1", "imported 10", "imported 100", ...).
        let remote = try catalog.remote(account: "reader")
        let imported = large.map { SearchTerms.fold($0.title) }.sorted()
        let page = try await remote.search(SearchQuery(text: "", limit: 4, offset: 2))
        #expect(page.records.map { SearchTerms.fold($0.title) } == ["book 2"] + imported.prefix(3))
        #expect(try catalog.bookCount(scope: "main") == 3 + large.count)
    }

    /// A streamed import whose caller withdraws after the last book (its file had a bad line
    /// at the end) leaves the catalog as it was, even past the bulk-import size.
    @Test func aWithdrawnImportAddsNothing() throws {
        let catalog = try makeCatalog(directory.path("c.sqlite"), books: 10)
        let books = (0..<SQLiteCatalog.bulkImport).lazy.map { NewBook(title: "Withdrawn \($0)") }
        #expect(throws: SQLiteCatalogError.importWithdrawn) {
            try catalog.insertBooks(books, scope: "main", expectedCount: SQLiteCatalog.bulkImport, commitIf: { false })
        }
        #expect(try catalog.bookCount(scope: "main") == 10)
        #expect(try catalog.insertBooks([NewBook(title: "Still works")], scope: "main") == 1)
    }

    /// An import by another connection of more books than a search catches up with in its own
    /// read: once its index has answered caught up, the remote's searches do not wait for the
    /// catch-up (they answer as the catalog stood, `index-behind`); once it is done, they find
    /// every imported book, and no other scope's.
    @Test func aSearchIndexCatchesUpWithALargeImportByAnotherConnection() async throws {
        let catalog = try makeCatalog(directory.path("c.sqlite"), books: 100)
        let remote = try catalog.remote(account: "reader")
        // The index answers first, caught up. Had the books answered (the index still being
        // built), the search below would wait for the catch-up instead of answering behind: the
        // test would depend on how soon the index is built.
        _ = try await remote.searchIndexReport()
        let first = try await remote.search(SearchQuery(text: "imported"))
        #expect(first.source == .index && first.total == 0, "\(String(describing: first.source))")
        try catalog.insertBooks((0..<6_000).map { NewBook(title: "Imported \($0)") }, scope: "main")
        try catalog.insertBooks([NewBook(title: "Imported elsewhere")], scope: "elsewhere")
        let behind = try await remote.search(SearchQuery(text: "imported 59", limit: 5))
        #expect(behind.source == .indexBehind && behind.total == 0)
        // The catch-up read away from the actor finds more books than the overlay holds, and a
        // replacement is built: both done, the search is caught up.
        if let catchingUp = await runningCatchUp(of: remote) { await catchingUp.value }
        await remote.finishIndexPreparation()
        let page = try await remote.search(SearchQuery(text: "imported 59", limit: 5))
        #expect(page.source == .index)
        #expect(page.total == 111)  // 59, 590...599, 5900...5999
        #expect(
            page.records.map(\.title) == [
                "Imported 59", "Imported 590", "Imported 5900", "Imported 5901", "Imported 5902",
            ])
        #expect(try await remote.search(SearchQuery(text: "")).total == 6_100)
    }

    // MARK: Locking

    @Test func aWriteLockHeldBeyondTheTimeoutFailsClearlyAndChangesNothing() async throws {
        let path = directory.path("locked.sqlite")
        try makeCatalog(path, books: 3)
        let catalog = try SQLiteCatalog.open(path: path, create: false, busyTimeout: .milliseconds(150))
        let remote = try catalog.remote(account: "editor")
        // The remote's background index work writes a snapshot; let it finish first.
        _ = try await remote.searchIndexReport()
        let held = try RawConnection(path)
        try execute(held.handle, "BEGIN IMMEDIATE")
        await expectFailure(.storeUnavailable("the catalog is locked by another program; try again")) {
            _ = try await remote.save(SaveRequest(id: 1, title: "Blocked", expectedRevision: 1))
        }
        #expect(throws: SQLiteCatalogError.locked(path: path)) {
            try catalog.insertBooks([NewBook(title: "x")], scope: "main")
        }
        // Readers are not blocked by a writer in WAL mode.
        #expect(try await remote.load(id: 1).revision == 1)
        #expect(try await remote.search(SearchQuery(text: "")).total == 3)
        try execute(held.handle, "COMMIT")
        let saved = try await remote.save(SaveRequest(id: 1, title: "Unblocked", expectedRevision: 1))
        #expect(saved.revision == 2)
    }

    // MARK: Helpers

    @discardableResult
    private func makeCatalog(_ path: String, books: Int) throws -> SQLiteCatalog {
        let catalog = try SQLiteCatalog.open(path: path, create: true)
        try catalog.addAccount(Account(name: "editor", role: .editor, scope: "main"))
        try catalog.addAccount(Account(name: "reader", role: .reader, scope: "main"))
        try catalog.insertBooks((0..<books).map { NewBook(title: "Book \($0)") }, scope: "main", progress: nil)
        return catalog
    }
}

/// A plain SQLite connection standing in for another program using the same file.
final class RawConnection {
    let handle: OpaquePointer

    init(_ path: String, create: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw RawError(message: "cannot open \(path)")
        }
        // Another program waits for a lock as most do: the app's remote may be storing its
        // search index at that moment (a fresh-clone CI run under load failed here at once).
        sqlite3_busy_timeout(handle, 10_000)
        self.handle = handle
    }

    deinit { sqlite3_close(handle) }
}

struct RawError: Error { let message: String }

func withRawConnection(_ path: String, _ body: (OpaquePointer) throws -> Void) throws {
    let connection = try RawConnection(path)
    try body(connection.handle)
}

func execute(_ handle: OpaquePointer, _ sql: String) throws {
    guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
        throw RawError(message: String(cString: sqlite3_errmsg(handle)))
    }
}

func queryText(_ handle: OpaquePointer, _ sql: String) throws -> String? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
        throw RawError(message: String(cString: sqlite3_errmsg(handle)))
    }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
    return String(cString: text)
}
