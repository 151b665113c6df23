import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A library's database opened so that nothing is created or written in its folder, whatever
/// its journal mode, with SQLite's limits for a file from an untrusted source:
/// - a rollback-journal database (Calibre's own mode) is opened read-only: SQLite then takes
///   only a shared lock, waiting a little while Calibre saves, and creates nothing;
/// - a database in WAL mode whose log is gone (closed by every program) is read as it is
///   (`immutable`): a read-only connection would create the log's `-shm` index beside it;
/// - one with a log beside it (Calibre has it open, or crashed; or a stray file beside a
///   rollback-journal database, which SQLite would open all the same) is copied with its log
///   into a private folder and read there, so that the log's changes are read and its index
///   is made there, not in the library.
final class CalibreDatabase {
    let connection: Connection
    /// The size of what is read, the database and its log, in bytes the disk holds: a sparse
    /// file's holes (a size of terabytes in a few pages) hold no rows, so they add no work.
    let bytes: Int
    private let copyFolder: String?

    private init(connection: Connection, bytes: Int, copyFolder: String?) {
        self.connection = connection
        self.bytes = bytes
        self.copyFolder = copyFolder
    }

    deinit {
        if let copyFolder { try? FileManager.default.removeItem(atPath: copyFolder) }
    }

    static func open(_ file: String) throws(CalibreLibrary.Failure) -> CalibreDatabase {
        let database: CalibreDatabase
        do {
            database = try opened(file)
        } catch let failure as CalibreLibrary.Failure {
            throw failure
        } catch {
            throw CalibreLibrary.Failure(description: "cannot read the Calibre library \(file): \(error)")
        }
        do {
            try harden(database.connection)
        } catch {
            throw CalibreLibrary.Failure(description: "cannot read the Calibre library \(file): \(error)")
        }
        return database
    }

    private static func opened(_ named: String) throws -> CalibreDatabase {
        let file = CalibreLibraryFile.resolved(named)
        let size = fileSize(file) ?? 0
        // A log beside the file is opened by SQLite whatever the header's mode, and its index
        // made beside it: the log is read only from the copy.
        let log = file + "-wal"
        guard let logSize = fileSize(log) else {
            let connection =
                isInWALMode(file)
                ? try Connection(
                    path: ReadOnlyCatalog.immutableURI(file), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
                : try Connection(path: file, flags: SQLITE_OPEN_READONLY)
            return CalibreDatabase(connection: connection, bytes: size, copyFolder: nil)
        }
        let folder = try privateFolder()
        do {
            let copy = folder + "/metadata.db"
            try copyBytes(from: file, to: copy)
            try copyBytes(from: log, to: copy + "-wal")
            // Read-write on the copy, which is this program's: the log is replayed there.
            let connection = try Connection(path: copy, flags: SQLITE_OPEN_READWRITE)
            return CalibreDatabase(connection: connection, bytes: size + logSize, copyFolder: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// The library's own file, where it lies, for a library worked on in place: read-write as
    /// calibre opens it (its rollback journal is made beside it while a save commits, as
    /// calibre's own is), or read-only. The same limits as a read for an import, bar writing.
    static func openInPlace(_ named: String, writable: Bool) throws(CalibreLibrary.Failure) -> CalibreDatabase {
        let file = CalibreLibraryFile.resolved(named)
        do {
            let connection = try Connection(
                path: file, flags: writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY)
            sqlite3_limit(connection.handle, SQLITE_LIMIT_LENGTH, Int32(CalibreLibrary.maximumValueBytes))
            try connection.execute("PRAGMA trusted_schema = OFF")
            try connection.execute("PRAGMA cell_size_check = ON")
            if !writable { try connection.execute("PRAGMA query_only = ON") }
            // calibre's own settings for its connections (db/backend.py).
            try connection.execute("PRAGMA foreign_keys = ON")
            // calibre waits ten seconds for a lock; a write here waits no longer than that either.
            connection.setBusyTimeout(milliseconds: 10_000)
            return CalibreDatabase(connection: connection, bytes: fileSize(file) ?? 0, copyFolder: nil)
        } catch {
            throw CalibreLibrary.Failure(description: "cannot open the Calibre library \(named): \(error)")
        }
    }

    /// SQLite's advice for a database file that may be hostile, and no writing at all.
    private static func harden(_ connection: Connection) throws(SQLiteError) {
        sqlite3_limit(connection.handle, SQLITE_LIMIT_LENGTH, Int32(CalibreLibrary.maximumValueBytes))
        try connection.execute("PRAGMA trusted_schema = OFF")
        try connection.execute("PRAGMA cell_size_check = ON")
        try connection.execute("PRAGMA query_only = ON")
        // Calibre may be saving while the library is read: wait for it a little, as a reader.
        connection.setBusyTimeout(milliseconds: 5_000)
    }

    /// Bytes 18 and 19 of a database's header are 2 in WAL mode (sqlite.org/fileformat.html).
    private static func isInWALMode(_ file: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: file) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 || header[header.startIndex + 19] == 2
    }

    /// The file's size, no more than the disk holds of it; nil when there is no file.
    private static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return min(Int(status.st_size), Int(status.st_blocks) * 512)
    }

    /// A folder only this user can enter, in the temporary directory.
    private static func privateFolder() throws -> String {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("bookshelf-calibre-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CalibreLibrary.Failure(
                description:
                    "cannot copy the Calibre library's write-ahead log to read it: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// The bytes of `source` (a link followed) into a new file `target`, its holes kept as
    /// holes: a sparse file (terabytes long, a few pages on disk) costs what its data costs.
    private static func copyBytes(from source: String, to target: String) throws(CalibreLibrary.Failure) {
        let input = Glibc.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CalibreLibraryFile.unreadable(source, errno: errno) }
        defer { close(input) }
        let output = Glibc.open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw cannotCopy(source) }
        defer { close(output) }
        var status = stat()
        guard fstat(input, &status) == 0 else { throw cannotCopy(source) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: off_t = 0
        // Each extent of data, from SEEK_DATA to the next SEEK_HOLE; ENXIO past the last one.
        while offset < status.st_size {
            let data = lseek(input, offset, seekData)
            guard data >= 0 else { break }
            let hole = lseek(input, data, seekHole)
            guard hole >= data else { throw cannotCopy(source) }
            var position = data
            while position < hole {
                let count = buffer.withUnsafeMutableBytes {
                    pread(input, $0.baseAddress, min($0.count, Int(hole - position)), position)
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw cannotCopy(source) }
                var written = 0
                while written < count {
                    let step = buffer.withUnsafeBytes {
                        pwrite(output, $0.baseAddress! + written, count - written, position + off_t(written))
                    }
                    if step < 0, errno == EINTR { continue }
                    guard step > 0 else { throw cannotCopy(source) }
                    written += step
                }
                position += off_t(count)
            }
            offset = hole
        }
        guard ftruncate(output, status.st_size) == 0 else { throw cannotCopy(source) }
    }

    #if os(Linux)
        // glibc declares them only under _GNU_SOURCE, which a module cannot set.
        private static let seekData: Int32 = 3
        private static let seekHole: Int32 = 4
    #else
        private static let seekData = SEEK_DATA
        private static let seekHole = SEEK_HOLE
    #endif

    private static func cannotCopy(_ source: String) -> CalibreLibrary.Failure {
        CalibreLibrary.Failure(description: "cannot copy \(source) to read it: \(String(cString: strerror(errno)))")
    }
}
