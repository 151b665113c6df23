@testable import bookshelf_bench
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The cli bench's cold runs: what it evicts beside a catalog, and that the pages are gone.
@Suite struct PageCacheEvictionTests {
    /// The catalog, its WAL and shared memory, and its stored indexes; never an index being
    /// written (`.tmp`), another catalog's files, or a missing file.
    @Test func theCatalogsFilesAreFound() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let names = [
            "books.sqlite", "books.sqlite-wal", "books.sqlite-search-1f", "books.sqlite-search-1f.tmp-9",
            "other.sqlite", "other.sqlite-search-1f",
        ]
        for name in names { try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path(name))) }
        let found = PageCacheEviction.files(ofCatalog: directory.path("books.sqlite"))
        #expect(
            found == ["books.sqlite", "books.sqlite-wal", "books.sqlite-search-1f"].map { directory.path($0) })
    }

    /// A file just written and read is in the page cache; evicted, none of its pages is. Not on
    /// tmpfs, where the page cache is the file itself and nothing can be evicted.
    @Test(.enabled(if: !temporaryDirectoryIsTmpfs)) func evictedPagesAreNoLongerResident() throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let path = directory.path("books.sqlite")
        try Data(repeating: 7, count: 1 << 20).write(to: URL(fileURLWithPath: path))
        _ = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try PageCacheEviction.residentPages([path]) > 0, "read a moment ago, so cached")
        #expect(try PageCacheEviction.evict([path]) == 0)
        #expect(try PageCacheEviction.residentPages([path]) == 0)
        // A file gone between the listing and the eviction (a WAL whose last connection closed).
        #expect(try PageCacheEviction.evict([path, directory.path("books.sqlite-wal")]) == 0)
    }
}

/// Whether the temporary directory is on tmpfs: the file system of the longest mount point
/// above it, as /proc/self/mounts lists them (device, mount point, type, ...).
private let temporaryDirectoryIsTmpfs: Bool = {
    let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
    guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
    var best: (point: String, type: String)? = nil
    for line in mounts.split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count > 2 else { continue }
        let point = fields[1]
        let below = point == "/" || directory == point || directory.hasPrefix(point + "/")
        if below, point.count > (best?.point.count ?? -1) { best = (point, fields[2]) }
    }
    return best?.type == "tmpfs"
}()
