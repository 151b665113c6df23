import Glibc

/// What is at a catalog path, told before SQLite touches it. Only a regular file (or a link to
/// one) can be a catalog: a directory, a device, a FIFO or a socket is refused by name. A FIFO
/// must never reach `open(2)`, which would wait for a writer forever, and `/dev/null` reads as
/// an empty file that SQLite would happily call a database.
enum CatalogPathKind: Equatable {
    case missing
    case regularFile
    /// Not a file a catalog can be; `description` names it ("a FIFO").
    case other(description: String)

    init(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            self = .missing
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .other(description: "a directory")
        case S_IFCHR: self = .other(description: "a character device")
        case S_IFBLK: self = .other(description: "a block device")
        case S_IFIFO: self = .other(description: "a FIFO")
        case S_IFSOCK: self = .other(description: "a socket")
        default: self = .other(description: "not a file")
        }
    }

    /// Throws unless the path is missing or a regular file.
    static func requireFileOrNothing(at path: String) throws(SQLiteCatalogError) {
        if case let .other(description) = CatalogPathKind(path: path) {
            throw .cannotOpen(path: path, reason: "it is not a regular file (it is \(description))")
        }
    }
}
