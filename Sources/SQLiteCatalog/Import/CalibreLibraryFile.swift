import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a library's database is, refused before SQLite touches it unless this user can read it
/// and it is a regular file: a FIFO would hang the open, a device would read as an empty
/// database. So must be the side files SQLite would look at beside it (its journal, its
/// write-ahead log and that log's index).
enum CalibreLibraryFile {
    static let sideFileSuffixes = ["-journal", "-wal", "-shm"]

    /// The database of the library at `path` (its folder, or the file itself).
    static func locate(_ path: String) throws(CalibreLibrary.Failure) -> String {
        var status = stat()
        let isFolder = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        let file = isFolder ? (path as NSString).appendingPathComponent("metadata.db") : path
        try requireReadableFile(file, library: path)
        for suffix in sideFileSuffixes {
            let sideFile = resolved(file) + suffix
            if case let .other(description) = CatalogPathKind(path: sideFile) {
                throw CalibreLibrary.Failure(
                    description:
                        "cannot read the Calibre library \(file): its \(sideFile) is not a regular file (it is \(description))"
                )
            }
        }
        return file
    }

    /// The file a link leads to: SQLite opens that one, and looks for its side files beside it.
    static func resolved(_ file: String) -> String {
        guard let path = realpath(file, nil) else { return file }
        defer { free(path) }
        return String(cString: path)
    }

    private static func requireReadableFile(_ file: String, library: String) throws(CalibreLibrary.Failure) {
        var status = stat()
        guard stat(file, &status) == 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR {
                throw CalibreLibrary.Failure(description: "no Calibre library at \(library): there is no \(file)")
            }
            throw unreadable(file, errno: error)
        }
        if case let .other(description) = CatalogPathKind(path: file) {
            throw CalibreLibrary.Failure(
                description: "cannot read the Calibre library \(file): it is not a regular file (it is \(description))")
        }
        guard access(file, R_OK) == 0 else { throw unreadable(file, errno: errno) }
    }

    static func unreadable(_ file: String, errno error: Int32) -> CalibreLibrary.Failure {
        let reason = error == EACCES || error == EPERM ? "permission denied" : String(cString: strerror(error))
        return CalibreLibrary.Failure(description: "cannot read the Calibre library \(file): \(reason)")
    }
}
