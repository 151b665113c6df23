import CommandLineOptions
import SQLiteCatalog

/// `bookshelf check`: whether an SQLite catalog file is intact, by SQLite's own integrity
/// check. For a catalog that a search called damaged, or before trusting a copy.
enum CheckCommand {
    static let command = Command(
        name: "check",
        summary: "Check that the SQLite catalog file is intact (PRAGMA integrity_check).",
        positionals: .none,
        options: [CatalogOptions.db],
        details: """
            Reads every page of the catalog and every index against its table, without changing
            the file (it is opened read-only, so a read-only catalog can be checked too). Prints
            "ok" for an intact catalog, or what SQLite found (at most \(CatalogIntegrity.problemLimit)
            lines) and how to recover: restore the catalog from an export (`bookshelf import`)
            or a backup. The search index beside the catalog is derived data and is not checked;
            a damaged one is rebuilt by itself.

            For a Calibre library it checks metadata.db, then names each book Bookshelf leaves
            out (a title or authors that break Bookshelf's rules, such as more authors than an
            author field holds): such a book is not searched, exported or edited here, and
            calibre keeps it as it is.

            Exit status: 0 the catalog is intact; 1 a Calibre library is intact but has books
            Bookshelf leaves out; 2 usage error; 3 it is damaged, or could not be read.
            PostgreSQL checks its own data; the command is for SQLite catalogs.

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let path: String
        var library: CalibreLibraryStore?
        switch try CatalogTarget.resolve(
            option: context.arguments.value(CatalogOptions.db), environment: context.environment)
        {
        case let .sqlite(catalog): path = catalog
        case let .calibre(folder):
            // The library's metadata.db, checked as a catalog is (calibre's check_library looks at its folders).
            do {
                let store = try CalibreLibraryStore.open(path: folder)
                (path, library) = (store.file, store)
            } catch {
                throw CommandFailure(TerminalText.sanitized(error.description))
            }
        case .postgres:
            throw CommandFailure("check is for SQLite catalogs; PostgreSQL checks its own data (see amcheck)")
        }
        let report: CatalogIntegrity.Report
        do {
            report = try CatalogIntegrity.check(path: path)
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard !report.isHealthy else {
            context.console.line("ok: \(TerminalText.sanitized(path)) is intact")
            if let library { return try notShown(in: library, console: context.console) }
            return .success
        }
        for problem in report.problems { context.console.line(TerminalText.sanitized(problem)) }
        throw CommandFailure(
            "the catalog \(TerminalText.sanitized(path)) is damaged (\(report.problems.count) problems above, "
                + "from PRAGMA integrity_check); restore it from an export (bookshelf import) or a backup")
    }

    /// The books of an intact library that Bookshelf leaves out, one line each: a library is
    /// calibre's to fill, and a title or an author longer than Bookshelf's rules allow (twelve
    /// authors of a proceedings volume) is no damage, but such a book is not searched, exported
    /// or edited here, and the user must hear of it.
    static func notShown(in library: CalibreLibraryStore, console: Console) throws -> ExitStatus {
        let books: [CalibreBookNotShown]
        do {
            books = try library.booksNotShown()
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard !books.isEmpty else { return .success }
        for book in books {
            console.line("book \(book.id) is not shown here: \(TerminalText.sanitized(book.reason))")
        }
        console.note(
            "bookshelf check: \(books.count) book\(books.count == 1 ? "" : "s") of the library \(books.count == 1 ? "is" : "are") "
                + "left out of search, export and edits here (above); calibre keeps \(books.count == 1 ? "it" : "them") as \(books.count == 1 ? "it is" : "they are")"
        )
        return .nothingDone
    }
}
