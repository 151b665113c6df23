import BookCatalog
import CatalogImport
import CommandLineOptions
import TerminalSafeText
import Foundation

/// `bookshelf history ID`: every committed revision of a book, newest first, as the store
/// recorded it (who saved it, when, and with which operation id).
enum HistoryCommand {
    static let json = Flag("json", help: "Print JSON Lines, one revision per line (see below).")

    static let command = Command(
        name: "history",
        summary: "Print the revisions of book ID, newest first.",
        positionals: .one("ID"),
        options: [json, CatalogOptions.account, CatalogOptions.db, CatalogReads.option, CatalogReads.standbyWait],
        details: """
            Output: one revision per line, revision<TAB>time<TAB>account<TAB>title<TAB>author<TAB>batch,
            the time in UTC (ISO 8601), the account "-" for a revision no account saved (an
            import, or the revision a book had when its catalog began keeping history), the
            batch the number of the bulk edit or undo that saved it ('bookshelf undo N'), "-"
            for none. With --json: {"id":..,"revision":..,"title":..,"author":..,"account":..|null,
            "saved_at":"2026-01-02T03:04:05.678Z","operation":"UUID"|null,"batch":N|null}, and after the author
            the revision's other fields as 'bookshelf export --format jsonl' writes them (isbn,
            year, publisher, series, series_index, tags, notes; empty ones left out).

            A book an import deleted (import --remove-missing: it was gone from its source) keeps
            its history: its revisions are printed as before, the last the one it had when it
            was deleted, and standard error says "book ID was deleted at TIME by an import of
            SOURCE (gone from the source); revision N was its last".

            Exit status: 0 success; 2 usage error; 3 no such book in the account's scope, or the
            catalog could not be used.

            \(CatalogTarget.explanation)
            \(CatalogReads.explanation)
            """,
        run: run)

    @Sendable static func run(_ context: CommandContext) async throws -> ExitStatus {
        let id = try context.arguments.bookID()
        let json = context.arguments.isSet(json)
        let remote = try await AccountRemote.open(
            context.arguments, environment: context.environment, console: context.console)
        let revisions: [BookRevision]
        let deletion: BookDeletion?
        do {
            revisions = try await BookRepository(remote: remote).history(id: id)
            deletion = try await (remote as? any DeletionRecordingRemote)?.deletion(of: id)
        } catch BookFailure.missing {
            throw CommandFailure("there is no book \(id) in the scope of this account")
        } catch {
            throw CommandFailure(PostgresSignIn.oneLine(String(describing: error)))
        }
        if let deletion {
            context.console.note(
                "bookshelf history: book \(id) was deleted at \(timestamp(deletion.deletedAt)) by an import of "
                    + "\(deletion.source.rawValue) (gone from the source); revision \(deletion.revision) was its last")
        }
        for revision in revisions {
            context.console.line(json ? jsonLine(revision) : tabSeparatedLine(revision))
        }
        return .success
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    static func tabSeparatedLine(_ revision: BookRevision) -> String {
        [
            String(revision.revision), timestamp(revision.savedAt), TerminalText.sanitized(revision.account ?? "-"),
            TerminalText.sanitized(revision.record.title), TerminalText.sanitized(revision.record.author),
            revision.batch.map { String($0.number) } ?? "-",
        ]
        .joined(separator: "\t")
    }

    static func jsonLine(_ revision: BookRevision) -> String {
        let record = revision.record
        let account: String = revision.account.map(JSONText.quoted) ?? "null"
        return "{\"id\":\(record.id),\"revision\":\(record.revision),\"title\":\(JSONText.quoted(record.title)),"
            + "\"author\":\(JSONText.quoted(record.author))\(BookExport.jsonMembers(record.details)),"
            + "\"account\":\(account),"
            + "\"saved_at\":\"\(timestamp(revision.savedAt))\","
            + "\"operation\":\(revision.operation.map { "\"\($0.uuidString)\"" } ?? "null"),"
            + "\"batch\":\(revision.batch.map { String($0.number) } ?? "null")}"
    }
}
