import CSQLite
import Foundation

/// A catalog that cannot be written, opened for reading: on read-only media, in a directory
/// the user may not write, or a file of 0444. Nothing is written to it: no WAL mode switch, no
/// migration, no stored search index (it is built in memory). Writes fail with SQLITE_READONLY
/// (`PRAGMA query_only`), which a save reports as "the catalog is read-only at PATH".
enum ReadOnlyCatalog {
    static func open(path: String, busyTimeout: Duration) throws(SQLiteCatalogError) -> Connection {
        do {
            return try prepared(
                Connection(path: path, flags: SQLITE_OPEN_READONLY), path: path, busyTimeout: busyTimeout)
        } catch let error as SQLiteError where error.primary == SQLITE_CANTOPEN || error.primary == SQLITE_READONLY {
            // A WAL catalog is read through its -shm file, which a read-only directory cannot
            // hold: read the file as it is. Nobody can be writing it there (no -wal either).
            do {
                return try prepared(
                    Connection(path: immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI), path: path,
                    busyTimeout: busyTimeout)
            } catch {
                throw SQLiteCatalogError(error, path: path)
            }
        } catch {
            throw SQLiteCatalogError(error, path: path)
        }
    }

    /// The connection, once its schema is found to be this program's: the refusals of a
    /// writable open, and one more, since an older schema cannot be migrated here.
    private static func prepared(_ connection: Connection, path: String, busyTimeout: Duration) throws -> Connection {
        connection.setBusyTimeout(busyTimeout)
        let found = try Schema.version(of: connection)
        if found > Schema.currentVersion {
            throw SQLiteCatalogError.newerSchema(found: found, known: Schema.currentVersion)
        }
        if found < 0 { throw SQLiteCatalogError.otherDatabase(path: path) }
        if found == 0 {
            let tables = try connection.queryFirst("SELECT count(*) FROM sqlite_schema") { $0.int(0) } ?? 0
            throw tables > 0 ? SQLiteCatalogError.otherDatabase(path: path) : SQLiteCatalogError.emptyFile(path: path)
        }
        if found < Schema.currentVersion {
            throw SQLiteCatalogError.readOnlyNeedsUpgrade(path: path, found: found, known: Schema.currentVersion)
        }
        try connection.execute("PRAGMA query_only = ON")
        return connection
    }

    /// The file read as it is, without its -shm file (open with SQLITE_OPEN_URI).
    static func immutableURI(_ path: String) -> String {
        // The characters a `file:` URI gives a meaning to, escaped.
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        return "file:" + escaped + "?immutable=1"
    }
}
