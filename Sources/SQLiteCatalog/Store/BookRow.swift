import BookCatalog

/// A book read from a row of `books` or `book_revisions`: every statement that returns books
/// selects `columns` first, so that one reader builds every `BookRecord` the store answers.
enum BookRow {
    /// The columns `record` reads, first in a statement's result.
    static let columns = "id, title, author, revision, \(StoredDetails.columns)"
    /// How many they are: the index of the first column after them.
    static let count: Int32 = 4 + Int32(StoredDetails.count)

    /// The book of `row`, whose first columns are `columns` (`book_revisions` names the book's
    /// id `book_id`; a statement selects it first in its place).
    static func record(_ row: Statement) -> BookRecord { record(row, from: 0) }

    /// The book of the `columns` that begin at column `first` (a statement that reads two).
    static func record(_ row: Statement, from first: Int32) -> BookRecord {
        BookRecord(
            id: row.int(first), title: row.text(first + 1), revision: row.int(first + 3), author: row.text(first + 2),
            details: StoredDetails.read(row, from: first + 4))
    }
}
