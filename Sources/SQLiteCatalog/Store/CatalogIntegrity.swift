import CSQLite
import Foundation

/// `bookshelf check`: SQLite's own `PRAGMA integrity_check` over the whole catalog file (every
/// page, every index against its table). Reads only: the file is opened read-only, nothing is
/// migrated, no index is built, so a damaged or read-only catalog can be checked as it is.
public enum CatalogIntegrity {
    /// What the check found: nothing when the catalog is healthy.
    public struct Report: Sendable, Equatable {
        /// SQLite's findings, one line each, at most `problemLimit` of them.
        public let problems: [String]
        public var isHealthy: Bool { problems.isEmpty }
    }

    /// SQLite stops reporting after this many problems: a badly damaged file has thousands.
    public static let problemLimit = 20

    public static func check(path: String) throws(SQLiteCatalogError) -> Report {
        try CatalogPathKind.requireFileOrNothing(at: path)
        guard CatalogPathKind(path: path) == .regularFile else { throw .notFound(path: path) }
        func findings(_ name: String, flags: Int32) throws -> [String] {
            let connection = try Connection(path: name, flags: flags)
            connection.setBusyTimeout(milliseconds: 5_000)
            return try connection.query("PRAGMA integrity_check(\(problemLimit))") { $0.text(0) }
        }
        do {
            let found: [String]
            do {
                found = try findings(path, flags: SQLITE_OPEN_READONLY)
            } catch let error as SQLiteError where error.primary == SQLITE_CANTOPEN || error.primary == SQLITE_READONLY
            {
                // A WAL catalog in a directory that cannot hold its -shm file (`ReadOnlyCatalog`).
                found = try findings(ReadOnlyCatalog.immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
            }
            return Report(problems: found == ["ok"] ? [] : found)
        } catch let error as SQLiteError where error.primary == SQLITE_CORRUPT || error.primary == SQLITE_NOTADB {
            return Report(problems: [error.message])
        } catch {
            throw SQLiteCatalogError(error, path: path)
        }
    }
}
