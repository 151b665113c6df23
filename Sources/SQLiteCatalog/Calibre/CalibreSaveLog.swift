import BookCatalog
import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What Bookshelf keeps of its own saves to a Calibre library, which keeps no history and has
/// no place for batches that calibre would not take for its own: a SQLite file of Bookshelf's,
/// in its state folder (`$XDG_STATE_HOME/bookshelf/calibre/`), one per library, named by the
/// library's uuid, made 0600 in a folder made 0700. Never a table in `metadata.db`.
///
/// Each save Bookshelf made is a row with the book before it and after it, the account, the
/// time, the operation and the batch. A row is written before calibre's transaction commits
/// and marked committed after, so that a process ended between the two leaves a row marked
/// pending rather than a revision nobody recorded; a pending row is settled against the book
/// when it is next read (`settle`).
final class CalibreSaveLog {
    let file: String
    private let connection: Connection

    /// The longest library uuid a file is named by: calibre writes 36 characters.
    static let maximumIDLength = 64

    /// The log of the library `libraryID` in `stateFolder` (made if missing). Nil when the
    /// library's uuid cannot name a file (not a uuid's hex digits and hyphens).
    static func open(stateFolder: String, libraryID: String) throws -> CalibreSaveLog? {
        guard let file = try stateFile(stateFolder: stateFolder, libraryID: libraryID) else { return nil }
        return try CalibreSaveLog(file: file)
    }

