import BookCatalog
import Foundation
import SQLiteCatalog

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the catalog a command uses. A catalog that does not exist yet is created, with its
/// directory, and filled with `SampleBooks.starter`, so a first run shows real books.
///
/// The new catalog is built under a temporary name and then linked into place, so a run that
/// is interrupted never leaves a half-filled catalog that later runs would take as complete,
/// and two first runs at once end with one catalog, not two sets of sample books.
enum CatalogOpener {
    /// Says on standard error when a catalog was created (one line).
    static func open(path: String, console: Console) throws(CommandFailure) -> SQLiteCatalog {
        if !FileManager.default.fileExists(atPath: path) {
            let books = try createStarter(at: path)
            if let books {
                let names = SampleBooks.starter.accounts.map(\.name).joined(separator: ", ")
                console.note("bookshelf: created a new catalog at \(path.printable) with \(ProgressLine.grouped(books)) sample books and the accounts \(names)")
            }
        }
        do {
            return try SQLiteCatalog.open(path: path, create: false)
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
    }

    /// The account `name`, or the first account by name when `name` is nil.
    static func account(named name: String?, in catalog: SQLiteCatalog) throws(CommandFailure) -> Account {
        let accounts: [Account]
        do {
            accounts = try catalog.accounts().sorted { $0.name < $1.name }
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard let name else {
            guard let first = accounts.first else { throw CommandFailure("the catalog has no accounts") }
            return first
        }
        guard let account = accounts.first(where: { $0.name == name }) else {
            let known = accounts.map { TerminalText.sanitized($0.name) }.joined(separator: ", ")
            throw CommandFailure("there is no account named \"\(name.printable)\" (accounts: \(known.isEmpty ? "none" : known))")
        }
        return account
    }

    /// Builds the starter catalog beside `path` and links it into place. Returns the number
    /// of books, or nil if another process created the catalog first.
    private static func createStarter(at path: String) throws(CommandFailure) -> Int? {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CommandFailure("cannot create the directory \(directory.printable) for the catalog: \(error.localizedDescription)")
            }
        }
        let temporary = path + ".creating-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { removeDatabaseFiles(temporary) }
        var books = 0
        do {
            // The catalog is closed (and its WAL folded into the file) when it goes out of
            // scope at the end of this block, before the file is linked into place.
            let catalog = try SQLiteCatalog.open(path: temporary, create: true)
            for account in SampleBooks.starter.accounts { try catalog.addAccount(account) }
            for shelf in SampleBooks.starter.shelves {
                books += try catalog.insertBooks(shelf.books, scope: shelf.scope, progress: nil)
            }
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
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
