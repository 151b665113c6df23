import BookshelfModel
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The catalogs and libraries the app opened recently, newest first, for the account switcher
/// (issue 62, ask 7): `recent-catalogs.json` in the state folder (`StateFolder`), the folder made
/// 0700 and the file 0600. Each entry is a kind and how to open it again; nothing else of the
/// catalog, and never a password (a PostgreSQL entry is its connection string with the password
/// taken out, `PostgresConnector.withoutPassword`).
///
/// Bounded: at most `maximumEntries` entries of at most `maximumLocationBytes` each, in a file
/// of at most `maximumBytes`. A file that is larger, damaged or not a regular file is read as
/// empty and, when the next catalog is recorded, set aside under another name (kept for a
/// person to look at, never deleted) before a new list is written. Writes are atomic (a
/// temporary file, flushed, renamed over the old one), so a run killed while writing leaves
/// the previous list whole. Two runs recording at once: the last rename wins, the other's
/// entry is missing until that catalog is opened again.
struct RecentCatalogFile: Sendable {
    static let name = "recent-catalogs.json"
    static let maximumEntries = 10
    static let maximumLocationBytes = 4096
    static let maximumBytes = 64 * 1024

    let folder: String
    var path: String { folder + "/" + Self.name }

    /// One entry as it is kept.
    struct Entry: Codable, Equatable, Sendable {
        /// `RecentCatalog.Kind`'s raw value; an entry of a kind this version does not know is skipped.
        let kind: String
        let location: String

        init(kind: RecentCatalog.Kind, location: String) {
            self.kind = kind.rawValue
            self.location = location
        }

        var catalogKind: RecentCatalog.Kind? { RecentCatalog.Kind(rawValue: kind) }

        var isKeepable: Bool {
            catalogKind != nil && !location.isEmpty
                && location.utf8.count <= RecentCatalogFile.maximumLocationBytes && !location.contains("\0")
        }
    }

    private struct Content: Codable {
        var version = 1
        var catalogs: [Entry]
    }

    /// Why the file was not read as a list.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The entries, newest first: empty when there is no file, or it cannot be read.
    func entries() -> [Entry] {
        (try? readEntries()) ?? []
    }

    /// The entries, or why the file is not a list (nil: there is no file).
    func readEntries() throws -> [Entry]? {
        guard let bytes = try Self.read(path) else { return nil }
        guard bytes.count <= Self.maximumBytes else {
            throw Unreadable(description: "larger than \(Self.maximumBytes) bytes")
        }
        let content: Content
        do {
            content = try JSONDecoder().decode(Content.self, from: Data(bytes))
        } catch {
            throw Unreadable(description: "not a list of catalogs")
        }
        guard content.version == 1 else { throw Unreadable(description: "version \(content.version) is not known") }
        var seen: [Entry] = []
        for entry in content.catalogs where entry.isKeepable && !seen.contains(entry) {
            seen.append(entry)
            if seen.count == Self.maximumEntries { break }
        }
        return seen
    }

    /// Puts `entry` first (once), keeping at most `maximumEntries`. An entry too long to keep is
    /// not recorded. A file that cannot be read is set aside first.
    func record(_ entry: Entry) throws {
        guard entry.isKeepable else { return }
        var entries: [Entry]
        do {
            entries = try readEntries() ?? []
        } catch {
            setAside()
            entries = []
        }
        entries.removeAll { $0 == entry }
        entries.insert(entry, at: 0)
        var content = Content(catalogs: Array(entries.prefix(Self.maximumEntries)))
        var data = try JSONEncoder().encode(content)
        // Long locations: drop the oldest until the file fits.
        while data.count > Self.maximumBytes, content.catalogs.count > 1 {
            content.catalogs.removeLast()
            data = try JSONEncoder().encode(content)
        }
        try write(Array(data))
    }

    // MARK: Files

    /// At most `maximumBytes` and one more (to tell a larger file), of a regular file only: a
    /// FIFO or a device could block or never end, a link could point anywhere. Nil: no file.
    private static func read(_ path: String) throws -> [UInt8]? {
        let file = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if file < 0, errno == ENOENT { return nil }
        guard file >= 0 else { throw Unreadable(description: "cannot be opened: \(String(cString: strerror(errno)))") }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Unreadable(description: "not a regular file")
        }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Unreadable(description: "cannot be read") }
            if got == 0 { break }
            count += got
        }
        return Array(bytes[..<count])
    }

    private func write(_ bytes: [UInt8]) throws {
        try makeFolder()
        let temporary = "\(folder)/.\(Self.name).\(getpid()).tmp"
        unlink(temporary)
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Unreadable(description: "cannot create \(temporary)") }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        let written = offset == bytes.count && fsync(file) == 0
        close(file)
        guard written, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Unreadable(description: "cannot write \(path)")
        }
    }

    /// Renames the unreadable file out of the way, as kept drafts are.
    private func setAside() {
        for attempt in 1...100 {
            let aside = attempt == 1 ? "\(path).damaged" : "\(path).damaged-\(attempt)"
            if access(aside, F_OK) == 0 { continue }
            if rename(path, aside) == 0 { return }
            break
        }
        // Neither read nor set aside (a folder in its place, say): the rename over it fails too,
        // and the list is simply not kept.
    }

    private func makeFolder() throws {
        var built = ""
        for component in folder.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0, errno != EEXIST {
                throw Unreadable(description: "cannot create \(built)")
            }
        }
    }
}
