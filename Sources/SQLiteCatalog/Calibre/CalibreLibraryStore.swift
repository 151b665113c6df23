import BookCatalog
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Calibre library worked on where it lies (`bookshelf --db "~/Calibre Library"`): its
/// `metadata.db` read and written in place, with calibre's own semantics (`CalibreBookWrite`),
/// one account (the library's owner), and calibre's single-instance lock respected
/// (`CalibreInstanceLock`). Opening checks what a session needs: the file, its tables, its
/// schema (`CalibreSchema`), and whether it may be written now.
public struct CalibreLibraryStore: Sendable {
    /// The library's `metadata.db`.
    public let file: String
    /// The library's folder, which the header names.
    public let folder: String
    /// calibre's id of the library (`library_id.uuid`): what its search index is kept under.
    public let libraryID: String
    /// Why nothing may ever be written here (a schema this code does not know), or nil.
    public let permanentlyReadOnly: String?
    /// The one account: the user who owns the library.
    public let account: Account

    /// The scope of the library's one account.
    public static let scope = "calibre"

    /// What the app and a command say while calibre holds its lock.
    public static let calibreIsRunning = "calibre is running; this library is read-only here until it closes"

    /// True when `path` names a Calibre library rather than a catalog: a folder holding a
    /// `metadata.db`, or a file of that name.
    public static func isLibrary(_ path: String) -> Bool {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            return access((path as NSString).appendingPathComponent("metadata.db"), F_OK) == 0
        }
        return (path as NSString).lastPathComponent == "metadata.db"
    }

    /// Where the library's search index and change ledger are kept: the user's cache folder
    /// (`$XDG_CACHE_HOME/bookshelf/`), named by `libraryID`.
    let indexPlace: CalibreIndexPlace

    /// Opens the library at `path` (its folder or its `metadata.db`), checked as an import
    /// checks one: a regular file, tables where calibre makes tables, and a known schema.
    /// `environment` says where the user's cache folder is (`XDG_CACHE_HOME`, `HOME`).
    public static func open(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CalibreLibrary.Failure) -> CalibreLibraryStore {
        let file = try CalibreLibraryFile.locate(path)
        let writable = access(file, W_OK) == 0
        let database = try CalibreDatabase.openInPlace(file, writable: false)
        let reader = CalibreReader(
            database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: database.bytes))
        try CalibreTables.requireTables(reader, CalibreTables.readAndWrittenInPlace)
        let schema = try CalibreSchema.read(reader)
        let libraryID =
            try reader.rows(of: "its library_id table", "SELECT uuid FROM library_id ORDER BY id LIMIT 1") {
                $0.text(0)
            }.first ?? ""
        var reason = schema.reasonNotWritable
        if reason == nil, !writable { reason = "this user may not write \(file), so the library is read-only here" }
        let folder = (CalibreLibraryFile.resolved(file) as NSString).deletingLastPathComponent
        return CalibreLibraryStore(
            file: file, folder: folder, libraryID: libraryID, permanentlyReadOnly: reason,
            account: Account(name: ownerName, role: reason == nil ? .editor : .reader, scope: scope),
            indexPlace: CalibreIndexPlace(libraryID: libraryID, libraryFile: file, environment: environment))
    }

    /// The books of the library Bookshelf leaves out, each with why, read from the whole
    /// library (as `bookshelf check` reads it).
    public func booksNotShown() throws(CalibreLibrary.Failure) -> [CalibreBookNotShown] {
        let database = try CalibreDatabase.openInPlace(file, writable: false)
        let reader = CalibreReader(
            database: database, file: file, budget: CalibreLibrary.WorkBudget(forFileOf: database.bytes))
        return try CalibreBooks.read(reader).notShown
    }

    /// Whether calibre (its GUI, `calibre-server` or `calibredb`) holds its lock now; nil
    /// when this system's lock cannot be looked at.
    public static func calibreIsHoldingItsLock() -> Bool? { CalibreInstanceLock.isHeld() }

    /// A session's remote on a connection of its own. Its saves and batches are recorded in
    /// `stateFolder` (`$XDG_STATE_HOME/bookshelf`, `CalibreSaveLog`); without one, history
    /// shows the book as it is and batches are refused.
    /// `forOneCommand`: the session serves a command that does its work and ends (`bookshelf
    /// search`, `edit`...), so its index works nothing out ahead for later searches.
    public func remote(forOneCommand: Bool = false, stateFolder: String? = nil) throws(CalibreLibrary.Failure)
        -> CalibreBookRemote
    {
        try remote(lockName: CalibreInstanceLock.name, forOneCommand: forOneCommand, stateFolder: stateFolder)
    }

    /// `remote()` whose index build reads the books as `buildPaging` says: tests pause it between
    /// pages to write as calibre does meanwhile.
    package func remote(buildPaging: CalibreBuildPaging) throws(CalibreLibrary.Failure) -> CalibreBookRemote {
        try remote(lockName: CalibreInstanceLock.name, buildPaging: buildPaging)
    }

    /// `remote(stateFolder:)` taking the lock of `lockName`: tests must never take the user's
    /// calibre's. `buildPaging`: how its index build reads the books (tests pause it between pages).
    func remote(
        lockName: String, forOneCommand: Bool = false, stateFolder: String? = nil,
        buildPaging: CalibreBuildPaging = .init()
    ) throws(CalibreLibrary.Failure) -> CalibreBookRemote {
        let database = try CalibreDatabase.openInPlace(file, writable: permanentlyReadOnly == nil)
        if permanentlyReadOnly == nil {
            do {
                try CalibreFunctions.register(on: database.connection)
            } catch {
                throw CalibreLibrary.Failure(description: "cannot open the Calibre library \(file): \(error)")
            }
        }
        var log: CalibreSaveLog?
        var logProblem: String?
        if let stateFolder {
            do {
                log = try CalibreSaveLog.open(stateFolder: stateFolder, libraryID: libraryID)
                if log == nil { logProblem = "this library's uuid cannot name Bookshelf's record of it" }
            } catch {
                logProblem = "cannot keep Bookshelf's record of this library in \(stateFolder): \(error)"
            }
        } else {
            logProblem = "Bookshelf has no state folder ($XDG_STATE_HOME or $HOME) to keep batches of this library in"
        }
        do {
            return try CalibreBookRemote(
                database: database, file: file, account: account, readOnly: permanentlyReadOnly, place: indexPlace,
                lockName: lockName, keepsBroadAnswers: !forOneCommand, log: log, logProblem: logProblem,
                buildPaging: buildPaging)
        } catch let failure as CalibreLibrary.Failure {
            throw failure
        } catch {
            throw CalibreLibrary.Failure(description: "cannot keep the search index of \(file) in the cache: \(error)")
        }
    }

    /// The login name of this process's user, the library's one account.
    private static var ownerName: String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "owner"
    }
}

/// Opens the library's one account for the model.
public struct CalibreConnector: CatalogConnector {
    public let store: CalibreLibraryStore
    /// Where its saves and batches are recorded (`CalibreLibraryStore.remote(stateFolder:)`).
    public let stateFolder: String?

    public init(store: CalibreLibraryStore, stateFolder: String?) {
        self.store = store
        self.stateFolder = stateFolder
    }

    public func accountNames() async throws -> [String] { [store.account.name] }
    public func accountRoles() async throws -> [String: AccountRole] { [store.account.name: store.account.role] }
    public func accountScopes() async throws -> [String: String] { [store.account.name: store.account.scope] }
    public func requiresPassword(for account: String) -> Bool { false }
    /// A book's revision is its `last_modified`: said as the time calibre or Bookshelf changed it.
    public var revisionStyle: RevisionStyle { .lastModified }

    public func connect(account: String, password: String?) async throws -> any SearchableBookRemote {
        guard account == store.account.name else { throw BookFailure.notAllowed }
        do {
            return try store.remote(stateFolder: stateFolder)
        } catch {
            throw BookFailure.storeUnavailable(error.description)
        }
    }
}
