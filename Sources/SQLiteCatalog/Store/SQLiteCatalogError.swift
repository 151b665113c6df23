import BookCatalog
import CSQLite
import SearchEngine

/// Why a catalog could not be opened or changed, in words a user can act on.
/// Opening never modifies a file it refuses.
public enum SQLiteCatalogError: Error, Equatable, Sendable {
    /// No file at the path, and the caller did not ask to create one.
    case notFound(path: String)
    /// SQLite could not open or create the file (a missing directory, say).
    case cannotOpen(path: String, reason: String)
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The file exists but holds nothing (an empty file, or an SQLite database with no
    /// tables), and the caller did not ask to create a catalog in it. It is left untouched.
    case emptyFile(path: String)
    /// The file is another program's SQLite database (tables, but no catalog schema).
    case otherDatabase(path: String)
    /// The file is an SQLite database but damaged: SQLite reports corruption, or what it read
    /// contradicts what the catalog said about itself (`CatalogDamage`).
    case corrupt(path: String)
    /// The file or its directory cannot be written (WAL needs to create files beside it).
    case readOnly(path: String)
    /// The catalog can only be read, and it needs an upgrade of its schema first (written by an
    /// older Bookshelf), which cannot be written. It was left untouched.
    case readOnlyNeedsUpgrade(path: String, found: Int, known: Int)
    /// Another program held the write lock longer than the busy timeout.
    case locked(path: String)
    /// The disk (or a size limit) is full; nothing was written.
    case diskFull(path: String)
    /// The disk is full and SQLite cannot make the catalog's shared-memory file (-shm), which
    /// even a search needs.
    case sharedMemoryDiskFull(path: String)
    /// The file was written by a newer Bookshelf; it is left untouched.
    case newerSchema(found: Int, known: Int)
    /// No account of that name in this catalog.
    case unknownAccount(String)
    /// A book handed to `insertBooks` failed validation; nothing was inserted.
    case invalidBook(index: Int, reason: BookFailure)
    /// The caller of `insertBooks` withdrew the import after its last book (its file had bad
    /// lines); nothing was inserted.
    case importWithdrawn
    /// An account name or scope that cannot be stored (empty, control characters).
    case invalidAccount(String)
    /// Any other SQLite failure, with SQLite's message.
    case failed(String)
}

extension SQLiteCatalogError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .notFound(path): "No catalog at \(path). Create one first (for example with `bookshelf sample`)."
        case let .cannotOpen(path, reason): "Cannot open the catalog \(path): \(reason)."
        case let .notADatabase(path):
            "\(path) is not a Bookshelf catalog (not an SQLite database). It was left untouched."
        case let .emptyFile(path): "\(path) is an empty file, not a Bookshelf catalog. It was left untouched."
        case let .otherDatabase(path):
            "\(path) is not a Bookshelf catalog (another program's SQLite database). It was left untouched."
        case let .corrupt(path): CatalogDamage.explanation(path: path)
        case let .readOnly(path): "The catalog \(path) cannot be written: the file or its directory is read-only."
        case let .readOnlyNeedsUpgrade(path, found, known):
            "The catalog \(path) is read-only and was written by an older Bookshelf (schema \(found); this program needs \(known)): "
                + "open it once where it can be written, or copy it somewhere writable. It was left untouched."
        case let .locked(path): "The catalog \(path) is locked by another program; try again when it has finished."
        case let .diskFull(path): "The disk holding \(path) is full; nothing was changed."
        case let .sharedMemoryDiskFull(path):
            "The disk holding \(path) is full: SQLite cannot make its shared-memory file (\(path)-shm) beside the catalog. "
                + "Free some space and try again; nothing was changed."
        case let .newerSchema(found, known):
            "This catalog was written by a newer Bookshelf (schema \(found), this program knows up to \(known)). It was left untouched; upgrade Bookshelf."
        case let .unknownAccount(name): "There is no account named \"\(name)\" in this catalog."
        case let .invalidBook(index, reason): "Book \(index + 1) cannot be stored: \(reason) Nothing was imported."
        case .importWithdrawn: "The import was withdrawn before it committed; nothing was imported."
        case let .invalidAccount(reason): "That account cannot be stored: \(reason)"
        case let .failed(message): "The catalog failed: \(message)"
        }
    }
}

extension SQLiteError {
    /// The error a user meets when opening or bulk-changing the catalog at `path`.
    func catalogError(path: String) -> SQLiteCatalogError {
        if isSharedMemoryOnFullDisk { return .sharedMemoryDiskFull(path: path) }
        if isDiskFull { return .diskFull(path: path) }
        return switch primary {
        case SQLITE_NOTADB: .notADatabase(path: path)
        case SQLITE_CORRUPT: .corrupt(path: path)
        case SQLITE_READONLY: .readOnly(path: path)
        case SQLITE_BUSY, SQLITE_LOCKED: .locked(path: path)
        case SQLITE_FULL: .diskFull(path: path)
        case SQLITE_CANTOPEN: .cannotOpen(path: path, reason: message)
        default: .failed(message)
        }
    }

    /// The failure a remote call reports. SQLite never half-applies a statement, so in every
    /// case nothing was changed.
    func bookFailure(catalogPath: String) -> BookFailure {
        if isSharedMemoryOnFullDisk {
            return .storeUnavailable("the disk is full: SQLite cannot make the catalog's shared-memory file (-shm)")
        }
        if isDiskFull { return .storeUnavailable("the disk is full") }
        return switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED: .storeUnavailable("the catalog is locked by another program; try again")
        case SQLITE_FULL: .storeUnavailable("the disk is full")
        case SQLITE_READONLY:
            .storeUnavailable("the catalog is read-only at \(catalogPath): nothing can be saved there")
        case SQLITE_CORRUPT, SQLITE_NOTADB: CatalogDamage.failure(path: catalogPath)
        case SQLITE_IOERR: .storeUnavailable("the catalog file could not be read or written (\(message))")
        case SQLITE_CANTOPEN: .storeUnavailable("the catalog file cannot be opened (\(message))")
        default: .storeUnavailable(message)
        }
    }
}

/// Runs `body`, turning SQLite failures and damage found in the catalog at `path` into the
/// remote's `BookFailure`.
func mappingFailures<T>(at path: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SQLiteError {
        throw error.bookFailure(catalogPath: path)
    } catch is CatalogDamage {
        throw CatalogDamage.failure(path: path)
    }
}

/// How a remote says that its catalog is damaged (`CatalogDamage`, SearchEngine's, or SQLite's
/// own corruption reports).
extension CatalogDamage {
    /// The one line a user reads, for SQLite's corruption reports and this alike.
    static func explanation(path: String) -> String {
        "The catalog \(path) is damaged. `bookshelf check` runs SQLite's PRAGMA integrity_check on it; "
            + "restore it from an export (`bookshelf import`) or a backup."
    }

    static func failure(path: String) -> BookFailure {
        .storeUnavailable("damaged catalog: " + explanation(path: path))
    }

    /// Whether `error`, met while reading the catalog, means it is damaged.
    static func isDamage(_ error: any Error) -> Bool {
        switch error {
        case is CatalogDamage: true
        case let error as SQLiteError: error.primary == SQLITE_CORRUPT || error.primary == SQLITE_NOTADB
        case let error as SQLiteCatalogError: if case .corrupt = error { true } else { false }
        default: false
        }
    }
}
