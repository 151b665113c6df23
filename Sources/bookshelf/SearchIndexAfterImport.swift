import CommandLineOptions
import SQLiteCatalog
import TerminalSafeText

/// The scope's search index after `bookshelf import` into SQLite: built and stored by the
/// import while the scope is small enough for that build to stay within the memory the
/// streamed import keeps to, and otherwise left to the next program that searches the scope.
///
/// The import itself holds about a chunk of the file and its one transaction, whatever the
/// file's size; the build holds the scope's vocabulary and its postings, which grow with the
/// scope's books (docs/performance-log.md has the measurements this limit was set from). Past
/// the limit the next program pays for the build, as it does after any program that changed
/// many books: the app and `bookshelf search` answer at once from the books table, more slowly,
/// while they build and store the index. The import says so on stderr, so that the wait is
/// not a surprise.
enum SearchIndexAfterImport {
    /// The most books a scope may hold for the import to build its index in its own process.
    static let buildLimit = 1_000_000

    enum Outcome: Equatable {
        /// The scope's index is current and stored beside the catalog.
        case stored
        /// Not built here: the scope holds more books than `buildLimit`.
        case leftToNextProgram(books: Int)
        /// The build or its storing failed (derived data: the next program builds it instead).
        case notStored
    }

    static func prepare(_ catalog: SQLiteCatalog, scope: String, buildLimit: Int = buildLimit) async -> Outcome {
        // A count that fails leaves the choice to the build, which fails the same way or works.
        if let books = try? catalog.bookCount(scope: scope), books > buildLimit {
            return .leftToNextProgram(books: books)
        }
        return (try? await catalog.prepareSearchIndex(scope: scope)) == nil ? .notStored : .stored
    }

    /// What the user is told, when there is something to tell.
    static func note(_ outcome: Outcome, scope: String) -> String? {
        guard case let .leftToNextProgram(books) = outcome else { return nil }
        return "the search index of scope \(scope.printable) (\(NumberText.grouped(books)) books) is left to the next"
            + " program that searches it, which answers from the books table, more slowly, until it has built the index"
    }
}
