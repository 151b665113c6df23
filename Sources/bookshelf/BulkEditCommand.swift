import BookCatalog
import CommandLineOptions
import Foundation
import SQLiteCatalog
import TerminalSafeText

/// `bookshelf edit --search QUERY …`: one change saved to every book QUERY matches, each book
/// with its own compare-and-set and its own outcome, in a batch that `bookshelf undo` reverts
/// (issue 61). The use case is `BulkEdit`; this reads the options and prints the outcomes.
enum BulkEditCommand {
    static let search = Option<String>(
        "search", value: "QUERY",
        help: "Edit every book QUERY matches (as 'bookshelf search QUERY' finds them), not book ID; see below.")
    static let addTag = Option.repeating(
        "add-tag", value: "T", help: "With --search: add tag T to each book (give it again for more tags).")
    static let removeTag = Option.repeating(
        "remove-tag", value: "T", help: "With --search: remove tag T from each book (give it again for more tags).")
    static let dryRun = Flag(
        "dry-run", help: "With --search: print what would become of each book; save nothing, make no batch.")
    static let allOrNothing = Flag(
        "all-or-nothing", help: "With --search: save every book in one transaction, or none if any conflicts.")

    /// The options only a bulk edit takes.
    static let options: [any OptionDeclaration] = [search, addTag, removeTag, dryRun, allOrNothing]

    /// How many matches one page of the search reads.
    static let pageSize = 1_000

    static let details = """
        With --search QUERY, every book QUERY matches gets the same change: the field options
        (but --title and --isbn, which are each book's own), --add-tag and --remove-tag. Each
        book is saved with its own compare-and-set against the revision the search read, and
        has its own outcome: saved (a new revision), unchanged (it already was so), merged
        (someone else saved other fields since: the change is merged in, field by field, as the
        app merges, tags as sets and notes by line), conflict (someone else changed the same
        field: the book is left as they saved it) or failed (with the reason). This is a partial
        outcome, stated as such: the books saved stay saved. With --all-or-nothing, every book
        is saved in one transaction, or, if any conflicts or fails, none is.

        The revisions saved form a batch, numbered by the catalog, which 'bookshelf undo N'
        reverts and 'bookshelf history' names. Standard error ends with "Batch N: A saved, B
        unchanged, C merged, D conflicts, E failed" ("No batch: …" when nothing was saved).
        Output: one line per book, id<TAB>outcome<TAB>revision<TAB>reason; with --json,
        {"id":..,"outcome":"saved|unchanged|merged|conflict|failed","revision":..|null,
        "reason":..|null}, then {"batch":N|null,"saved":A,"unchanged":B,"merged":C,
        "conflicts":D,"failed":E}. With --dry-run nothing is saved and no batch is made: each
        book "would save", is unchanged, or "would fail" (in JSON, "would_save" and
        "would_fail", and "dry_run":true in the last line).

        Exit status of a bulk edit: 0 nothing conflicted or failed; 1 some book failed; 4
        some book conflicted (and none failed); 2 and 3 as below.
        """

