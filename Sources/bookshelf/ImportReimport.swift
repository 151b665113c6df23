import BookCatalog
import CatalogImport
import CommandLineOptions
import Foundation
import PostgresCatalog
import SQLiteCatalog
import TerminalSafeText

/// `bookshelf import` of a source whose books may already be in the catalog (issue 60): a
/// source with ids, `--match isbn`, or `--dry-run`. The books are matched, merged three ways
/// and saved by the store in one transaction (`Reimport.run`), and the command says what it
/// added, updated, found in conflict and found gone from the source.
extension ImportCommand {
    static func reimport(
        _ books: some Sequence<SourcedBook> & Sendable, plan: ReimportPlan, summary: () -> ImportSummary,
        isComplete: @escaping @Sendable () -> Bool, scope: String, target: CatalogTarget, stateFolder: String?,
        console: Console
    ) async throws -> ExitStatus {
        let report: ReimportReport
        switch target {
        case let .sqlite(path):
            let isNew = CatalogOpener.FileState(path) == .missing
            do {
                report = try await reimportIntoSQLite(
                    books, plan: plan, isComplete: isComplete, scope: scope, path: path, console: console)
            } catch {
                if isNew { CatalogOpener.remove(newCatalogAt: path) }
                throw error
            }
            // A dry run leaves no catalog of its own behind either.
            if isNew, plan.dryRun { CatalogOpener.remove(newCatalogAt: path) }
        case let .calibre(path):
            // Its provenance is kept in the state folder, never in metadata.db.
            do {
                let store = try CalibreLibraryStore.open(path: path)
                report = try store.reimport(books, plan: plan, stateFolder: stateFolder, commitIf: isComplete)
            } catch {
                throw CommandFailure("nothing imported: " + TerminalText.sanitized(error.description))
            }
        case let .postgres(connector):
            let setup = try await PostgresSignIn.administrator(connector)
            do {
                report = try await setup.reimport(books, scope: scope, plan: plan, commitIf: isComplete)
            } catch PostgresSetupFailure.importWithdrawn {
                throw PostgresSetupFailure.importWithdrawn
            } catch {
                throw CommandFailure("nothing imported: " + PostgresSignIn.message(error))
            }
        }
        say(report, plan: plan, scope: scope, console: console)
        for line in summary().lines(number: NumberText.grouped) {
            console.note("bookshelf import: " + TerminalText.sanitized(line))
        }
        return .success
    }

    private static func reimportIntoSQLite(
        _ books: some Sequence<SourcedBook>, plan: ReimportPlan, isComplete: () -> Bool, scope: String, path: String,
        console: Console
    ) async throws -> ReimportReport {
        var created = false
        let catalog = try CatalogOpener.open(
            path: path, console: console, creating: .accountsOnlyIfMissing, announcing: false
        ) { _ in created = true }
        let report: ReimportReport
        do {
            report = try catalog.reimport(books, scope: scope, plan: plan, commitIf: isComplete)
        } catch .importWithdrawn {
            throw SQLiteCatalogError.importWithdrawn
        } catch {
            throw CommandFailure("nothing imported: " + TerminalText.sanitized(error.description))
        }
        if plan.dryRun { return report }
        if created { console.note(CatalogOpener.createdNote(path: path, sampleBooks: nil)) }
        // Derived data: if it cannot be stored now, the next program builds it instead.
        _ = try? await catalog.prepareSearchIndex(scope: scope)
        return report
    }

    /// The summary line on standard output; each conflict and each book gone from the
    /// source on standard error, with the book's id and title (data from the store, sanitised).
    private static func say(_ report: ReimportReport, plan: ReimportPlan, scope: String, console: Console) {
        let summary = report.summary(number: NumberText.grouped)
        if plan.dryRun {
            console.line("Dry run, nothing changed in scope \(scope.printable): would be \(summary).")
        } else if report.onlyAdded {
            // A first import says what any import that only adds says.
            let count = report.added
            console.line(
                "Added \(NumberText.grouped(count)) book\(count == 1 ? "" : "s") to scope \(scope.printable).")
        } else {
            console.line("Imported into scope \(scope.printable): \(summary).")
        }
        for conflict in report.conflicts {
            let kept = conflict.tookSource ? "took the source's" : "kept yours"
            console.note(
                "bookshelf import: conflict: book \(conflict.bookID) \(TerminalText.sanitized(JSONText.quoted(conflict.title))): "
                    + "\(conflict.field.label) changed here and in the source; \(kept)")
        }
        if report.conflictCount > report.conflicts.count {
            console.note(
                "bookshelf import: and \(NumberText.grouped(report.conflictCount - report.conflicts.count)) more conflicts"
            )
        }
        let fate = report.goneDeleted ? (plan.dryRun ? "would be deleted" : "deleted") : "kept"
        for book in report.gone {
            console.note(
                "bookshelf import: gone from the source: book \(book.id) \(TerminalText.sanitized(JSONText.quoted(book.title))) (\(fate))"
            )
        }
        if report.goneCount > report.gone.count {
            console.note(
                "bookshelf import: and \(NumberText.grouped(report.goneCount - report.gone.count)) more books gone from the source"
            )
        }
    }
}

/// `--match`, `--prefer`, `--dry-run` and `--remove-missing`, checked before the file is read.
struct ReimportOptions {
    let matchByISBN: Bool
    let preferSource: Bool
    let dryRun: Bool
    let removeMissing: Bool

    init(_ arguments: ParsedArguments, source: ImportSource, restoring: Bool) throws(UsageError) {
        let match = arguments.value(ImportCommand.match), prefer = arguments.value(ImportCommand.prefer)
        dryRun = arguments.isSet(ImportCommand.dryRun)
        removeMissing = arguments.isSet(ImportCommand.removeMissing)
        if let match, match != "isbn" { throw UsageError("--match must be isbn, not \"\(match.printable)\"") }
        if let prefer, prefer != "source", prefer != "yours" {
            throw UsageError("--prefer must be source or yours, not \"\(prefer.printable)\"")
        }
        if restoring, match != nil || prefer != nil || dryRun || removeMissing {
            throw UsageError(
                "--restore takes back a 'bookshelf export' as it is: no --match, --prefer, --dry-run or --remove-missing"
            )
        }
        if removeMissing, source.isBookshelfFile, source != .auto, match == nil {
            throw UsageError(
                "--remove-missing needs books an import remembers: a source with ids, or --match isbn for \(source.name)"
            )
        }
        if match != nil, !source.isBookshelfFile {
            throw UsageError(
                "--match isbn is for Bookshelf's own CSV or JSON Lines; --from \(source.name) matches by its ids")
        }
        matchByISBN = match != nil
        preferSource = prefer == "source"
    }

    /// The re-import's plan for books whose origins name `source` (nil: Bookshelf's own
    /// formats), or nil for an import that only adds, which keeps the bulk insert and its speed.
    func plan(source: ImportSourceKind?) throws(CommandFailure) -> ReimportPlan? {
        let plan = ReimportPlan(
            source: source, matchByISBN: matchByISBN, preferSource: preferSource, dryRun: dryRun,
            removeMissing: removeMissing)
        // A file recognised as Bookshelf's own: its books are remembered only with --match isbn.
        if removeMissing, !plan.matches {
            throw CommandFailure(
                "nothing imported: --remove-missing needs books an import remembers; this file's rows have no ids (--match isbn makes its ISBNs theirs)"
            )
        }
        return plan.matches || dryRun ? plan : nil
    }
}
