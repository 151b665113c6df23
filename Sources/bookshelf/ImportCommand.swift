import BookCatalog
import CatalogImport
import CommandLineOptions
import Foundation
import PostgresCatalog
import SQLiteCatalog
import TerminalUI

/// `bookshelf import FILE`: adds the books of a CSV or JSON Lines file, all or nothing.
/// The whole file is checked before the catalog is touched, every bad line is reported, and
/// the store inserts in one transaction, so a failed import leaves the catalog as it was.
/// Progress of reading (in lines) and adding (in books) goes to standard error.
enum ImportCommand {
    static let restore = Flag(
        "restore",
        help: "Take back exactly what 'bookshelf export' wrote, even text a plain import refuses (SQLite only).")

    static let from = Option<String>(
        "from", value: "SOURCE", completes: .choices(ImportSource.allCases.map(\.rawValue)),
        help: "Read FILE as goodreads (its library export) or calibre (a library folder) instead.")

    static let command = Command(
        name: "import",
        summary: "Add the books of a CSV or JSON Lines file, all or nothing.",
        positionals: .one("FILE", completes: .file),
        options: [CatalogOptions.scope, from, restore, CatalogOptions.db],
        details: """
            Formats (by extension .csv, .jsonl or .ndjson, otherwise by content; FILE - reads
            standard input):
              CSV         a header line naming the columns, title required, author optional,
                          in any order (other columns are ignored); RFC 4180 quoting:
                          "Rome, the City","Beard, Mary" and "The ""Quoted"" Book".
              JSON Lines  one object per line: {"title": "Dune", "author": "Frank Herbert"}
            The other fields are the columns (keys) isbn, year, publisher, series, series_index,
            tags ("a, b" in CSV, an array of strings in JSON) and notes (line breaks quoted in
            CSV, \\n in JSON), each optional; a bad value is reported with its column.
            UTF-8, with or without a byte order mark; LF or CRLF line ends (CR alone is not
            supported). A JSON key given twice in one object is a bad line. A CSV cell that starts
            with an apostrophe before =, +, -, @, a tab or a carriage return loses that one
            apostrophe: it is how 'bookshelf export' keeps spreadsheets from running a formula.

            --from goodreads reads Goodreads' library export (CSV): Title (a series in
            parentheses, "(Dune, #1)", becomes the series), Author and Additional Authors,
            ISBN13 or else ISBN, Publisher, Year Published or else Original Publication Year,
            Bookshelves and Exclusive Shelf as tags, My Review and Private Notes as notes.
            --from calibre reads a Calibre library folder (its metadata.db, opened read-only;
            nothing is written or created in the folder): title, authors ("A & B", each once),
            the ISBN among its identifiers, the year of its publication date, publisher, series
            and index, tags, and comments as plain text in the notes (a review's HTML from
            Goodreads too). From either, a value that breaks its field's rule, or from Calibre
            one that is not UTF-8 text, is left out and counted; a book without a title is an
            error, and so from Calibre is a title or author that is not UTF-8 text, or an id two
            books share. The library is read as a file anyone could have made: only tables are
            read, so a view or virtual table in place of one is refused by name, as are a value
            over 1 MB, work far beyond what a library of its size needs, anything not a regular
            file, and a folder you may not read (exit status 3).

            Every import says how many books it read, how many fields it mapped, and what it
            skipped and why (a line per kind, with counts), on standard error.

            A title needs 1 to \(BookValidation.maximumTitleLength) characters (at most \
            \(BookValidation.maximumTitleBytes) UTF-8 bytes), an author at most \
            \(BookValidation.maximumAuthorLength) (\(BookValidation.maximumAuthorBytes) bytes), neither with control \
            characters. Whitespace at either end is trimmed; a title of only spaces or invisible
            characters is blank and refused.
            If any line is bad, each is reported as FILE:LINE: reason, nothing is imported
            and the exit status is 1. --restore takes each line exactly as 'bookshelf export'
            wrote it, without these rules, even text that is not UTF-8 (raw in CSV, \\udcXX
            escapes in JSON Lines).

            Progress goes to standard error: reading (in lines of FILE), then adding (in
            books); a bar redrawn in place on a terminal, a line at every tenth otherwise.

            A catalog that does not exist yet is created with the starter accounts and only the
            imported books (no sample books).

            On PostgreSQL, import as the database owner (the role that ran 'bookshelf setup');
            accounts cannot add books.

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let console = context.console
        let file = arguments.positionals[0]
        let scope = arguments.value(CatalogOptions.scope) ?? "main"
        guard !scope.isEmpty, !BookValidation.hasControlCharacters(scope) else {
            throw UsageError("--scope needs a name without control characters")
        }
        let target = try CatalogTarget.resolve(
            option: arguments.value(CatalogOptions.db), environment: context.environment)
        // Refused before the file is read: nothing of it would be used.
        let restoring = arguments.isSet(restore)
        if restoring, case .postgres = target { throw UsageError("--restore works on SQLite catalogs only") }

        let source = try arguments.value(from).map { name throws(UsageError) in
            guard let source = ImportSource(rawValue: name) else {
                throw UsageError("--from must be goodreads or calibre, not \"\(name.printable)\"")
            }
            return source
        }
        if restoring, source != nil { throw UsageError("--restore takes back a 'bookshelf export', not --from") }

        let result: BookImportResult
        if source == .calibre {
            guard let read = try readCalibre(file, console: console) else { return .nothingDone }
            result = read
        } else {
            let bytes = try read(file)
            // Counted in lines: the file is in memory, so its line count is known before parsing
            // and the parser reports lines read.
            let lines = physicalLines(in: bytes)
            // The file's name alone: a long path would leave no room for the bar.
            let name = file == "-" ? "standard input" : URL(fileURLWithPath: file).lastPathComponent.printable
            let reading = ProgressDisplay.standardError(label: "Reading \(name)", total: lines)
            if source == .goodreads {
                result = GoodreadsImport.parse(bytes) { reading.update($0) }
            } else {
                let format = BookImport.format(fileName: file, content: bytes)
                result = BookImport.parse(bytes, format: format, restoring: restoring) { reading.update($0) }
            }
            reading.update(lines)
            reading.finish()
        }

        guard result.problems.isEmpty else {
            for problem in result.problems {
                console.note("\(file.printable):\(problem.line): \(TerminalText.sanitized(problem.reason))")
            }
            let count = result.problems.count
            console.note(
                "bookshelf import: nothing imported: \(count) bad line\(count == 1 ? "" : "s") in \(file.printable)")
            return .nothingDone
        }

        guard case let .sqlite(path) = target else {
            guard case let .postgres(connector) = target else { return .failure }
            let status = try await importIntoPostgres(
                result.books, scope: scope, connector: connector, console: console)
            report(result.summary, console: console)
            return status
        }
        // "Nothing imported" holds for the file system too: a catalog this run made for the
        // import is removed again when adding its books fails.
        let isNew = CatalogOpener.FileState(path) == .missing
        let added: Added
        do {
            added = try await add(result.books, scope: scope, validating: !restoring, to: path, console: console)
        } catch {
            if isNew { CatalogOpener.remove(newCatalogAt: path) }
            throw error
        }
        console.line(
            "Added \(NumberText.grouped(added.count)) book\(added.count == 1 ? "" : "s") to scope \(scope.printable).")
        report(result.summary, console: console)
        if !added.scopeHasAccount {
            console.note("bookshelf import: note: no account sees scope \(scope.printable) yet")
        }
        return .success
    }

    private struct Added {
        let count: Int
        let scopeHasAccount: Bool
    }

    /// Opens (or makes) the SQLite catalog and adds the books in one transaction. The catalog
    /// is closed when this returns, so a caller may remove a catalog it made.
    private static func add(
        _ books: [NewBook], scope: String, validating: Bool, to path: String,
        console: Console
    ) async throws(CommandFailure) -> Added {
        let catalog = try CatalogOpener.open(path: path, console: console, creating: .accountsOnlyIfMissing)
        let adding = ProgressDisplay.standardError(label: "Adding books", total: books.count)
        let count: Int
        do {
            count = try catalog.insertBooks(books, scope: scope, validating: validating) { adding.update($0) }
        } catch {
            adding.finish()
            throw CommandFailure("nothing imported: " + TerminalText.sanitized(error.description))
        }
        adding.finish()
        // Derived data: if it cannot be stored now, the next program builds it instead.
        _ = try? await catalog.prepareSearchIndex(scope: scope)
        let accounts = try? catalog.accounts()
        return Added(count: count, scopeHasAccount: accounts.map { $0.contains { $0.scope == scope } } ?? true)
    }

    /// One COPY in one transaction, as the database owner (accounts may not add books).
    private static func importIntoPostgres(
        _ books: [NewBook], scope: String, connector: PostgresConnector, console: Console
    ) async throws -> ExitStatus {
        let setup = try await PostgresSignIn.administrator(connector)
        let adding = ProgressDisplay.standardError(label: "Adding books", total: books.count)
        let added: Int
        do {
            added = try await setup.importBooks(streaming: books, scope: scope) { adding.update($0) }
        } catch {
            adding.finish()
            throw CommandFailure("nothing imported: " + PostgresSignIn.message(error))
        }
        adding.finish()
        console.line("Added \(NumberText.grouped(added)) book\(added == 1 ? "" : "s") to scope \(scope.printable).")
        return .success
    }

    /// What the import read, mapped and skipped, once its books are stored (a failed import
    /// says only why it failed).
    private static func report(_ summary: ImportSummary, console: Console) {
        for line in summary.lines(number: NumberText.grouped) {
            console.note("bookshelf import: " + TerminalText.sanitized(line))
        }
    }

    /// A Calibre library's books as an import result, or nil (and the problems said) when a
    /// book cannot be stored. Each problem names Calibre's id for the book, as a line would.
    private static func readCalibre(_ path: String, console: Console) throws(CommandFailure) -> BookImportResult? {
        let library: CalibreLibrary.Result
        do {
            library = try CalibreLibrary.read(path: path)
        } catch {
            throw CommandFailure(TerminalText.sanitized(error.description))
        }
        guard library.problems.isEmpty else {
            for problem in library.problems {
                console.note("\(path.printable): \(TerminalText.sanitized(problem.description))")
            }
            let count = library.problems.count
            console.note(
                "bookshelf import: nothing imported: \(count) book\(count == 1 ? "" : "s") of \(path.printable) cannot be stored"
            )
            return nil
        }
        return BookImportResult(
            books: library.books, problems: [],
            summary: ImportSummary(
                booksRead: library.books.count, fieldsMapped: library.fieldsMapped,
                skipped: library.skipped.map { ImportSummary.Skip(reason: $0.reason, count: $0.count) }))
    }

    /// The lines of a file as the parser numbers them: one per line end, and the last line
    /// even without one.
    static func physicalLines(in bytes: [UInt8]) -> Int {
        let ends = bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        return ends + (bytes.last.map { $0 == UInt8(ascii: "\n") ? 0 : 1 } ?? 0)
    }

    private static func read(_ file: String) throws(CommandFailure) -> [UInt8] {
        do {
            // readToEnd() throws where readDataToEndOfFile() traps (standard input a directory).
            if file == "-" { return [UInt8](try FileHandle.standardInput.readToEnd() ?? Data()) }
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw CommandFailure(
                "cannot read \(file == "-" ? "standard input" : file.printable): \(FileReadFailure.reason(error))")
        }
    }

}

/// Where `bookshelf import --from` takes its books from, besides Bookshelf's own CSV and JSON Lines.
enum ImportSource: String, CaseIterable {
    case goodreads, calibre
}