    @Sendable static func run(_ context: CommandContext, query: String) async throws -> ExitStatus {
        let arguments = context.arguments
        guard arguments.positionals.isEmpty else { throw UsageError("give --search QUERY or a book ID, not both") }
        for option in [EditCommand.title, EditCommand.isbn] where arguments.value(option) != nil {
            throw UsageError("--\(option.spec.name) is one book's own: a bulk edit (--search) does not set it")
        }
        guard !arguments.isGiven(EditCommand.ifRevision) else {
            throw UsageError("--if-revision names one book's revision: a bulk edit saves each against the one it read")
        }
        let change = try self.change(arguments)
        let json = arguments.isSet(EditCommand.json)
        let remote = try await AccountRemote.open(
            arguments, environment: context.environment, console: context.console, primaryOnly: true)
        let repository = BookRepository(remote: remote)
        let books = try await outcome { try await matches(of: query, in: repository) }
        // No more searches: an index prepared now would only take a core from the saves, and
        // they make it stale.
        if let sqlite = remote as? SQLiteBookRemote { await sqlite.stopPreparingIndex() }
        let console = context.console

        if arguments.isSet(dryRun) {
            let outcomes = BulkEdit.preview(change, of: books)
            for outcome in outcomes { console.line(line(outcome, json: json, dryRun: true)) }
            let counts = OutcomeCounts(outcomes)
            console.note(
                "bookshelf edit: Dry run, no batch: \(counts.saved) would be saved, \(counts.unchanged) unchanged, "
                    + "\(counts.failed) would fail")
            if json { console.line(summary(nil, counts, dryRun: true)) }
            return counts.failed > 0 ? .nothingDone : .success
        }
        let edit = BulkEdit(repository: repository)
        let report = try await outcome {
            arguments.isSet(allOrNothing)
                ? try await edit.applyAllOrNothing(change, to: books) : try await edit.apply(change, to: books)
        }
        // All or nothing saved nothing when a book conflicted or failed (every book may have).
        let refused =
            arguments.isSet(allOrNothing) && report.batch == nil && report.counts.conflicts + report.counts.failed > 0
        return finish(report, json: json, console: console, speaker: "bookshelf edit", refused: refused)
    }

    /// The change the options give, each value through its field's rule (a bad one is a usage error).
    static func change(_ arguments: ParsedArguments) throws -> BulkChange {
        var edits: [BulkChange.Edit] = []
        do {
            if let author = arguments.value(EditCommand.author) { edits.append(.set(.author(author))) }
            if let year = arguments.value(EditCommand.year) {
                edits.append(.set(.year(try BookValidation.year(text: year))))
            }
            if let publisher = arguments.value(EditCommand.publisher) { edits.append(.set(.publisher(publisher))) }
            if let series = arguments.value(EditCommand.series) { edits.append(.set(.series(series))) }
            if let index = arguments.value(EditCommand.seriesIndex) {
                edits.append(.set(.seriesIndex(try BookValidation.seriesIndex(text: index))))
            }
            if let tags = arguments.value(EditCommand.tags) {
                edits.append(.set(.tags(try BookValidation.tags(text: tags))))
            }
            if let notes = try DetailEdits.notesText(arguments) { edits.append(.set(.notes(notes))) }
        } catch let failure as BookFailure {
            throw UsageError(TerminalText.sanitized(failure.description))
        }
        let added = arguments.values(addTag), removed = arguments.values(removeTag)
        if !added.isEmpty { edits.append(.addTags(added)) }
        if !removed.isEmpty { edits.append(.removeTags(removed)) }
        do {
            return try BulkChange(edits)
        } catch {
            throw UsageError(TerminalText.sanitized(error.description))
        }
    }

    /// Every book `query` matches, in the search's order, each once, as read.
    static func matches(of query: String, in repository: BookRepository) async throws -> [BookRecord] {
        do {
            return try await repository.everyMatch(of: query, pageSize: pageSize)
        } catch is TooManyMatches {
            throw CommandFailure("QUERY matches more than \(BulkEdit.maximumBooks) books; nothing was saved")
        }
    }

    /// Prints each book's outcome and the summary; the exit status the outcomes call for.
    static func finish(_ report: BatchReport, json: Bool, console: Console, speaker: String, refused: Bool = false)
        -> ExitStatus
    {
        for outcome in report.outcomes { console.line(line(outcome, json: json, dryRun: false)) }
        let counts = report.counts
        let tally =
            "\(counts.saved) saved, \(counts.unchanged) unchanged, \(counts.merged) merged, "
            + "\(counts.conflicts) conflicts, \(counts.failed) failed"
        if refused {
            console.note("\(speaker): All or nothing: nothing was saved, no batch was made: \(tally)")
        } else {
            console.note("\(speaker): " + (report.batch.map { "Batch \($0): " } ?? "No batch: ") + tally)
        }
        if json { console.line(summary(report.batch, counts, dryRun: false)) }
        if counts.failed > 0 { return .nothingDone }
        return counts.conflicts > 0 ? .conflict : .success
    }

