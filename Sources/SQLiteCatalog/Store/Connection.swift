import CSQLite
import SearchEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A failed SQLite call: the extended result code and SQLite's own message.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    /// The errno behind an I/O error (ENOSPC, say), or 0: SQLite's message alone says only
    /// "disk I/O error".
    var systemError: Int32 = 0

    /// SQLite's extended codes for its shared-memory file (-shm), which Swift does not
    /// import: opening it, growing it, mapping it.
    static let sharedMemoryCodes: Set<Int32> = [SQLITE_IOERR | 18 << 8, SQLITE_IOERR | 19 << 8, SQLITE_IOERR | 21 << 8]

    /// The disk is full: SQLite said so, or an I/O error's errno did.
    var isDiskFull: Bool { primary == SQLITE_FULL || (primary == SQLITE_IOERR && systemError == ENOSPC) }

    /// The disk is full, and what could not be written is the -shm file every reader of a
    /// WAL catalog needs: a search fails as well as a save.
    var isSharedMemoryOnFullDisk: Bool { Self.sharedMemoryCodes.contains(code) && systemError == ENOSPC }

    /// The primary result code (SQLITE_BUSY, SQLITE_FULL, ...) without the extended bits.
    var primary: Int32 { code & 0xFF }

    var description: String { "SQLite error \(code): \(message)" }
}

/// A value bound to a statement parameter. Every value that reaches SQL goes through this,
/// so user text is never spliced into SQL.
enum SQLValue {
    case int(Int)
    case text(String)
    /// TEXT bound exactly as these bytes, valid UTF-8 or not (`import --restore`).
    case textBytes([UInt8])
    case null
}

/// One SQLite connection. Not thread-safe by design: its owner (the `SQLiteBookRemote` actor,
/// or the `SQLiteCatalog` mutex) guarantees one caller at a time. The handle is opened with
/// SQLITE_OPEN_FULLMUTEX as a second line of defence.
final class Connection {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    init(path: String, flags: Int32) throws(SQLiteError) {
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_FULLMUTEX, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            let code = handle.map { sqlite3_extended_errcode($0) } ?? result
            let systemError = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message, systemError: systemError)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    func setBusyTimeout(_ timeout: Duration) {
        let milliseconds = timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000
        setBusyTimeout(milliseconds: Int32(clamping: milliseconds))
    }

    /// Runs `body`, with SQLite stopping its work as soon as the current task is cancelled
    /// (checked every few thousand virtual machine steps); throws `CancellationError` then.
    func cancellable<T>(_ body: () throws -> T) throws -> T {
        try Task.checkCancellation()
        sqlite3_progress_handler(handle, SQLiteTuning.cancellationSteps, { _ in Task.isCancelled ? 1 : 0 }, nil)
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        do {
            return try body()
        } catch  where Task.isCancelled {
            throw CancellationError()
        }
    }

    /// Runs `body`, with SQLite calling `pause` every few tens of thousands of virtual machine
    /// steps (about a millisecond): a long statement of a background thread (a build's count
    /// of ten million rows) can then give way to the searches a user waits on (`ForegroundWork`).
    func pausing<T>(_ pause: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
        let box = Unmanaged.passRetained(PauseBox(pause))
        sqlite3_progress_handler(
            handle, SQLiteTuning.buildPauseSteps,
            { context in
                Unmanaged<PauseBox>.fromOpaque(context!).takeUnretainedValue().pause()
                return 0
            }, box.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            box.release()
        }
        return try body()
    }

    private final class PauseBox {
        let pause: () -> Void
        init(_ pause: @escaping () -> Void) { self.pause = pause }
    }

    /// Runs SQL without parameters (pragmas, DDL, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw lastError(result) }
    }

    /// A prepared statement for `sql`, compiled once per connection and reused.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] { return cached }
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard result == SQLITE_OK, let pointer else { throw lastError(result) }
        let statement = Statement(handle: pointer, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `arguments` and maps every row.
    func query<T>(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first row of `sql`, or nil.
    func queryFirst<T>(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? try row(statement) : nil
    }

    /// Runs a statement that returns no rows of interest; answers how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Runs `body` with a page cache of up to `kibibytes` (it grows only as pages are read), then
    /// gives the cache back to the size it had, which frees the pages past it.
    func withPageCache<T>(kibibytes: Int, _ body: () throws -> T) throws -> T {
        let kept = try queryFirst("PRAGMA cache_size") { $0.int(0) } ?? -2_000
        try execute("PRAGMA cache_size = \(-kibibytes)")
        defer { try? execute("PRAGMA cache_size = \(kept)") }
        return try body()
    }

    /// Runs `body` in a transaction. `immediate` takes the write lock up front (waiting up to
    /// the busy timeout), so a writer never fails half-way on a lock upgrade.
    func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    func lastError(_ result: Int32) -> SQLiteError {
        let code = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        return SQLiteError(
            code: code == SQLITE_OK ? result : code, message: message, systemError: sqlite3_system_errno(handle))
    }
}

/// A prepared statement owned by one `Connection`.
final class Statement {
    let handle: OpaquePointer
    private unowned let connection: Connection

    init(handle: OpaquePointer, connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case let .int(number): result = sqlite3_bind_int64(handle, index, sqlite3_int64(number))
            case .null: result = sqlite3_bind_null(handle, index)
            case let .text(text):
                // Explicit byte length: the text is bound exactly, never cut at a NUL.
                let length = Int32(text.utf8.count)
                result = text.withCString { sqlite3_bind_text(handle, index, $0, length, shim_sqlite_transient()) }
            case let .textBytes(bytes):
                // An empty buffer may have no address, and a NULL pointer would bind NULL.
                result =
                    bytes.isEmpty
                    ? sqlite3_bind_text(handle, index, "", 0, shim_sqlite_transient())
                    : bytes.withUnsafeBufferPointer { buffer in
                        buffer.withMemoryRebound(to: CChar.self) {
                            sqlite3_bind_text(
                                handle, index, $0.baseAddress, Int32(buffer.count), shim_sqlite_transient())
                        }
                    }
            }
            guard result == SQLITE_OK else { throw connection.lastError(result) }
        }
    }

    /// Binds `bytes` as a BLOB without copying them: they must stay valid until `reset()`.
    func bindBlobWithoutCopy(_ index: Int32, _ bytes: UnsafeRawBufferPointer) throws(SQLiteError) {
        // A zero-length buffer may have no address; SQLite would store NULL for it.
        let result =
            bytes.isEmpty
            ? sqlite3_bind_zeroblob(handle, index, 0)
            : sqlite3_bind_blob64(handle, index, bytes.baseAddress, sqlite3_uint64(bytes.count), nil)
        guard result == SQLITE_OK else { throw connection.lastError(result) }
    }

    /// Advances to the next row; false when done.
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(result)
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes = sqlite3_column_blob(handle, column), count > 0 else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: bytes, count: count)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// Whether the column holds exactly `value`, of the same storage class: binding `value`
    /// there would store what is stored now.
    func holds(_ value: SQLValue, at column: Int32) -> Bool {
        let type = sqlite3_column_type(handle, column)
        switch value {
        case .null: return type == SQLITE_NULL
        case let .int(number): return type == SQLITE_INTEGER && int(column) == number
        case let .text(text): return type == SQLITE_TEXT && bytes(column).elementsEqual(text.utf8)
        case let .textBytes(stored): return type == SQLITE_TEXT && bytes(column).elementsEqual(stored)
        }
    }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column's UTF-8 bytes, valid until the next step or reset.
    func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let bytes = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
