import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a library's `metadata.db` may have changed since it was last looked at, told
/// without reading a table: SQLite's file change counter, which every commit moves in the
/// rollback journal calibre keeps its libraries in (the four bytes at offset 24 of the file's
/// header, sqlite.org/fileformat.html), with the file's device, inode, size and modification
/// time, which move when the file is replaced or restored. The change ledger compares every
/// book's `last_modified` only when this differs from the one it recorded, so a session
/// opened on a library nobody wrote since answers from its stored index at once.
///
/// Read before the books are (`CalibreChangeLedger.sync`): a commit after it moves it again,
/// and the next look compares the books again. The header is read through SQLite's own handle
/// of the file: opening and closing another descriptor of it would drop the POSIX locks this
/// process's connections hold on it. Nil when it cannot tell: a file in WAL mode (its counter
/// does not move with every commit) or a header that cannot be read; the books are then
/// compared every time.
enum CalibreFileStamp {
    static func read(_ connection: Connection, path: String) -> String? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let read = file.pointee.pMethods?.pointee.xRead
        else { return nil }
        var header = [UInt8](repeating: 0, count: 28)
        let result = header.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32($0.count), 0) }
        // Bytes 18 and 19 are 1 in the rollback journal, 2 in WAL mode.
        guard result == SQLITE_OK, header[18] == 1, header[19] == 1 else { return nil }
        let counter = header[24..<28].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return
            "file \(status.st_dev) \(status.st_ino) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec) change \(counter)"
    }
}
