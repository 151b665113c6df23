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
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .notFound(path: path) }
        if isDirectory.boolValue { throw .cannotOpen(path: path, reason: "it is a directory") }
        let connection: Connection
        do {
            connection = try Connection(path: path, flags: SQLITE_OPEN_READONLY)
        } catch {
            throw error.catalogError(path: path)
        }
        connection.setBusyTimeout(milliseconds: 5_000)
        do {
            let findings = try connection.query("PRAGMA integrity_check(\(problemLimit))") { $0.text(0) }
            return Report(problems: findings == ["ok"] ? [] : findings)
        } catch let error as SQLiteError where error.primary == SQLITE_CORRUPT || error.primary == SQLITE_NOTADB {
            return Report(problems: [error.message])
        } catch {
            throw SQLiteCatalogError(error, path: path)
        }
    }
}
