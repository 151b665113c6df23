import BookCatalog
import CommandLineOptions
import Foundation
import SQLiteCatalog
import TerminalSafeText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens the catalog a command uses. Commands that make catalogs (setup, import, sample) and
/// the interactive app at the default location create a missing one, with its directory,
/// filled with `SampleBooks.starter`, so a first run shows real books. Everything else, and
/// the app at an explicit path, refuses a missing catalog: a mistyped `--db` must never
/// turn into a catalog of sample books that a script then takes for real data.
///
/// The new catalog is built under a temporary name and then linked into place, so a run that
/// is interrupted never leaves a half-filled catalog that later runs would take as complete,
/// and two first runs at once end with one catalog, not two sets of sample books.
enum CatalogOpener {
    enum Creation {
        /// A missing catalog (or an empty file in its place) is made, with the starter sample.
        case starterIfMissing
        /// A missing catalog is made with the starter accounts and no books (an import's
        /// books must not be mixed with sample books).
        case accountsOnlyIfMissing
        /// A missing catalog is an error naming the commands that make one.
        case never
    }

    /// The line that says a catalog was made, with `sampleBooks` or none.
    static func createdNote(path: String, sampleBooks: Int?) -> String {
        let names = SampleBooks.starter.accounts.map(\.name).joined(separator: ", ")
        let contents = sampleBooks.map { "\(NumberText.grouped($0)) sample books and" } ?? "no books yet and"
        return "bookshelf: created a new catalog at \(path.printable) with \(contents) the accounts \(names)"
    }

    /// Says on standard error when a catalog was created (one line), and tells `created` how
    /// many sample books it holds (the app's first screen says so too).
    /// `announcing: false` leaves the line to the caller (`createdNote`): an import says it
    /// only once its books are in, as a catalog made for a failed import is removed again.
    static func open(
        path: String, console: Console, creating creation: Creation, announcing: Bool = true,
        created: (_ sampleBooks: Int) -> Void = { _ in }
    ) throws(CommandFailure) -> SQLiteCatalog {
        let state = FileState(path)
        if state != .present {
            guard creation != .never else {
                if state == .empty { throw CommandFailure(emptyFileMessage(path)) }
                throw CommandFailure(missingMessage(path))
            }
            let withSample = creation == .starterIfMissing
            let books = try createStarter(at: path, replacingEmptyFile: state == .empty, withSample: withSample)
            if let books {
                if announcing { console.note(createdNote(path: path, sampleBooks: withSample ? books : nil)) }
                created(withSample ? books : 0)
            }
        }
        do {
            return try SQLiteCatalog.open(path: path, create: false)
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
    }

    /// Removes a catalog this run created and no one else has used yet, with SQLite's side
    /// files. Only for a closed catalog that was missing before the run.
    static func remove(newCatalogAt path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// "no catalog at PATH (create one with ...)": the line a mistyped path earns.
    static func missingMessage(_ path: String) -> String {
        "no catalog at \(path.printable) (create one with `bookshelf setup --db \(path.printable)` or `bookshelf import`)"
    }

    static func emptyFileMessage(_ path: String) -> String {
        "\(path.printable) is an empty file, not a catalog; it was left untouched "
            + "(`bookshelf setup --db \(path.printable)` makes it one)"
    }

    /// What is at a catalog path before opening it. An empty file is what `touch` or a failed
    /// copy leaves: no catalog yet, but never written to unless the user asked to create one.
    enum FileState {
        case missing, empty, present

        /// The path itself, a symlink not followed (opening one says what is wrong with it). One
        /// `lstat`: Foundation's `attributesOfItem` also looked the owner and group up by name,
        /// reading /etc/passwd and /etc/group at every command's start.
        init(_ path: String) {
            var status = stat()
            guard lstat(path, &status) == 0 else {
                self = stat(path, &status) == 0 ? .present : .missing
                return
            }
            self = status.st_mode & S_IFMT == S_IFREG && status.st_size == 0 ? .empty : .present
        }
    }

    /// The account `name`; when `name` is nil, the first editor by name, else the first account
    /// by name: the default of `--account` for the app and every command (`CatalogOptions.account`).
    static func account(named name: String?, in catalog: SQLiteCatalog) throws(CommandFailure) -> Account {
        let accounts: [Account]
        do {
            accounts = try catalog.accounts().sorted { $0.name < $1.name }
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard let name else {
            guard let chosen = firstEditor(of: accounts) else { throw CommandFailure("the catalog has no accounts") }
            return chosen
        }
        guard let account = accounts.first(where: { $0.name == name }) else {
            let known = accounts.map { TerminalText.sanitized($0.name) }.joined(separator: ", ")
            throw CommandFailure(
                "there is no account named \"\(name.printable)\" (accounts: \(known.isEmpty ? "none" : known))")
        }
        return account
    }

    /// The first editor of `accounts` (sorted by name), else the first account.
    static func firstEditor(of accounts: [Account]) -> Account? {
        accounts.first { $0.role == .editor } ?? accounts.first
    }

    /// Builds the starter catalog (with or without its sample books) beside `path` and links it into place (renames it over an
    /// empty file). Returns the number of books, or nil if another process created the
    /// catalog first.
    private static func createStarter(at path: String, replacingEmptyFile: Bool, withSample: Bool)
        throws(CommandFailure) -> Int?
    {
        // The default catalog is private, whatever the umask: its folder 0700 (as the XDG
        // base directory specification asks of folders it makes) and its file 0600, which
        // SQLite gives its -wal and -shm files and the store its index files. A catalog the
        // user named keeps the umask: it may be shared on purpose.
        let isPrivate = path == CatalogLocation.defaultPath(environment: ProcessInfo.processInfo.environment)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: isPrivate ? [.posixPermissions: 0o700] : nil)
            } catch {
                throw CommandFailure(
                    "cannot create the directory \(directory.printable) for the catalog: \(error.localizedDescription)")
            }
        }
        let temporary = path + ".creating-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { removeDatabaseFiles(temporary) }
        var books = 0
        if isPrivate {
            let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0, fchmod(descriptor, 0o600) == 0 else {
                throw CommandFailure("cannot create the catalog \(path.printable): \(String(cString: strerror(errno)))")
            }
            close(descriptor)
        }
        do {
            // The catalog is closed (and its WAL folded into the file) when it goes out of
            // scope at the end of this block, before the file is linked into place.
            let catalog = try SQLiteCatalog.open(path: temporary, create: true)
            for account in SampleBooks.starter.accounts { try catalog.addAccount(account) }
            for shelf in SampleBooks.starter.shelves where withSample {
                books += try catalog.insertBooks(shelf.books, scope: shelf.scope, progress: nil)
            }
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        if replacingEmptyFile {
            // Still empty: nobody made it a catalog meanwhile (else theirs is kept).
            guard FileState(path) == .empty else { return nil }
            if rename(temporary, path) == 0 { return books }
            throw CommandFailure("cannot replace the empty file \(path.printable): \(String(cString: strerror(errno)))")
        }
        if link(temporary, path) == 0 { return books }
        let reason = errno
        if reason == EEXIST { return nil }
        // Some file systems have no hard links; a rename is as good when nobody raced us.
        if rename(temporary, path) == 0 { return books }
        throw CommandFailure("cannot create the catalog \(path.printable): \(String(cString: strerror(reason)))")
    }

    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
