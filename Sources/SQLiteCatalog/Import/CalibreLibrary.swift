import BookCatalog
import CSQLite

/// A Calibre library's books, read from its `metadata.db` for `bookshelf import --from
/// calibre`. The file is anyone's to make, so it is read as SQLite advises for a database from
/// an untrusted source ("Defense Against the Dark Arts", sqlite.org/security.html): nothing is
/// created or written in the library's folder (`CalibreDatabase`), the schema is trusted with
/// nothing, every name read must be a table (`CalibreTables`), a value may be no longer than a
/// field could use, and the work is bounded by the file's size (`CalibreWorkMeter`). Whatever
/// the file holds, the read ends soon, with the books or with a line that names what it refused.
public enum CalibreLibrary {
    /// What the library held: the books to store, the books that cannot be stored (with
    /// Calibre's id for each) and what was left out of the books kept.
    public struct Result: Sendable {
        /// Each with its origin: Calibre's `uuid` for the book.
        public let sourced: [SourcedBook]
        public var books: [NewBook] { sourced.map(\.book) }
        public let problems: [Problem]
        public let fieldsMapped: Int
        /// A line each kind of thing left out, with how many, in the order first met.
        public let skipped: [(reason: String, count: Int)]
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The book's id in Calibre.
        public let book: Int
        public let reason: String

        public var description: String { "Calibre book \(book): \(reason)" }
    }

    /// Calibre's pubdate for "unknown" (its UNDEFINED_DATE).
    static let unknownDatePrefix = "0101-01-01"

    /// The longest value read (SQLite's length limit on the connection): a book's notes at their
    /// longest in UTF-8 (80,000 bytes) as HTML, with room for a dozen times that in markup.
    /// Longer is not a description a note could keep, and a generated value is refused before
    /// it fills memory.
    static let maximumValueBytes = 1_000_000

    /// Why a library could not be read, in words a user can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads the library at `path`: its folder, or the `metadata.db` file itself.
    public static func read(path: String) throws(Failure) -> Result {
        try read(path: path, workBudget: nil)
    }

    /// `workBudget`, if given, in place of the one the file's size allows (for tests).
    static func read(path: String, workBudget: WorkBudget?) throws(Failure) -> Result {
        let file = try CalibreLibraryFile.locate(path)
        let database = try CalibreDatabase.open(file)
        let reader = CalibreReader(
            database: database, file: file, budget: workBudget ?? WorkBudget(forFileOf: database.bytes))
        try CalibreTables.requireTables(reader)
        return CalibreMapping.map(try CalibreRows(reader: reader).read())
    }

    /// How many SQLite virtual machine instructions a read may take.
    struct WorkBudget {
        let instructions: Int

        init(_ instructions: Int) { self.instructions = instructions }

        /// Reading a library is one pass over each table read, so its work grows with the
        /// file's size; this allows hundreds of times what a generated library needed
        /// (docs/performance-log.md), and a small one a floor. A file of few rows that makes
        /// a join return millions (many authors with one id) is stopped here.
        init(forFileOf bytes: Int) {
            instructions = Self.floor + min(bytes, 1 << 40) * Self.perByte
        }

        static let floor = 5_000_000
        static let perByte = 20
    }
}
