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
        guard let bytes = try StateFiles.read(path, limit: Self.maximumBytes) else { return nil }
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
            // Neither read nor set aside (a folder in its place, say): the rename over it fails
            // too, and the list is simply not kept.
            _ = StateFiles.setAside(path)
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
        try StateFiles.makeFolders(folder)
        try StateFiles.write(Array(data), to: path, through: "\(folder)/.\(Self.name).\(getpid()).tmp")
    }
}
