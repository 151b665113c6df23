import BookCatalog
import CommandLineOptions
import Foundation

/// `bookshelf edit ID`: a save from a script, through the same repository and
/// compare-and-set as the app. Without `--if-revision` it edits the revision it reads just
/// before saving; with it, only that revision.
enum EditCommand {
    static let title = Option<String>("title", value: "T", help: "The new title.")
    static let author = Option<String>("author", value: "A", help: "The new author (\"\" for none).")
    static let isbn = Option<String>(
        "isbn", value: "ISBN", help: "The ISBN-10 or ISBN-13, hyphens allowed (kept as ISBN-13; \"\" for none).")
    static let year = Option<String>(
        "year", value: "YEAR", help: "The publication year, -3000 to next year (\"\" for none).")
    static let publisher = Option<String>("publisher", value: "P", help: "The publisher (\"\" for none).")
    static let series = Option<String>("series", value: "S", help: "The series (\"\" for none).")
    static let seriesIndex = Option<String>(
        "series-index", value: "N", help: "The place in the series, such as 1 or 2.5 (\"\" for none).")
    static let tags = Option<String>(
        "tags", value: "TAGS", help: "All the tags, comma-separated: \"a, b\" (\"\" for none).")
    static let notes = Option<String>("notes", value: "TEXT", help: "The notes; line breaks are kept (\"\" for none).")
    static let notesFile = Option<String>(
        "notes-file", value: "F", completes: .file, help: "The notes from file F (- reads standard input).")
    static let ifRevision = Option.integer(
        "if-revision", in: 1...Int.max, help: "Save only if the book is still at revision N.")
    static let json = Flag(
        "json", help: "Print the book as JSON: {\"id\":..,\"title\":..,\"author\":..,\"revision\":..}.")

