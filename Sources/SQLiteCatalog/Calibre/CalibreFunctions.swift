import CSQLite
import Foundation

/// The SQL functions and collations calibre registers on each of its connections
/// (`db/backend.py`, `Connection.__init__`), which its triggers, views and columns name: a
/// write to `books` fires `books_update_trg`, which calls `title_sort`; without them SQLite
/// refuses the statement. Each behaves as calibre's does with its default tweaks. They are
/// marked innocuous, so that they still run in triggers with `trusted_schema` off, and hold
/// no state.
enum CalibreFunctions {
    static func register(on connection: Connection) throws(SQLiteError) {
        let handle = connection.handle
        let pure = SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC
        try check(connection, sqlite3_create_function_v2(handle, "title_sort", -1, pure, nil, titleSort, nil, nil, nil))
        try check(
            connection,
            sqlite3_create_function_v2(handle, "author_to_author_sort", 1, pure, nil, authorSort, nil, nil, nil))
        try check(
            connection,
            sqlite3_create_function_v2(handle, "uuid4", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, nil, uuid4, nil, nil, nil))
        // calibre's "dummy function for dynamically created filters": every book passes.
        try check(
            connection, sqlite3_create_function_v2(handle, "books_list_filter", 1, pure, nil, one, nil, nil, nil))
        try check(connection, sqlite3_create_collation_v2(handle, "PYNOCASE", SQLITE_UTF8, nil, lowercased, nil))
        try check(connection, sqlite3_create_collation_v2(handle, "icucollate", SQLITE_UTF8, nil, folded, nil))
    }

    private static func check(_ connection: Connection, _ result: Int32) throws(SQLiteError) {
        guard result == SQLITE_OK else { throw connection.lastError(result) }
    }

    /// The first argument's text; nil for NULL (calibre's functions answer NULL for it too).
    private static func text(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ count: Int32) -> String? {
        guard count > 0, let value = arguments?[0], sqlite3_value_type(value) != SQLITE_NULL,
            let bytes = sqlite3_value_text(value)
        else { return nil }
        let length = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    private static func result(_ context: OpaquePointer?, _ text: String?) {
        guard let text else { return sqlite3_result_null(context) }
        let length = Int32(text.utf8.count)
        text.withCString { sqlite3_result_text(context, $0, length, shim_sqlite_transient()) }
    }

    private static let titleSort:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) ->
            Void = { context, count, arguments in
                result(context, text(arguments, count).map(CalibreSortText.titleSort))
            }

    /// calibre keeps a comma of a name as "|" in `authors.name`; its sort reads it back as a comma.
    private static let authorSort:
        @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) ->
            Void = { context, count, arguments in
                let name = text(arguments, count) ?? ""
                result(context, CalibreSortText.authorSort(name.replacingOccurrences(of: "|", with: ",")))
            }

    private static let uuid4: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, _, _ in
            result(context, UUID().uuidString.lowercased())
        }

    private static let one: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, _, _ in
        sqlite3_result_int(context, 1)
    }

    private static func compare(
        _ leftBytes: UnsafeRawPointer?, _ leftCount: Int32, _ rightBytes: UnsafeRawPointer?, _ rightCount: Int32,
        by key: (String) -> String
    ) -> Int32 {
        func string(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
            guard let bytes, count > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
        }
        let left = key(string(leftBytes, leftCount))
        let right = key(string(rightBytes, rightCount))
        return left < right ? -1 : left == right ? 0 : 1
    }

    /// calibre's `pynocase`: the texts compared in lowercase.
    private static let lowercased:
        @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
            _, leftCount, left, rightCount, right in
            compare(left, leftCount, right, rightCount) { $0.lowercased() }
        }

    /// calibre's `icucollate` compares ICU sort keys of its interface language; without ICU,
    /// the nearest rule that orders letters alike whatever their case and accents.
    private static let folded:
        @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
            _, leftCount, left, rightCount, right in
            compare(left, leftCount, right, rightCount) {
                $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            }
        }
}
