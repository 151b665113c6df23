import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Drops a catalog's files from the page cache, so that the next process reads them from the
/// disk, as a shell widget does when it runs again after a while: the catalog, its WAL and
/// shared-memory files, and the stored search indexes beside it (`CATALOG-search-*`).
///
/// `posix_fadvise(POSIX_FADV_DONTNEED)` drops only clean pages that no process maps, so each
/// file is synced first, and what stayed resident is counted (`mincore`) and reported rather
/// than assumed gone.
enum PageCacheEviction {
    /// The files of the catalog at `catalogPath` that exist now.
    static func files(ofCatalog catalogPath: String) -> [String] {
        let directory = (catalogPath as NSString).deletingLastPathComponent
        let name = (catalogPath as NSString).lastPathComponent
        let siblings = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        let indexes = siblings.filter { $0.hasPrefix(name + "-search-") && !$0.contains(".tmp") }.sorted()
        let candidates = [name, name + "-wal", name + "-shm"] + indexes
        return candidates.map { (directory as NSString).appendingPathComponent($0) }.filter {
            FileManager.default.fileExists(atPath: $0)
        }
    }

    /// Evicts the files of the catalog at `catalogPath` as they are now (the WAL comes and goes
    /// with the connections) and returns how many of their pages are still resident afterwards.
    @discardableResult
    static func evict(catalog catalogPath: String) throws -> Int {
        try evict(files(ofCatalog: catalogPath))
    }

    /// Evicts `paths` and returns how many of their pages are still resident afterwards. A file
    /// gone meanwhile (a WAL removed as its last connection closed) has nothing to evict.
    @discardableResult
    static func evict(_ paths: [String]) throws -> Int {
        var resident = 0
        for path in paths {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 && errno == ENOENT { continue }
            guard descriptor >= 0 else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            // Dirty pages cannot be dropped: write them out first.
            _ = fdatasync(descriptor)
            let advised = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
            guard advised == 0 else {
                throw BenchError("posix_fadvise(DONTNEED) on \(path): \(String(cString: strerror(advised)))")
            }
            resident += try residentPages(descriptor, path: path)
        }
        return resident
    }

    /// The pages of the open file that are in the page cache, by mapping it and asking `mincore`.
    static func residentPages(_ descriptor: Int32, path: String) throws -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw BenchError("cannot stat \(path)") }
        let length = Int(status.st_size)
        guard length > 0 else { return 0 }
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED else {
            throw BenchError("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        defer { munmap(address, length) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (length + pageSize - 1) / pageSize)
        guard mincore(address, length, &vector) == 0 else {
            throw BenchError("mincore on \(path): \(String(cString: strerror(errno)))")
        }
        return vector.reduce(0) { $0 + Int($1 & 1) }
    }

    /// How many of the pages of `paths` are resident now.
    static func residentPages(_ paths: [String]) throws -> Int {
        try paths.reduce(0) { total, path in
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
            defer { close(descriptor) }
            return total + (try residentPages(descriptor, path: path))
        }
    }
}