    static let command = Command(
        name: "edit",
        summary: "Change the fields of book ID, or of every book --search QUERY matches (compare-and-set).",
        positionals: .optional("ID"),
        options: [
            title, author, isbn, year, publisher, series, seriesIndex, tags, notes, notesFile, ifRevision, json,
        ] + BulkEditCommand.options + [CatalogOptions.account, CatalogOptions.db],
        details: """
            Fields not given keep their stored value; an empty value ("") clears a field.
            Each value is checked by its field's rule before anything is saved (a bad one
            exits 2 naming the field). On success prints the new revision (with
            --json, the saved book). Values equal to the stored ones save nothing: "No changes"
            on standard error, and the current revision is printed. When someone else saved the book first (it is no longer
            at --if-revision N, or it changed between reading and saving), nothing is saved
            and the book as they left it ("theirs") is printed as id<TAB>title<TAB>author<TAB>
            revision (or as JSON).

            Exit status: 0 saved; 2 usage error (a missing or invalid title, a bad ISBN, say); 3 not
            allowed (a reader, or a book of another scope, which an account cannot see), the
            catalog or the --notes-file could not be used (missing, unreadable, not UTF-8), or
            --if-revision N is ahead of the book; 4 conflict:
            someone else saved first.

            \(BulkEditCommand.details)

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        if let query = arguments.value(BulkEditCommand.search) {
            return try await BulkEditCommand.run(context, query: query)
        }
        for option in BulkEditCommand.options where arguments.isGiven(option) {
            throw UsageError("--\(option.spec.name) goes with --search QUERY (a bulk edit)")
        }
        guard !arguments.positionals.isEmpty else { throw UsageError("give a book ID, or --search QUERY") }
        let id = try arguments.bookID()
        let title = arguments.value(title)
        let author = arguments.value(author)
        let edits = try DetailEdits(arguments)
        guard title != nil || author != nil || !edits.isEmpty else {
            throw UsageError("give at least one field to change (--title, --author, --isbn, … see --help)")
        }
        let expected = try arguments.value(ifRevision)
        let json = arguments.isSet(json)
        let remote = try await AccountRemote.open(
            arguments, environment: context.environment, console: context.console, primaryOnly: true)
        let repository = BookRepository(remote: remote)
        let console = context.console

        let current = try await outcome(of: { try await repository.book(id: id, policy: .refresh) }, id: id)
        if let expected, expected > current.revision {
            // Nobody saved: the book has never been at that revision.
            throw CommandFailure(
                "book \(id) is at revision \(current.revision); --if-revision \(expected) is ahead of it "
                    + "(no one has saved it that far), and nothing was saved")
        }
        if let expected, current.revision != expected {
            return conflict(theirs: current, expected: expected, json: json, console: console)
        }
        let request = SaveRequest(
            id: id, title: title ?? current.title, author: author,
            details: edits.isEmpty ? nil : edits.applied(to: current.details),
            expectedRevision: expected ?? current.revision)
        let stored: SaveRequest
        do {
            stored = try request.validated()
        } catch {
            if error == .invalidTitle, let problem = BookValidation.titleProblem(request.title) {
                throw UsageError(problem)
            }
            throw UsageError(error.description)
        }
        // Saving what is already stored would make a revision that changes nothing.
        if stored.title == current.title, stored.author.map({ $0 == current.author }) ?? true,
            stored.details.map({ $0 == current.details }) ?? true
        {
            console.note(
                "bookshelf edit: No changes: book \(id) already has that text; it stays at revision \(current.revision)"
            )
            console.line(json ? SearchCommand.jsonLine(current) : String(current.revision))
            return .success
        }
        let saved: BookRecord
        do {
            saved = try await repository.save(request)
        } catch BookFailure.conflict {
            let theirs = try await outcome(of: { try await repository.book(id: id, policy: .refresh) }, id: id)
            return conflict(theirs: theirs, expected: request.expectedRevision, json: json, console: console)
        } catch BookFailure.outcomeUnknown {
            switch try await outcome(of: { try await repository.reconcile(request) }, id: id) {
            case let .committed(record):
                saved = record
            case let .committedThenChanged(revision, current):
                console.note(
                    "bookshelf edit: saved as revision \(revision); someone else has saved since (revision \(current.revision))"
                )
                console.line(json ? SearchCommand.jsonLine(current) : String(revision))
                return .success
            case let .notCommitted(current):
                guard current.revision == request.expectedRevision else {
                    return conflict(theirs: current, expected: request.expectedRevision, json: json, console: console)
                }
                throw CommandFailure("the save did not reach the catalog; nothing was changed")
            }
        } catch {
            throw failure(error, id: id)
        }
        console.line(json ? SearchCommand.jsonLine(saved) : String(saved.revision))
        return .success
    }

    private static func conflict(theirs: BookRecord, expected: Int, json: Bool, console: Console) -> ExitStatus {
        console.note(
            "bookshelf edit: conflict: book \(theirs.id) is at revision \(theirs.revision), not \(expected); "
                + "someone else saved it first, and nothing was saved")
        console.line(json ? SearchCommand.jsonLine(theirs) : SearchCommand.tabSeparatedLine(theirs))
        return .conflict
    }

    /// Runs a store call, turning its failures into the command's messages.
    private static func outcome<T>(of call: () async throws -> T, id: Int) async throws -> T {
        do {
            return try await call()
        } catch {
            throw failure(error, id: id)
        }
    }

    private static func failure(_ error: any Error, id: Int) -> CommandFailure {
        switch error {
        case BookFailure.missing:
            CommandFailure("there is no book \(id) in the scope of this account; nothing was saved")
        case BookFailure.notAllowed:
            CommandFailure("this account may not edit books (it is a reader); nothing was saved")
        case let failure as BookFailure:
            CommandFailure(TerminalText.sanitized(failure.description))
        case let failure as CommandFailure:
            failure
        default:
            CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
        }
    }
}

/// The detail fields `bookshelf edit` was given, each already through its rule: a bad value
/// is a usage error naming the field before the catalog is opened.
struct DetailEdits {
    private var isbn: String??
    private var year: Int??
    private var publisher: String?
    private var series: String?
    private var seriesIndex: SeriesIndex??
    private var tags: [String]?
    private var notes: String?

    init(_ arguments: ParsedArguments) throws {
        do {
            isbn = try arguments.value(EditCommand.isbn).map { text throws(BookFailure) in try BookValidation.isbn(text)
            }
            year = try arguments.value(EditCommand.year).map { text throws(BookFailure) in
                try BookValidation.year(text: text)
            }
            publisher = try arguments.value(EditCommand.publisher).map { text throws(BookFailure) in
                try BookValidation.publisher(text)
            }
            series = try arguments.value(EditCommand.series).map { text throws(BookFailure) in
                try BookValidation.series(text)
            }
            seriesIndex = try arguments.value(EditCommand.seriesIndex).map { text throws(BookFailure) in
                try BookValidation.seriesIndex(text: text)
            }
            tags = try arguments.value(EditCommand.tags).map { text throws(BookFailure) in
                try BookValidation.tags(text: text)
            }
            notes = try Self.notesText(arguments).map { text throws(BookFailure) in try BookValidation.notes(text) }
        } catch let failure as BookFailure {
            throw UsageError(TerminalText.sanitized(failure.description))
        }
    }

    var isEmpty: Bool {
        isbn == nil && year == nil && publisher == nil && series == nil && seriesIndex == nil && tags == nil
            && notes == nil
    }

    /// The stored details with the fields given replaced: what a save writes, all together.
    func applied(to stored: BookDetails) -> BookDetails {
        BookDetails(
            isbn: isbn ?? stored.isbn, year: year ?? stored.year, publisher: publisher ?? stored.publisher,
            series: series ?? stored.series, seriesIndex: seriesIndex ?? stored.seriesIndex,
            tags: tags ?? stored.tags, notes: notes ?? stored.notes)
    }

    static func notesText(_ arguments: ParsedArguments) throws -> String? {
        let text = arguments.value(EditCommand.notes), file = arguments.value(EditCommand.notesFile)
        guard let file else { return text }
        guard text == nil else { throw UsageError("give --notes or --notes-file, not both") }
        let data: Data
        do {
            data =
                try file == "-"
                ? FileHandle.standardInput.readToEnd() ?? Data() : Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            // The command line was right; the file could not be used (exit 3, as import's own file).
            throw CommandFailure(
                "cannot read the notes file \(file.printable): \(FileReadFailure.reason(error, path: file))")
        }
        guard let notes = String(data: data, encoding: .utf8) else {
            throw CommandFailure("the notes file \(file.printable) is not UTF-8 text")
        }
        return notes
    }
}
