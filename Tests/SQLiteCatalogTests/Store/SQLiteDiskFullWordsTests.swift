import CSQLite
import Foundation
@testable import SQLiteCatalog
@testable import SearchEngine
import Testing

/// Wherever the suite runs (no tmpfs needed): the -shm codes with ENOSPC are a full disk
/// that even a search meets, other I/O errors with ENOSPC a full disk, and the rest stay
/// SQLite's words.
@Suite struct SQLiteDiskFullWordsTests {
    @Test func theSharedMemoryCodesWithNoSpaceSayTheDiskIsFull() {
        let path = "/books/catalog.sqlite"
        for code in [SQLITE_IOERR | 18 << 8, SQLITE_IOERR | 19 << 8, SQLITE_IOERR | 21 << 8] {
            let error = SQLiteError(code: code, message: "disk I/O error", systemError: ENOSPC)
            #expect(error.catalogError(path: path) == .sharedMemoryDiskFull(path: path), "\(code)")
            #expect(
                error.bookFailure(catalogPath: path)
                    == .storeUnavailable("the disk is full: SQLite cannot make the catalog's shared-memory file (-shm)")
            )
        }
        let write = SQLiteError(code: SQLITE_IOERR | 3 << 8, message: "disk I/O error", systemError: ENOSPC)
        #expect(write.catalogError(path: path) == .diskFull(path: path))
        #expect(write.bookFailure(catalogPath: path) == .storeUnavailable("the disk is full"))
        let other = SQLiteError(code: SQLITE_IOERR | 19 << 8, message: "disk I/O error", systemError: EIO)
        #expect(other.catalogError(path: path) == .failed("disk I/O error"))
    }
}
