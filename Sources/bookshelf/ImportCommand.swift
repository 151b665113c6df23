import BookCatalog
import CatalogImport
import CommandLineOptions
import Foundation
import Locking
import PostgresCatalog
import SQLiteCatalog
import TerminalSafeText

/// `bookshelf import FILE`: adds the books of a CSV or JSON Lines file, all or nothing.
/// The file is read a chunk at a time while the store adds its books in one transaction; every
/// bad line is reported as it is found, and the transaction commits only if there was none, so
/// a failed import leaves the catalog as it was and no file ever sits in memory whole.
/// Progress of reading (in bytes of the file) goes to standard error.
enum ImportCommand {
    static let restore = Flag(
        "restore",
        help: "Take back exactly what 'bookshelf export' wrote, even text a plain import refuses (SQLite only).")

    static let from = Option<String>(
        "from", value: "SOURCE", completes: .choices(ImportSource.names),
        help:
            "Read FILE as SOURCE: auto (the default: recognised from its first lines), csv, jsonl, goodreads, storygraph, librarything, csl-json, bibtex, or calibre (a library folder)."
    )

    static let command = Command(
        name: "import",
        summary: "Add the books of a file (CSV, JSON Lines, or another service's export), all or nothing.",
        positionals: .one("FILE", completes: .file),
        options: [CatalogOptions.scope, from, restore, match, prefer, dryRun, removeMissing, CatalogOptions.db],
        details: """
            Without --from (or with --from auto) the source is recognised from FILE's first
            lines: a tab-separated header naming Book Id and Title is LibraryThing's export, an
            object of objects its JSON export, a CSV header naming ISBN/UID or Read Status the
            StoryGraph's, one naming Book Id and Exclusive Shelf Goodreads', a JSON array
            CSL-JSON, an @entry (after % comments) BibTeX; anything else is Bookshelf's own
            format below. Unless it is Bookshelf's own UTF-8, the choice is said on standard
            error ("reading FILE as BibTeX, UTF-8"). --from SOURCE reads FILE as SOURCE whatever it
            looks like. Every source may be UTF-8 (with or without a byte order mark) or UTF-16
            with a byte order mark; LibraryThing's may be ISO-8859-1 (as it often is). What each
            source maps to which field, and what it skips, is in docs/import.md.

            Bookshelf's formats (by extension .csv, .jsonl or .ndjson, otherwise by content; FILE
            - reads standard input):
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
            --from storygraph, librarything, csl-json and bibtex read those services' exports as
            docs/import.md says: the books of a CSL-JSON or BibTeX file are its "book" items and
            @book entries (other types are counted, not imported); BibTeX's accents, @string
            macros and case braces are read as the text they stand for.
            --from calibre reads a Calibre library folder (its metadata.db, opened read-only;
            nothing is written or created in the folder): title, authors ("A & B", each once),
            the ISBN among its identifiers, the year of its publication date, publisher, series
            and index, tags, and comments as plain text in the notes (a review's HTML from
            Goodreads too). From any of these, a value that breaks its field's rule, or from Calibre
            one that is not UTF-8 text, is left out and counted; a book without a title is an
            error, and so from Calibre is a title or author that is not UTF-8 text, or an id two
            books share. The library is read as a file anyone could have made: only tables are
            read, so a view or virtual table in place of one is refused by name, as are a value
            over 1 MB, work far beyond what a library of its size needs, anything not a regular
            file, and a folder you may not read (exit status 3).

            Every import says how many books it read, how many fields it mapped, and what it
            skipped and why (a line per kind, with counts), on standard error.

            Importing a source again updates; it does not duplicate. Each book from a source with
            ids (Goodreads' or LibraryThing's Book Id, the StoryGraph's ISBN/UID, Calibre's uuid,
            a CSL id, a BibTeX key) remembers that id and the values the import brought. Next
            time, a row with a known id, or else the same ISBN, is the same book, merged field by
            field three ways: a field only the source changed is saved as a new revision, a field
            only you changed stays, and a field both changed is a conflict, listed by book and
            field and left as yours unless --prefer source. New books are added; books gone from
            the source (an earlier import of it brought them, this one did not) are listed and
            kept, or with --remove-missing listed and deleted: their history stays ('bookshelf
            history ID' shows it and says when the book was deleted), open programs are told, and
            the search index drops them. It ends with a line such as "added 12, updated 30 (41
            fields), unchanged 900, conflicts 2, gone from the source 3" (with "(deleted)" after
            the last count when they were). Bookshelf's own CSV and
            JSON Lines have no ids: their books are added, unless --match isbn makes a book with
            the same ISBN the same book (the first time, every field that differs is a conflict,
            as nothing tells whose change it is). --dry-run says all of it, the books that would be
            deleted included, and changes nothing.

            A title needs 1 to \(BookValidation.maximumTitleLength) characters (at most \
            \(BookValidation.maximumTitleBytes) UTF-8 bytes), an author at most \
            \(BookValidation.maximumAuthorLength) (\(BookValidation.maximumAuthorBytes) bytes), neither with control \
            characters. Whitespace at either end is trimmed; a title of only spaces or invisible
            characters is blank and refused.
            A field longer than 1,048,576 bytes (a CSV record or JSON line longer than
            4,194,304) is a bad line as soon as that much of it is read, and the rest of it is
            skipped unread into memory; so is a LibraryThing line, a CSL-JSON item or a BibTeX
            entry longer than 4,194,304 bytes. JSON nested more than 32 deep, BibTeX braces more
            than 32 deep, and @string macros past 10,000 or 1,048,576 bytes in all are bad lines
            too.
            If any line is bad, each is reported as FILE:LINE: reason as it is found, nothing is
            imported and the exit status is 1. --restore takes each line exactly as 'bookshelf export'
            wrote it, without these rules, even text that is not UTF-8 (raw in CSV, \\udcXX
            escapes in JSON Lines).

            FILE is read a megabyte at a time while its books are added in one transaction,
            which commits only if no line was bad. Progress goes to standard error, in bytes of
            FILE read (none for standard input or a pipe, whose size is unknown); a bar redrawn
            in place on a terminal, a line at every tenth otherwise.

            A catalog that does not exist yet is created with the starter accounts and only the
            imported books (no sample books). Into SQLite, the scope's search index is then
            built and stored, so that the next search starts from it; past \(NumberText.grouped(SearchIndexAfterImport.buildLimit)) books
            in the scope, that build is left to the next program that searches it, and a
            line on standard error says so.

            On PostgreSQL, import as the database owner (the role that ran 'bookshelf setup');
            accounts cannot add books.

            Into a Calibre library (--db naming its folder) the books are written as calibre
            writes them, in one transaction of metadata.db under calibre's lock (refused while
            calibre runs), and re-imported as above; what each import remembers is kept in
            $XDG_STATE_HOME/bookshelf/calibre/, never in metadata.db. No --scope (a library has
            one), --restore or --remove-missing (books are deleted in calibre).

            \(CatalogTarget.explanation)
            """,
        run: run)

