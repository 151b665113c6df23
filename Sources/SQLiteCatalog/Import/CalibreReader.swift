import CSQLite

/// The library's connection with its work bounded: every query is metered (SQLite calls back
/// every `checkInterval` instructions) and stopped once the budget is spent, and a failure
/// names the tables it was reading, so that a user learns which object of the file was refused.
final class CalibreReader {
    let database: CalibreDatabase
    let file: String
    private let meter: CalibreWorkMeter

    init(database: CalibreDatabase, file: String, budget: CalibreLibrary.WorkBudget) {
        self.database = database
        self.file = file
        meter = CalibreWorkMeter(budget: budget.instructions)
    }

    /// The rows of `sql`, a query of `tables` ("its comments table"), each mapped by `row`.
    func rows<T>(
        of tables: String, _ sql: String, _ arguments: [SQLValue] = [], row: (Statement) -> T
    ) throws(CalibreLibrary.Failure) -> [T] {
        let connection = database.connection
        let context = Unmanaged.passUnretained(meter).toOpaque()
        sqlite3_progress_handler(
            connection.handle, CalibreWorkMeter.checkInterval,
            { context in Unmanaged<CalibreWorkMeter>.fromOpaque(context!).takeUnretainedValue().spend() ? 0 : 1 },
            context)
        defer { sqlite3_progress_handler(connection.handle, 0, nil, nil) }
        do {
            return try withExtendedLifetime(meter) { try connection.query(sql, arguments, row: row) }
        } catch let error as SQLiteError {
            throw failure(error, reading: tables)
        } catch {
            throw CalibreLibrary.Failure(description: "cannot read the Calibre library \(file): \(error)")
        }
    }

    /// SQLITE_READONLY_ROLLBACK, which Swift does not import: a hot journal a read-only
    /// connection cannot roll back.
    static let readOnlyRollback = SQLITE_READONLY | 3 << 8

    private func failure(_ error: SQLiteError, reading tables: String) -> CalibreLibrary.Failure {
        let reason: String
        switch error.primary {
        case SQLITE_TOOBIG:
            reason =
                "\(tables) holds a value longer than \(CalibreLibrary.maximumValueBytes / 1_000_000) MB, more than any field of a book keeps"
        case SQLITE_INTERRUPT where meter.isSpent:
            reason = "reading \(tables) took more work than a library of its size needs (is it damaged?)"
        case SQLITE_READONLY where error.code == Self.readOnlyRollback:
            reason =
                "a save to it was cut off (its -journal is there) and only a program that may write to it can finish or undo that save: open the library in Calibre once"
        case SQLITE_NOMEM:
            reason = "reading \(tables) ran out of memory"
        default:
            reason = "reading \(tables): \(error.message)"
        }
        return CalibreLibrary.Failure(description: "cannot read the Calibre library \(file): \(reason)")
    }
}

/// The instructions spent so far against the read's budget; called back by SQLite.
final class CalibreWorkMeter {
    /// How often SQLite calls back, in virtual machine instructions (a few tens of microseconds of work).
    static let checkInterval: Int32 = 10_000

    private let budget: Int
    private var spent = 0

    init(budget: Int) { self.budget = budget }

    var isSpent: Bool { spent > budget }

    /// Counts an interval; false once the budget is spent, which stops the statement.
    func spend() -> Bool {
        spent += Int(Self.checkInterval)
        return !isSpent
    }
}
