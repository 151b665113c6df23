#if canImport(Glibc)
    import Glibc
#endif

/// The files of the state folder that the app reads back (kept drafts, the recent catalogs):
/// read as files anyone could have written (bounded, regular files only), written so that a run
/// killed midway leaves the previous file whole, and set aside rather than deleted when they
/// cannot be read.
enum StateFiles {
    struct Problem: Error, CustomStringConvertible {
        let description: String

        static func system(_ what: String, _ path: String) -> Problem {
            Problem(description: "\(what) \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// At most `limit` bytes and one more (to tell a larger file), of a regular file only: a
    /// FIFO or a device could block or never end, a link could point anywhere. Nil: no file.
    static func read(_ path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let file = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if file < 0, errno == ENOENT { return nil }
        guard file >= 0 else { throw Problem.system("cannot open", path) }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else { throw Problem.system("cannot read", path) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Problem(description: "not a regular file") }
        let most = limit + 1
        var bytes = [UInt8](repeating: 0, count: min(most, max(0, Int(status.st_size)) + 1))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Problem.system("cannot read", path) }
            if got == 0 { break }
            count += got
            // The file grew while being read: look a little further, never past the limit.
            if count == bytes.count, bytes.count < most {
                bytes += [UInt8](repeating: 0, count: min(most - bytes.count, 4096))
            }
        }
        return Array(bytes[..<count])
    }

    /// Replaces `path` with `bytes`, mode 0600: written to `temporary` (in the same folder),
    /// flushed, then renamed over it, and the rename flushed with the folder where the file
    /// system allows.
    static func write(_ bytes: [UInt8], to path: String, through temporary: String) throws(Problem) {
        unlink(temporary)
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw Problem.system("cannot create", temporary) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        let failure =
            offset < bytes.count
            ? Problem.system("cannot write", temporary)
            : fsync(file) == 0 ? nil : Problem.system("cannot flush", temporary)
        close(file)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = Problem.system("cannot rename to", path)
            unlink(temporary)
            throw failure
        }
        let folder = open(
            String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Renames an unreadable file out of the way (kept for a person to look at): the name it
    /// took, or nil when it could not be moved.
    static func setAside(_ path: String) -> String? {
        for attempt in 1...100 {
            let aside = attempt == 1 ? "\(path).damaged" : "\(path).damaged-\(attempt)"
            if access(aside, F_OK) == 0 { continue }
            return rename(path, aside) == 0 ? aside : nil
        }
        return nil
    }

    /// Makes `folder` and the folders above it that are missing, each 0700.
    static func makeFolders(_ folder: String) throws(Problem) {
        var built = ""
        for component in folder.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0, errno != EEXIST { throw Problem.system("cannot create", built) }
        }
    }
}