    static let match = Option<String>(
        "match", value: "KEY", completes: .choices(["isbn"]),
        help: "With Bookshelf's own CSV or JSON Lines: a book with the same ISBN is the same book, updated.")

    static let prefer = Option<String>(
        "prefer", value: "SIDE", completes: .choices(["source", "yours"]),
        help: "Whose value a field both the source and the catalog changed takes (yours by default).")

    static let dryRun = Flag(
        "dry-run", help: "Say what the import would add, update and find in conflict; change nothing.")

    static let removeMissing = Flag(
        "remove-missing",
        help: "Delete the books an earlier import of this source brought that it no longer has (kept by default).")

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        let console = context.console
        let file = arguments.positionals[0]
        let requestedScope = arguments.value(CatalogOptions.scope) ?? "main"
        guard !requestedScope.isEmpty, !BookValidation.hasControlCharacters(requestedScope) else {
            throw UsageError("--scope needs a name without control characters")
        }
        let target = try CatalogTarget.resolve(
            option: arguments.value(CatalogOptions.db), environment: context.environment)
        // Refused before the file is read: nothing of it would be used.
        let restoring = arguments.isSet(restore)
        if restoring, case .postgres = target { throw UsageError("--restore works on SQLite catalogs only") }
        if restoring, case .calibre = target { throw UsageError("--restore works on SQLite catalogs only") }
        // A library has one scope, its owner's; its books are deleted in calibre.
        let scope: String
        if case .calibre = target {
            if arguments.value(CatalogOptions.scope) != nil {
                throw UsageError("a Calibre library has one scope: no --scope")
            }
            if arguments.isSet(removeMissing) { throw UsageError(CalibreLibraryStore.removeMissingRefusal) }
            scope = CalibreLibraryStore.scope
        } else {
            scope = requestedScope
        }
        let stateFolder = StateFolder.path(environment: context.environment)