    /// The library's file of Bookshelf's in `stateFolder`, made (0600, its folders 0700) if
    /// missing: its saves and batches are kept there, and what its imports remember
    /// (`CalibreImportProvenance`). Nil when the library's uuid cannot name a file.
    static func stateFile(stateFolder: String, libraryID: String) throws -> String? {
        guard !libraryID.isEmpty, libraryID.utf8.count <= maximumIDLength,
            libraryID.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == "-" })
        else { return nil }
        let folder = stateFolder + "/calibre"
        try makeFolders(folder)
        let file = "\(folder)/\(libraryID.lowercased()).sqlite"
        // Made 0600 before SQLite opens it: SQLite gives its journal the database's mode.
        let made = Glibc.open(file, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard made >= 0 else { throw failure("cannot create", file) }
        close(made)
        return file
    }

    private init(file: String) throws {
        self.file = file
        connection = try Connection(path: file, flags: SQLITE_OPEN_READWRITE)
        connection.setBusyTimeout(milliseconds: 10_000)
        try connection.execute("PRAGMA trusted_schema = OFF")
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS batches(
                id INTEGER PRIMARY KEY AUTOINCREMENT, account TEXT NOT NULL, started_at INTEGER NOT NULL,
                undoes INTEGER);
            CREATE TABLE IF NOT EXISTS saves(
                id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL, revision INTEGER NOT NULL,
                committed INTEGER NOT NULL, account TEXT NOT NULL, saved_at INTEGER NOT NULL,
                operation TEXT NOT NULL, batch INTEGER REFERENCES batches(id),
                before_revision INTEGER NOT NULL, before_title TEXT NOT NULL, before_author TEXT NOT NULL,
                before_isbn TEXT, before_year INTEGER, before_publisher TEXT NOT NULL, before_series TEXT NOT NULL,
                before_series_index INTEGER, before_tags TEXT NOT NULL, before_notes TEXT NOT NULL,
                after_title TEXT NOT NULL, after_author TEXT NOT NULL,
                after_isbn TEXT, after_year INTEGER, after_publisher TEXT NOT NULL, after_series TEXT NOT NULL,
                after_series_index INTEGER, after_tags TEXT NOT NULL, after_notes TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS saves_by_book ON saves(book_id, revision);
            CREATE INDEX IF NOT EXISTS saves_by_batch ON saves(batch);
            """)
    }

    // MARK: Batches

    /// A new batch of `account`; one undoing a batch this log does not have is `missing`.
    func beginBatch(_ start: BatchStart, account: String) throws -> Result<BatchID, BookFailure> {
        try connection.transaction(immediate: true) { try insertBatch(start, account: account) }
    }

    private func insertBatch(_ start: BatchStart, account: String) throws -> Result<BatchID, BookFailure> {
        if let undone = start.undoes {
            let known =
                try connection.queryFirst("SELECT 1 FROM batches WHERE id = ?1", [.int(undone.number)]) { _ in true }
                ?? false
            guard known else { return .failure(.missing) }
        }
        let number = try connection.queryFirst(
            "INSERT INTO batches(account, started_at, undoes) VALUES (?1, ?2, ?3) RETURNING id",
            [.text(account), .int(Self.nowMilliseconds()), start.undoes.map { .int($0.number) } ?? .null]
        ) { $0.int(0) }
        guard let number else { return .failure(.invalidResponse) }
        return .success(BatchID(number))
    }

    /// Whether `account` began `batch` here.
    func owns(_ batch: BatchID, account: String) throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 FROM batches WHERE id = ?1 AND account = ?2", [.int(batch.number), .text(account)]
        ) { _ in true } ?? false
    }

    // MARK: Saves

    /// One save about to commit in calibre: the book before and after it.
    struct Save {
        let before: BookRecord
        let after: BookRecord
        let operation: UUID
    }

    /// Records `saves` as pending (and, for `newBatch`, a new batch first), in one transaction
    /// of the log; answers the rows and the batch. Called inside calibre's transaction, before
    /// its commit.
    func recordPending(_ saves: [Save], account: String, batch: BatchID?, newBatch: BatchStart? = nil) throws
        -> (rows: [Int], batch: BatchID?)
    {
        try connection.transaction(immediate: true) {
            var batch = batch
            if let newBatch {
                switch try insertBatch(newBatch, account: account) {
                case let .success(number): batch = number
                case let .failure(failure): throw failure
                }
            }
            let now = Self.nowMilliseconds()
            var rows: [Int] = []
            for save in saves {
                let row = try connection.queryFirst(
                    """
                    INSERT INTO saves(book_id, revision, committed, account, saved_at, operation, batch,
                        before_revision, before_title, before_author, before_isbn, before_year, before_publisher,
                        before_series, before_series_index, before_tags, before_notes,
                        after_title, after_author, after_isbn, after_year, after_publisher,
                        after_series, after_series_index, after_tags, after_notes)
                    VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                        ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
                    RETURNING id
                    """,
                    [
                        .int(save.after.id), .int(save.after.revision), .text(account), .int(now),
                        .text(save.operation.uuidString), batch.map { .int($0.number) } ?? .null,
                        .int(save.before.revision), .text(save.before.title), .text(save.before.author),
                    ] + StoredDetails.values(of: save.before.details)
                        + [.text(save.after.title), .text(save.after.author)]
                        + StoredDetails.values(of: save.after.details)
                ) { $0.int(0) }
                guard let row else { throw BookFailure.invalidResponse }
                rows.append(row)
            }
            return (rows, batch)
        }
    }

    /// calibre committed the saves of `rows`.
    func markCommitted(_ rows: [Int]) throws {
        try connection.transaction(immediate: true) {
            for row in rows { try connection.run("UPDATE saves SET committed = 1 WHERE id = ?1", [.int(row)]) }
        }
    }

    /// calibre's commit failed: the rows (and the batch made with them) never happened.
    func forget(_ rows: [Int], batch: BatchID?) throws {
        try connection.transaction(immediate: true) {
            for row in rows { try connection.run("DELETE FROM saves WHERE id = ?1", [.int(row)]) }
            if let batch {
                try connection.run(
                    "DELETE FROM batches WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM saves WHERE batch = ?1)",
                    [.int(batch.number)])
            }
        }
    }

    // MARK: Reading

    /// One save as the log keeps it.
    struct Entry {
        let before: BookRecord
        let after: BookRecord
        let account: String
        let savedAt: Date
        let operation: UUID?
        let batch: BatchID?
    }

    /// The committed saves of book `id`, oldest first.
    func saves(of id: Int) throws -> [Entry] {
        try entries(where: "book_id = ?1 AND committed = 1", [.int(id)])
    }

    /// The committed saves `batch` made, oldest first; nil when the log has no such batch.
    func saves(ofBatch batch: BatchID) throws -> [Entry]? {
        let known =
            try connection.queryFirst("SELECT 1 FROM batches WHERE id = ?1", [.int(batch.number)]) { _ in true }
            ?? false
        guard known else { return nil }
        return try entries(where: "batch = ?1 AND committed = 1", [.int(batch.number)])
    }

    /// The books with a pending row (of `batch`, or of any batch): a save whose end was not seen.
    func pendingBooks(ofBatch batch: BatchID? = nil) throws -> [Int] {
        try connection.query(
            "SELECT DISTINCT book_id FROM saves WHERE committed = 0 AND (?1 IS NULL OR batch = ?1)",
            [batch.map { .int($0.number) } ?? .null]
        ) { $0.int(0) }
    }

    /// Settles book `id`'s pending rows against `current`, the book in calibre now (nil: gone):
    /// a row committed when the book is at its revision or later (calibre or Bookshelf changed
    /// it since); a book behind it, or gone, never had it. Only while holding calibre's lock,
    /// which a save holds from its pending row to its mark: a row pending then is a save that
    /// ended without its mark, never one still committing.
    func settle(book id: Int, current: BookRecord?) throws {
        let revision = current?.revision ?? Int.min
        try connection.transaction(immediate: true) {
            try connection.run(
                "UPDATE saves SET committed = 1 WHERE book_id = ?1 AND committed = 0 AND revision <= ?2",
                [.int(id), .int(revision)])
            try connection.run(
                "DELETE FROM saves WHERE book_id = ?1 AND committed = 0 AND revision > ?2", [.int(id), .int(revision)])
        }
    }

    private func entries(where condition: String, _ arguments: [SQLValue]) throws -> [Entry] {
        try connection.query(
            """
            SELECT book_id, revision, account, saved_at, operation, batch,
                before_revision, before_title, before_author, before_isbn, before_year, before_publisher,
                before_series, before_series_index, before_tags, before_notes,
                after_title, after_author, after_isbn, after_year, after_publisher,
                after_series, after_series_index, after_tags, after_notes
            FROM saves WHERE \(condition) ORDER BY revision, id
            """, arguments
        ) { row in
            let id = row.int(0)
            return Entry(
                before: BookRecord(
                    id: id, title: row.text(7), revision: row.int(6), author: row.text(8),
                    details: StoredDetails.read(row, from: 9)),
                after: BookRecord(
                    id: id, title: row.text(16), revision: row.int(1), author: row.text(17),
                    details: StoredDetails.read(row, from: 18)),
                account: row.text(2), savedAt: Date(timeIntervalSince1970: Double(row.int(3)) / 1000),
                operation: UUID(uuidString: row.text(4)), batch: row.isNull(5) ? nil : BatchID(row.int(5)))
        }
    }

    // MARK: Files

    private static func nowMilliseconds() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Makes `path` and the folders above it that are missing, each 0700, as the XDG spec asks.
    static func makeFolders(_ path: String) throws {
        var made = ""
        for component in path.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o700) == 0 || errno == EEXIST { continue }
            throw failure("cannot create the folder", made)
        }
    }

    private static func failure(_ what: String, _ path: String) -> CalibreLibrary.Failure {
        CalibreLibrary.Failure(description: "\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
