import CSQLite
import Foundation

/// What Bookshelf has seen of a Calibre library's books, kept in the user's cache beside the
/// library's search index (never in the library's folder): each book's `last_modified`, the
/// change marker at which it last changed, and the books removed since. calibre keeps no change
/// counter and leaves no trace of a deleted book, so the marker the search engine catches up
/// with (`SearchSource.latestChange`) is made here: every sync that finds the library changed
/// (a book added, its `last_modified` moved, a book gone) is one step of it.
///
/// The stored index's record (`SearchSource.storedIndexRecord`) is kept in the same file: a
/// marker means something only with the books it was counted over, so losing one loses both.
/// The file is derived data: one that cannot be read as this code writes it, or that is of
/// another library, is replaced by a new one (and the index is then rebuilt).
final class CalibreChangeLedger {
    let connection: Connection
    let path: String

    private static let schema = """
        CREATE TABLE IF NOT EXISTS ledger(id INTEGER PRIMARY KEY CHECK (id = 1), library TEXT NOT NULL,
            sequence INTEGER NOT NULL, fingerprint TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS seen(id INTEGER PRIMARY KEY, stamp TEXT NOT NULL, seq INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS seen_by_seq ON seen(seq);
        CREATE TABLE IF NOT EXISTS removed(id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS removed_by_seq ON removed(seq);
        CREATE TABLE IF NOT EXISTS stored_index(format INTEGER PRIMARY KEY, sequence INTEGER NOT NULL,
            book_count INTEGER NOT NULL, header TEXT NOT NULL);
        """

    private init(connection: Connection, path: String) {
        self.connection = connection
        self.path = path
    }

    /// The ledger of `library` at `path` (made if missing, replaced if unusable).
    static func open(path: String, library: String) throws -> CalibreChangeLedger {
        if let ledger = try? opened(path: path, library: library) { return ledger }
        // Not ours, damaged, or of another library: derived data, made anew.
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return try opened(path: path, library: library)
    }

    private static func opened(path: String, library: String) throws -> CalibreChangeLedger {
        let connection = try Connection(
            path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW)
        try connection.execute("PRAGMA trusted_schema = OFF")
        connection.setBusyTimeout(milliseconds: 5_000)
        try connection.execute(schema)
        // A file of this name that is not this code's ledger fails here, and is made anew.
        for check in [
            "SELECT library, sequence, fingerprint FROM ledger LIMIT 1", "SELECT id, stamp, seq FROM seen LIMIT 1",
            "SELECT id, seq FROM removed LIMIT 1",
            "SELECT format, sequence, book_count, header FROM stored_index LIMIT 1",
        ] {
            _ = try connection.query(check) { _ in () }
        }
        let owner = try connection.queryFirst("SELECT library FROM ledger WHERE id = 1") { $0.text(0) }
        if owner == nil {
            _ = try connection.run(
                "INSERT INTO ledger(id, library, sequence, fingerprint) VALUES (1, ?1, 0, '')", [.text(library)])
        } else if owner != library {
            throw CalibreLibrary.Failure(description: "the change ledger is of another library")
        }
        return CalibreChangeLedger(connection: connection, path: path)
    }

    /// The latest marker, and the fingerprint it was counted at.
    func state() throws -> (sequence: Int, fingerprint: String) {
        try connection.queryFirst("SELECT sequence, fingerprint FROM ledger WHERE id = 1") { ($0.int(0), $0.text(1)) }
            ?? (0, "")
    }