    static func line(_ book: BookOutcome, json: Bool, dryRun: Bool) -> String {
        var name = book.outcome.name
        if dryRun, name == "saved" || name == "failed" { name = "would " + (name == "saved" ? "save" : "fail") }
        let revision = book.outcome.revision
        let reason = self.reason(book.outcome)
        guard json else {
            return [String(book.id), name, revision.map(String.init) ?? "-", reason.map(TerminalText.sanitized) ?? ""]
                .joined(separator: "\t")
        }
        return "{\"id\":\(book.id),\"outcome\":\"\(name.replacingOccurrences(of: " ", with: "_"))\","
            + "\"revision\":\(revision.map(String.init) ?? "null"),"
            + "\"reason\":\(reason.map(JSONText.quoted) ?? "null")}"
    }

    static func reason(_ outcome: BulkOutcome) -> String? {
        switch outcome {
        case .saved, .unchanged: nil
        case let .merged(_, theirs): "merged with revision \(theirs), which changed other fields"
        case let .conflict(fields, theirs):
            "someone else changed \(fields.map { $0.label.lowercased() }.joined(separator: ", ")) "
                + "(now at revision \(theirs.revision)); left as they saved it"
        case let .failed(failure): failure.description
        }
    }

    static func summary(_ batch: BatchID?, _ counts: OutcomeCounts, dryRun: Bool) -> String {
        "{\"batch\":\(batch.map { String($0.number) } ?? "null"),"
            + "\"saved\":\(counts.saved),\"unchanged\":\(counts.unchanged),\"merged\":\(counts.merged),"
            + "\"conflicts\":\(counts.conflicts),\"failed\":\(counts.failed)" + (dryRun ? ",\"dry_run\":true}" : "}")
    }

    /// Runs a store call, turning its failures into the command's messages.
    static func outcome<T>(of call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch BookFailure.notAllowed {
            throw CommandFailure("this account may not edit books (it is a reader); nothing was saved")
        } catch let failure as BookFailure {
            throw CommandFailure(TerminalText.sanitized(failure.description))
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
        }
    }
}

/// `bookshelf undo BATCH`: reverts the books of a batch, as a new batch (issue 61).
enum UndoCommand {
    static let json = Flag("json", help: "Print JSON Lines, one book per line, then the counts (as 'edit --search').")

    static let command = Command(
        name: "undo",
        summary: "Revert the books batch BATCH saved, as a new batch.",
        positionals: .one("BATCH"),
        options: [json, CatalogOptions.account, CatalogOptions.db],
        details: """
            Each book the batch saved is reverted as a new revision, with the same
            compare-and-set as any save. A book someone changed after the batch has only the
            batch's own fields reverted, merged field by field; where the later change touched
            the same field, it is a conflict, listed and left as it is. The undo is a batch of
            its own, which 'bookshelf undo' can revert in turn. Output, standard error and exit
            status as for 'bookshelf edit --search' (an undo has no dry run).

            Exit status: 0 nothing conflicted or failed; 1 some book failed; 2 usage error; 3 no
            batch BATCH in the account's scope, a reader, or the catalog could not be used; 4
            some book conflicted.

            \(CatalogTarget.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let arguments = context.arguments
        guard let text = arguments.positionals.first, let number = Int(text), number > 0 else {
            throw UsageError(
                "BATCH must be a positive whole number, got \"\((arguments.positionals.first ?? "").printable)\"")
        }
        let remote = try await AccountRemote.open(
            arguments, environment: context.environment, console: context.console, primaryOnly: true)
        // An undo never searches: an index loaded or built now would only take a core from its saves.
        if let sqlite = remote as? SQLiteBookRemote { await sqlite.stopPreparingIndex() }
        let edit = BulkEdit(repository: BookRepository(remote: remote))
        let report: BatchReport
        do {
            report = try await BulkEditCommand.outcome { try await edit.undo(BatchID(number)) }
        } catch let failure as CommandFailure where failure.message == BookFailure.missing.description {
            throw CommandFailure("there is no batch \(number) in the scope of this account; nothing was saved")
        }
        return BulkEditCommand.finish(
            report, json: arguments.isSet(json), console: context.console, speaker: "bookshelf undo")
    }
}