        let source = try ImportSource(option: arguments.value(from))
        if restoring, !source.isBookshelfFile {
            throw UsageError("--restore takes back a 'bookshelf export' (csv or jsonl), not --from \(source.name)")
        }
        let reimporting = try ReimportOptions(arguments, source: source, restoring: restoring)

        if source == .calibre {
            guard let read = try readCalibre(file, console: console) else { return .nothingDone }
            return try await store(
                read.sourced, summary: { read.summary }, isComplete: { true }, scope: scope, target: target,
                restoring: restoring, plan: reimporting.plan(source: .calibre), stateFolder: stateFolder,
                console: console)
        }
        // Opened before the catalog is touched; read a chunk at a time while the store adds
        // the books in its one transaction, so the file never sits in memory.
        let input = try ImportInput.open(file)
        defer { input.close() }
        // The file's name alone: a long path would leave no room for the bar.
        let name = file == "-" ? "standard input" : URL(fileURLWithPath: file).lastPathComponent.printable
        let reading = input.size.map { ProgressDisplay.standardError(label: "Reading \(name) (bytes)", total: $0) }
        let tally = Locked(ImportTally())
        let shownFile = file.printable
        let books = ImportedBooks(
            input: input, source: source.file, fileName: file, restoring: restoring,
            tally: tally,
            detected: { detected in
                // Bookshelf's own UTF-8 files are read as they always were; anything else is said.
                guard source == .auto,
                    detected.source != .csv && detected.source != .jsonLines
                        || detected.encoding != .utf8 && detected.encoding != .utf8WithByteOrderMark
                else { return }
                let line = "bookshelf import: reading \(shownFile) as \(detected)"
                if let reading { reading.note(line) } else { StandardStream.writeError(line + "\n") }
            },
            problem: { problem in
                let line = "\(shownFile):\(problem.line): \(TerminalText.sanitized(problem.reason))"
                if let reading { reading.note(line) } else { StandardStream.writeError(line + "\n") }
            },
            progress: { reading?.update($0) }, ended: { reading?.finish() })
        // The first book read says what the file is (recognised from its first chunk), and so
        // whether it can hold books already in the catalog.
        let started = books.started()
        let status: ExitStatus
        do {
            status = try await store(
                started, summary: { tally.withLock { $0.summary } }, isComplete: { tally.withLock { $0.isComplete } },
                scope: scope, target: target, restoring: restoring,
                plan: reimporting.plan(source: started.origins), stateFolder: stateFolder, console: console)
        } catch {
            reading?.finish()
            let state = tally.withLock { $0 }
            if let failure = state.readFailure { throw failure }
            guard state.finished, state.problems > 0 else { throw error }
            let count = state.problems
            console.note(
                "bookshelf import: nothing imported: \(count) bad line\(count == 1 ? "" : "s") in \(file.printable)")
            return .nothingDone
        }
        return status
    }

    /// Adds `books` to the target catalog in one transaction, committed only if `isComplete`
    /// says so after the last book. The store's failure (or its withdrawal) is thrown.
    private static func store(
        _ sourced: some Sequence<SourcedBook> & Sendable, summary: () -> ImportSummary,
        isComplete: @escaping @Sendable () -> Bool, scope: String, target: CatalogTarget, restoring: Bool,
        plan: ReimportPlan?, stateFolder: String?, console: Console
    ) async throws -> ExitStatus {
        // Into a library every import goes through the re-import's transaction: it is the one
        // that writes books as calibre does and remembers them beside the library.
        var plan = plan
        if plan == nil, case .calibre = target { plan = ReimportPlan(source: nil) }
        if let plan {
            return try await reimport(
                sourced, plan: plan, summary: summary, isComplete: isComplete, scope: scope, target: target,
                stateFolder: stateFolder, console: console)
        }
        let books = WithoutOrigins(base: sourced)
        guard case let .sqlite(path) = target else {
            guard case let .postgres(connector) = target else { return .failure }
            let status = try await importIntoPostgres(
                books, isComplete: isComplete, scope: scope, connector: connector, console: console)
            report(summary(), console: console)
            return status
        }
        // "Nothing imported" holds for the file system too: a catalog this run made for the
        // import is removed again when adding its books fails.
        let isNew = CatalogOpener.FileState(path) == .missing
        let added: Added
        do {
            added = try await add(
                books, scope: scope, validating: !restoring, isComplete: isComplete, to: path, console: console)
        } catch {
            if isNew { CatalogOpener.remove(newCatalogAt: path) }
            throw error
        }
        console.line(
            "Added \(NumberText.grouped(added.count)) book\(added.count == 1 ? "" : "s") to scope \(scope.printable).")
        report(summary(), console: console)
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
        _ books: some Sequence<NewBook>, scope: String, validating: Bool, isComplete: () -> Bool, to path: String,
        console: Console
    ) async throws -> Added {
        var created = false
        let catalog = try CatalogOpener.open(
            path: path, console: console, creating: .accountsOnlyIfMissing, announcing: false
        ) { _ in created = true }
        let count: Int
        do {
            count = try catalog.insertBooks(books, scope: scope, validating: validating, commitIf: isComplete)
        } catch .importWithdrawn {
            throw SQLiteCatalogError.importWithdrawn
        } catch {
            throw CommandFailure("nothing imported: " + TerminalText.sanitized(error.description))
        }
        if created { console.note(CatalogOpener.createdNote(path: path, sampleBooks: nil)) }
        let index = await SearchIndexAfterImport.prepare(catalog, scope: scope)
        if let note = SearchIndexAfterImport.note(index, scope: scope) { console.note("bookshelf import: " + note) }
        let accounts = try? catalog.accounts()
        return Added(count: count, scopeHasAccount: accounts.map { $0.contains { $0.scope == scope } } ?? true)
    }

    /// One COPY in one transaction, as the database owner (accounts may not add books).
    private static func importIntoPostgres(
        _ books: some Sequence<NewBook> & Sendable, isComplete: @escaping @Sendable () -> Bool, scope: String,
        connector: PostgresConnector, console: Console
    ) async throws -> ExitStatus {
        let setup = try await PostgresSignIn.administrator(connector)
        let added: Int
        do {
            added = try await setup.importBooks(streaming: books, scope: scope, commitIf: isComplete)
        } catch PostgresSetupFailure.importWithdrawn {
            throw PostgresSetupFailure.importWithdrawn
        } catch {
            throw CommandFailure("nothing imported: " + PostgresSignIn.message(error))
        }
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
            sourced: library.sourced, problems: [],
            summary: ImportSummary(
                booksRead: library.books.count, fieldsMapped: library.fieldsMapped,
                skipped: library.skipped.map { ImportSummary.Skip(reason: $0.reason, count: $0.count) }))
    }

}

/// Where `bookshelf import --from` takes its books from: a file of a `BookSource`, recognised
/// (`auto`, the default) or named, or a Calibre library folder.
enum ImportSource: Equatable {
    case auto
    case file(BookSource)
    case calibre

    static let names = ["auto"] + BookSource.allCases.map(\.rawValue) + ["calibre"]

    init(option: String?) throws(UsageError) {
        guard let option, option != "auto" else {
            self = .auto
            return
        }
        if option == "calibre" {
            self = .calibre
        } else if let source = BookSource(rawValue: option) {
            self = .file(source)
        } else {
            throw UsageError(
                "--from must be one of \(Self.names.joined(separator: ", ")), not \"\(option.printable)\"")
        }
    }

    /// The file source to read, nil to recognise it.
    var file: BookSource? {
        if case let .file(source) = self { source } else { nil }
    }

    var name: String {
        switch self {
        case .auto: "auto"
        case let .file(source): source.rawValue
        case .calibre: "calibre"
        }
    }

    /// Bookshelf's own CSV or JSON Lines (or recognised as one): what `--restore` takes back.
    var isBookshelfFile: Bool {
        self == .auto || self == .file(.csv) || self == .file(.jsonLines)
    }
}