    /// Brings the ledger up to the books `read` gives (every book's id and `last_modified`, read
    /// in the library's current read) unless `fingerprint`, the library file's stamp
    /// (`CalibreFileStamp`) read before them, is the one recorded at the last sync: then nothing
    /// was written since, and nothing is read. Nil (a stamp that cannot tell) compares every book.
    /// One write of the ledger. Answers the marker of that state.
    func sync(fingerprint: String?, read: () throws -> [(id: Int, stamp: String)]) throws -> Int {
        let (sequence, recorded) = try state()
        if let fingerprint, fingerprint == recorded { return sequence }
        return try connection.transaction(immediate: true) {
            // Another process may have synced meanwhile.
            let (sequence, recorded) = try state()
            if let fingerprint, fingerprint == recorded { return sequence }
            let books = try read()
            var seen: [Int: String] = [:]
            seen.reserveCapacity(books.count)
            for (id, stamp) in try connection.query("SELECT id, stamp FROM seen", row: { ($0.int(0), $0.text(1)) }) {
                seen[id] = stamp
            }
            let next = sequence + 1
            var changed = false
            for (id, stamp) in books {
                if let before = seen.removeValue(forKey: id), before == stamp { continue }
                changed = true
                _ = try connection.run(
                    "INSERT INTO seen(id, stamp, seq) VALUES (?1, ?2, ?3) ON CONFLICT(id) DO UPDATE SET stamp = ?2, seq = ?3",
                    [.int(id), .text(stamp), .int(next)])
                _ = try connection.run("DELETE FROM removed WHERE id = ?1", [.int(id)])
            }
            // What is left was there at the last sync and is not now.
            for id in seen.keys {
                changed = true
                _ = try connection.run("DELETE FROM seen WHERE id = ?1", [.int(id)])
                _ = try connection.run(
                    "INSERT INTO removed(id, seq) VALUES (?1, ?2) ON CONFLICT(id) DO UPDATE SET seq = ?2",
                    [.int(id), .int(next)])
            }
            let reached = changed ? next : sequence
            _ = try connection.run(
                "UPDATE ledger SET sequence = ?1, fingerprint = ?2 WHERE id = 1",
                [.int(reached), .text(fingerprint ?? "")])
            return reached
        }
    }

    /// The ids of the books changed after `marker` up to `upTo`, at most `limit`.
    func changed(since marker: Int, upTo: Int, limit: Int) throws -> [Int] {
        try connection.query(
            "SELECT id FROM seen WHERE seq > ?1 AND seq <= ?2 LIMIT ?3", [.int(marker), .int(upTo), .int(limit)]
        ) { $0.int(0) }
    }

    /// The ids of the books removed after `marker` up to `upTo`, at most `limit`.
    func removed(since marker: Int, upTo: Int, limit: Int) throws -> [Int] {
        try connection.query(
            "SELECT id FROM removed WHERE seq > ?1 AND seq <= ?2 LIMIT ?3", [.int(marker), .int(upTo), .int(limit)]
        ) { $0.int(0) }
    }

    /// How many books changed or were removed after `marker` up to `upTo`, counting to `limit`.
    func changeCount(since marker: Int, upTo: Int, limit: Int) throws -> Int {
        try connection.queryFirst(
            """
            SELECT count(*) FROM (SELECT 1 FROM seen WHERE seq > ?1 AND seq <= ?2
                UNION ALL SELECT 1 FROM removed WHERE seq > ?1 AND seq <= ?2 LIMIT ?3)
            """, [.int(marker), .int(upTo), .int(limit)]
        ) { $0.int(0) } ?? 0
    }

    /// The record of the stored index in `format`.
    func storedIndex(format: Int) throws -> (sequence: Int, count: Int, header: String)? {
        try connection.queryFirst(
            "SELECT sequence, book_count, header FROM stored_index WHERE format = ?1", [.int(format)]
        ) { ($0.int(0), $0.int(1), $0.text(2)) }
    }

    /// Records the stored index unless one of a later marker is recorded; `install` puts the
    /// file in place inside the same write, so that the record and the file change together.
    func recordStoredIndex(format: Int, sequence: Int, count: Int, header: String, install: () throws -> Void)
        throws -> Bool
    {
        try connection.transaction(immediate: true) {
            let stored =
                try connection.queryFirst(
                    "SELECT max(sequence) FROM stored_index", row: { $0.isNull(0) ? nil : $0.int(0) }) ?? nil
            if let stored, stored > sequence { return false }
            try install()
            _ = try connection.run("DELETE FROM stored_index")
            _ = try connection.run(
                "INSERT INTO stored_index(format, sequence, book_count, header) VALUES (?1, ?2, ?3, ?4)",
                [.int(format), .int(sequence), .int(count), .text(header)])
            return true
        }
    }
}
